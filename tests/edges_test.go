package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompletionBash: the bash script, sourced in bash with tcgen on the
// PATH, completes commands, presets and --flag=value as bash splits it.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	if err := os.Symlink(tcgenBin, filepath.Join(dir, "tcgen")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		words string // COMP_WORDS, the last one being completed
		want  string // COMPREPLY, one a line
	}{
		{`tcgen gr`, "graph\n"},
		{`tcgen count --preset tr`, "tricore\ntrust\n"},
		{`tcgen count --preset = tr`, "tricore\ntrust\n"},
		{`tcgen graph rmat --sc`, "--scale\n"},
		{`tcgen completion f`, "fish\n"},
	} {
		script := `source <(tcgen completion bash)
COMP_WORDS=(` + c.words + `); COMP_CWORD=$((${#COMP_WORDS[@]}-1))
_tcgen; printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command(bash, "--norc", "-c", script)
		cmd.Env = append(tcgenEnv, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		out, err := cmd.CombinedOutput()
		if err != nil || string(out) != c.want {
			t.Errorf("%s: %v, got %q, want %q", c.words, err, out, c.want)
		}
	}
}

// TestUsageOnStderr: a usage error leaves stdout empty and names the
// command's help on stderr; --version and help COMMAND work.
func TestUsageOnStderr(t *testing.T) {
	code, out, errs := tcgen(t, "count", "x.txt", "--repeat", "-1")
	if code != exitUsage || out != "" || !strings.Contains(errs, "--repeat must be at least 1") || !strings.Contains(errs, `Run "tcgen help count" for usage.`) {
		t.Errorf("--repeat -1: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if strings.Contains(errs, "short flag") {
		t.Errorf("kong's short-flag message reached the user: %q", errs)
	}
	code, out, errs = tcgen(t, "count")
	if code != exitUsage || out != "" || !strings.Contains(errs, "<graph>") {
		t.Errorf("count without a graph: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = tcgen(t, "--version")
	if code != exitOK || !strings.HasPrefix(out, "tcgen ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
	code, out, _ = tcgen(t, "help", "convert")
	if code != exitOK || !strings.Contains(out, "--orient") || !strings.Contains(out, "Exit codes: 0 ok") {
		t.Errorf("help convert: exit %d\n%s", code, out)
	}
}
