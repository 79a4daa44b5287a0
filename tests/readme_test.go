package tests

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/tests/gputest"
)

// needsGPU matches the documented commands that need a GPU or NVRTC, or a
// tuning store filled on one; TestReadmeCommands runs every other one.
var needsGPU = regexp.MustCompile(`^tcgen (devices|bench|fuzz)\b|--backend gpu|^tcgen tune graph\.txt|^tcgen sweep .* --out |^tcgen store model`)

// TestReadmeCommands runs the tcgen commands of README.md and docs/*.md that
// need no GPU, as written, in order, in a directory laid out as a clone
// (the repository's directories the commands name) with the user's graphs
// the README names (graph.txt, graph.mtx, ...): each must exit 0.
func TestReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the README's commands generate graphs of up to 16 M edges")
	}
	root, err := gputest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	ran := 0
	for _, doc := range append([]string{filepath.Join(root, "README.md")}, docs...) {
		cmds := docCommands(t, doc)
		dir := userDir(t, root, cmds)
		for _, args := range cmds {
			line := strings.Join(args, " ")
			if needsGPU.MatchString(line) {
				continue
			}
			cmd := exec.Command(tcgenBin, append([]string{"-q"}, args[1:]...)...)
			cmd.Dir, cmd.Env = dir, tcgenEnv
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: %s: %v\n%s", filepath.Base(doc), line, err, out)
			}
			ran++
		}
	}
	if ran < 15 {
		t.Errorf("ran %d commands; the README shows more", ran)
	}
}

// docCommands are the tcgen commands of a Markdown file's code blocks
// (fenced sh blocks and indented blocks), comments, redirections and pipes cut,
// continued lines joined, "bin/tcgen" read as "tcgen".
func docCommands(t *testing.T, path string) [][]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds [][]string
	fenced, cont := false, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced && !strings.HasPrefix(line, "    ") && cont == "" {
			continue
		}
		line = strings.TrimSpace(line)
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		line = cont + strings.TrimSpace(line)
		if l, ok := strings.CutSuffix(line, `\`); ok {
			cont = l
			continue
		}
		cont = ""
		line, _, _ = strings.Cut(line, " > ") // the output, not where it goes
		line, _, _ = strings.Cut(line, " | ") // nor the program it is piped to
		line = strings.TrimPrefix(line, "bin/")
		if strings.HasPrefix(line, "tcgen ") {
			cmds = append(cmds, strings.Fields(line))
		}
	}
	return cmds
}

// userDir is a directory with the graphs a user would count (the
// README's graph.txt, graph.txt.gz, graph.mtx, graph.csv) and links to the
// repository's directories that the commands name, as in a clone.
func userDir(t *testing.T, root string, cmds [][]string) string {
	dir := t.TempDir()
	for _, name := range []string{"graph.txt", "graph.txt.gz", "graph.mtx", "graph.csv"} {
		if code, _, errs := tcgen(t, "-q", "graph", "rmat", "--scale", "8", "-o", filepath.Join(dir, name)); code != exitOK {
			t.Fatalf("graph rmat -o %s: %s", name, errs)
		}
	}
	for _, args := range cmds {
		for _, a := range args {
			top, _, ok := strings.Cut(a, "/")
			if !ok || top == "" || top == "." || top == ".." {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, top)); err != nil {
				continue // an output directory (out/)
			}
			if _, err := os.Lstat(filepath.Join(dir, top)); err == nil {
				continue
			}
			if err := os.Symlink(filepath.Join(root, top), filepath.Join(dir, top)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}
