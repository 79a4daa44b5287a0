package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/tests/gputest"
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

// TestCompletionFishZsh: fish, given the script, completes presets and
// commands (complete -C); zsh reads its script (zsh -n). Each is skipped
// where the shell is not installed.
func TestCompletionFishZsh(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(tcgenBin, filepath.Join(dir, "tcgen")); err != nil {
		t.Fatal(err)
	}
	env := append(tcgenEnv, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if fish, err := exec.LookPath("fish"); err == nil {
		cmd := exec.Command(fish, "--no-config", "-c", `tcgen completion fish | source; complete -C "tcgen count --preset tr"; complete -C "tcgen gr"`)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if want := "tricore\ntrust\ngraph\tGenerate a synthetic graph (RMAT, Erdos-Renyi, grid, closed forms, Barabasi-Albert, Watts-Strogatz, geometric, Chung-Lu, block model, road-like)\n"; err != nil || string(out) != want {
			t.Errorf("fish: %v, got %q, want %q", err, out, want)
		}
	}
	if zsh, err := exec.LookPath("zsh"); err == nil {
		script := filepath.Join(dir, "_tcgen")
		code, out, _ := tcgen(t, "completion", "zsh")
		if err := os.WriteFile(script, []byte(out), 0o644); code != exitOK || err != nil {
			t.Fatal(code, err)
		}
		if out, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
			t.Errorf("zsh -n: %v: %s", err, out)
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

// countExtra is the part of count --json these tests read beside
// countResult.
type countExtra struct {
	countResult
	NotRun         string  `json:"plan_not_run"`
	Runs           int     `json:"runs"`
	CountMs        float64 `json:"count_ms"`
	CountMinMs     float64 `json:"count_min_ms"`
	CountMaxMs     float64 `json:"count_max_ms"`
	Isolated       uint64  `json:"isolated_dropped"`
	DroppedUnknown bool    `json:"dropped_not_recorded"`
	// Measurement: the timing routine's fields (executor.Measurement).
	Measurement *executor.Measurement `json:"measurement"`
}

func countJSON(t *testing.T, args ...string) (countExtra, string) {
	t.Helper()
	code, out, errs := tcgen(t, append([]string{"--no-cache", "count", "--json"}, args...)...)
	var r countExtra
	if code != exitOK || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("count %q: exit %d\n%s\n%s", args, code, out, errs)
	}
	return r, errs
}

// TestCheckWithoutGPU: count --preset X --check with no GPU says that X
// was not run and that the count, the CPU oracle's own, was compared with
// nothing.
func TestCheckWithoutGPU(t *testing.T) {
	in := writeFile(t, t.TempDir(), "k4.txt", k4)
	r, errs := countJSON(t, in, "--preset", "trust", "--check")
	if r.Backend == "gpu" {
		t.Skip("a GPU counted")
	}
	const checked = "nothing: the count is the CPU oracle's own; preset trust was not run"
	if r.Triangles != 4 || r.NotRun != "preset trust" || r.Checked != checked || r.Reference != nil {
		t.Errorf("got %+v", r)
	}
	if !strings.Contains(errs, "no usable GPU") || !strings.Contains(errs, "preset trust was not run: counting with the CPU oracle") {
		t.Errorf("stderr %q", errs)
	}
	_, out, _ := tcgen(t, "--no-cache", "-q", "count", in, "--preset", "trust", "--check")
	for _, want := range []string{"oracle (preset trust was not run: no usable GPU)", "checked     " + checked} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestRepeatCPU: --repeat N on the CPU times N counts of the oracle and
// reports their median, min and max, and the timing routine's measurement
// (below 6 runs the interval is [min, max]); --flush-l2 has no L2 to flush
// there.
func TestRepeatCPU(t *testing.T) {
	in := writeFile(t, t.TempDir(), "k4.txt", k4)
	r, _ := countJSON(t, in, "--backend", "cpu", "--repeat", "5", "--warmup", "0")
	if r.Triangles != 4 || r.Runs != 5 || !(r.CountMinMs <= r.CountMs && r.CountMs <= r.CountMaxMs) || r.CountMaxMs <= 0 {
		t.Errorf("got %+v", r)
	}
	if m := r.Measurement; m == nil || m.Passes != 5 || len(m.SamplesMs) != 5 || m.Warmup != 0 || m.MedianMs != r.CountMs ||
		m.CILoMs != r.CountMinMs || m.CIHiMs != r.CountMaxMs || m.CI95 || m.FlushL2 {
		t.Errorf("measurement %+v of count_ms %v (min %v, max %v)", m, r.CountMs, r.CountMinMs, r.CountMaxMs)
	}
	_, out, _ := tcgen(t, "--no-cache", "-q", "count", in, "--backend", "cpu", "--repeat", "3")
	if !strings.Contains(out, "median of 3 runs (min ") || !strings.Contains(out, "min-max (below 6 runs no interval reaches 95%) ") {
		t.Errorf("output:\n%s", out)
	}
	code, out, errs := tcgen(t, "--no-cache", "count", in, "--backend", "cpu", "--flush-l2")
	if code != exitUsage || out != "" || !strings.Contains(errs, "count: --flush-l2 flushes the GPU's L2 between runs; --backend cpu runs none") {
		t.Errorf("--flush-l2 --backend cpu: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestDevicesJSONWithoutGPU: devices --json prints valid JSON with no GPU:
// an empty list and the reason, with exit code 5.
func TestDevicesJSONWithoutGPU(t *testing.T) {
	code, out, errs := tcgen(t, "devices", "--json")
	var r struct {
		Devices []json.RawMessage `json:"devices"`
		Error   string            `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON (%v): %q", err, out)
	}
	if code == exitOK {
		if len(r.Devices) == 0 {
			t.Errorf("exit 0 with no devices: %s", out)
		}
		t.Skip("a GPU is here")
	}
	if code != exitNoGPU || r.Devices == nil || len(r.Devices) != 0 || r.Error == "" || !strings.Contains(errs, r.Error) {
		t.Errorf("exit %d, %s, stderr %q", code, out, errs)
	}
}

// TestSpecNumbers: a spec's non-integer or out-of-range number is refused
// with the file, the field and the range, exit code 3.
func TestSpecNumbers(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "k4.txt", k4)
	spec := writeFile(t, dir, "s.yaml", "prefix: s\norientation: degree\nclasses:\n  - select: {key: outdeg, lo: 0, hi: 16.5}\n    iterator: edge\n    intersection: merge\n  - select: {key: outdeg, lo: 16}\n    iterator: edge\n    intersection: merge\n")
	code, out, errs := tcgen(t, "--no-cache", "count", in, "--spec", spec)
	if code != exitBadInput || out != "" || errs != "tcgen: "+spec+": line 4: classes[0].select.hi: 16.5 is not an integer; allowed: integers 1 and up\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

// TestDroppedRecorded: count and stats of a .tcsr report what cleaning
// the graph command and convert reported, oriented or not; a file that
// does not record it says so.
func TestDroppedRecorded(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "r.tcsr")
	code, _, errs := tcgen(t, "graph", "rmat", "--scale", "9", "-o", src)
	var loops, dups uint64
	if _, err := fmt.Sscanf(errs[strings.Index(errs, "(dropped "):], "(dropped %d self loops, %d duplicate edges", &loops, &dups); code != exitOK || err != nil || loops == 0 || dups == 0 {
		t.Fatalf("graph rmat: exit %d, %v: %s", code, err, errs)
	}
	files := []string{src}
	for i, args := range [][]string{{}, {"--orient", "degree", "--relabel"}, {"--orient", "id"}} {
		dst := filepath.Join(dir, fmt.Sprintf("c%d.tcsr", i))
		if code, _, errs := tcgen(t, append([]string{"-q", "--no-cache", "convert", src, "-o", dst}, args...)...); code != exitOK {
			t.Fatalf("convert %v: %s", args, errs)
		}
		files = append(files, dst)
	}
	for _, f := range files {
		r, _ := countJSON(t, f, "--backend", "cpu")
		if r.SelfLoops != loops || r.Duplicates != dups || r.DroppedUnknown {
			t.Errorf("%s: dropped %d loops, %d duplicates (not recorded: %v); graph rmat dropped %d, %d", filepath.Base(f), r.SelfLoops, r.Duplicates, r.DroppedUnknown, loops, dups)
		}
	}
	// A file written without its source's report, as older tcgen did.
	g, _, err := graph.Generate(graph.DefaultRMAT(9))
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old.tcsr")
	if err := graph.WriteCSR(old, g, graph.CacheMeta{}); err != nil {
		t.Fatal(err)
	}
	if r, _ := countJSON(t, old, "--backend", "cpu"); !r.DroppedUnknown {
		t.Errorf("old file: %+v", r)
	}
	for _, args := range [][]string{{"count", old, "--backend", "cpu"}, {"stats", old}} {
		_, out, _ := tcgen(t, append([]string{"-q", "--no-cache"}, args...)...)
		if !strings.Contains(out, "not recorded (the file does not say what cleaning its source dropped)") {
			t.Errorf("%s of an old file:\n%s", args[0], out)
		}
	}
}

// tcgenIn runs the binary in dir.
func tcgenIn(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	cmd := exec.Command(tcgenBin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr, cmd.Env = dir, &out, &errb, tcgenEnv
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return exitOK, out.String(), errb.String()
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("tcgen %q: %v", args, err)
	return 0, "", ""
}

// TestExamplesByName: from a directory without examples/, the built-in
// specs, spaces and sweeps are found by name (with or without .yaml, or
// as their path in a clone); a file of the name given wins; an unknown
// name lists the built-in ones.
func TestExamplesByName(t *testing.T) {
	dir := t.TempDir()
	cudaFile := func(spec string) string {
		t.Helper()
		out := t.TempDir()
		code, stdout, errs := tcgenIn(t, dir, "cuda", "--spec", spec, "-o", out)
		if code != exitOK {
			t.Fatalf("cuda --spec %s: exit %d: %s", spec, code, errs)
		}
		return filepath.Base(strings.Fields(stdout)[0])
	}
	builtin := cudaFile("two-class")
	if !strings.HasPrefix(builtin, "twoclass_") {
		t.Fatalf("--spec two-class generated %s", builtin)
	}
	for _, name := range []string{"two-class.yaml", "examples/two-class.yaml"} {
		if got := cudaFile(name); got != builtin {
			t.Errorf("--spec %s generated %s, want %s", name, got, builtin)
		}
	}
	// A file in the directory wins over the example of its name.
	mine := strings.Replace(readRepoFile(t, "examples/two-class.yaml"), "prefix: twoclass", "prefix: mine", 1)
	writeFile(t, dir, "two-class.yaml", mine)
	if got := cudaFile("two-class.yaml"); !strings.HasPrefix(got, "mine_") {
		t.Errorf("the file two-class.yaml lost to the built-in example: %s", got)
	}
	code, _, errs := tcgenIn(t, dir, "cuda", "--spec", "nope", "-o", t.TempDir())
	specs := strings.Join(examples.Names(examples.Plans), ", ")
	if code != exitBadInput || !strings.Contains(errs, "nope: no such file or directory (built-in specs: "+specs+")") || !strings.Contains(specs, "two-class") {
		t.Errorf("unknown spec: exit %d, %q", code, errs)
	}
	if _, out, _ := tcgenIn(t, dir, "list"); !strings.Contains(out, "specs: "+specs+"\nspaces: default, large, model, one_launch, small\n") {
		t.Errorf("list does not name the built-in examples:\n%s", out)
	}
	// Spaces and sweeps by name.
	root, err := gputest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(root, "autotune", "testdata", "record-nvidia-h200.jsonl.gz")
	if code, out, errs := tcgenIn(t, dir, "-q", "tune", "rmat18", "--replay", rec, "--space", "one_launch", "--evals", "3", "--json"); code != exitOK || !strings.Contains(out, `"space": "one_launch"`) {
		t.Errorf("tune --space one_launch: exit %d: %s %s", code, out, errs)
	}
	if code, out, errs := tcgenIn(t, dir, "-q", "sweep", "small", "--dry-run", "--datasets", dir); code != exitOK || !strings.HasPrefix(out, "sweep") {
		t.Errorf("sweep small --dry-run: exit %d: %s %s", code, out, errs)
	}
}

func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	root, err := gputest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
