//go:build unix

package tests

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// oneLine checks that stderr is one "tcgen: " line holding want, with no
// temporary file name and no Go stack in it.
func oneLine(t *testing.T, what, stderr, want string) {
	t.Helper()
	if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "tcgen: ") || !strings.Contains(stderr, want) ||
		strings.Contains(stderr, ".tmp-") || strings.Contains(stderr, "goroutine ") {
		t.Errorf("%s: stderr %q, want one line with %q", what, stderr, want)
	}
}

// tempFiles lists the temporary files the writers leave in dir, if any.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// TestOutputRefusesNonRegular: convert, graph, count --per-vertex and cuda
// never replace a device, FIFO, directory or symbolic link (exit 3, one
// line naming the path); /dev/full stays a device even for root.
func TestOutputRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "k4.txt", k4)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	target := writeFile(t, dir, "target.txt", "old\n")
	link := filepath.Join(dir, "link")
	os.Symlink("target.txt", link)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	outs := map[string]string{fifo: "is a FIFO", link: "is a symbolic link", sub: "is a directory",
		filepath.Join(dir, "no", "x.tcsr"): "directory " + filepath.Join(dir, "no") + " does not exist"}
	if st, err := os.Stat("/dev/full"); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		outs["/dev/full"] = "is a character device"
	}
	for out, msg := range outs {
		for _, args := range [][]string{
			{"convert", in, "-o", out},
			{"graph", "complete", "5", "-o", out},
			{"count", in, "--backend", "cpu", "--per-vertex", out},
		} {
			code, _, errs := tcgen(t, append([]string{"-q", "--no-cache"}, args...)...)
			if code != exitBadInput {
				t.Errorf("%s: exit %d, want %d", strings.Join(args, " "), code, exitBadInput)
			}
			oneLine(t, strings.Join(args, " "), errs, out+": "+msg)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Error("the FIFO was replaced")
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	if b, _ := os.ReadFile(target); string(b) != "old\n" {
		t.Errorf("the link's target holds %q", b)
	}
	if st, err := os.Stat("/dev/full"); err == nil && st.Mode()&os.ModeCharDevice == 0 {
		t.Fatal("/dev/full is no longer a device")
	}
	// cuda's -o is a directory: a file there is refused.
	code, _, errs := tcgen(t, "cuda", "--preset", "polak", "-o", target)
	if code != exitBadInput {
		t.Errorf("cuda -o FILE: exit %d, want %d", code, exitBadInput)
	}
	oneLine(t, "cuda -o FILE", errs, target+": is a file, not a directory")
	if found := tempFiles(t, dir); len(found) > 0 {
		t.Errorf("temporary files left: %v", found)
	}
}

// TestOutputForceFollowsLink: --force writes a symbolic link's target and
// keeps the link.
func TestOutputForceFollowsLink(t *testing.T) {
	dir := t.TempDir()
	target := writeFile(t, dir, "target.txt", "old\n")
	link := filepath.Join(dir, "link")
	os.Symlink("target.txt", link)
	if code, _, errs := tcgen(t, "-q", "graph", "complete", "4", "-o", link, "--force"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(target); string(b) != "0\t1\n0\t2\n0\t3\n1\t2\n1\t3\n2\t3\n" {
		t.Errorf("target holds %q", b)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
}

// TestOutputStdout: -o - writes to standard output (a text edge list by
// default, any format with --output-format, Ligra's and SciPy's included,
// when it is not a terminal) and creates no file named "-".
func TestOutputStdout(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "k4.txt", k4)
	for _, c := range []struct {
		format, file string
	}{{"auto", "k4.out.txt"}, {"mtx", "k4.mtx"}, {"csr", "k4.tcsr"}, {"bin64", "k4.bin64"}, {"adj", "k4.adj"}, {"npz", "k4.npz"}} {
		code, out, errs := tcgenIn(t, dir, "-q", "--no-cache", "convert", in, "-o", "-", "--output-format", c.format)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.format, code, errs)
		}
		file := filepath.Join(dir, c.file)
		if code, _, errs := tcgen(t, "-q", "--no-cache", "convert", in, "-o", file); code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.file, code, errs)
		}
		if want, _ := os.ReadFile(file); out != string(want) {
			t.Errorf("%s: standard output differs from %s (%d bytes, want %d)", c.format, c.file, len(out), len(want))
		}
	}
	code, out, _ := tcgenIn(t, dir, "-q", "graph", "wheel", "4", "-o", "-")
	if code != exitOK || strings.Count(out, "\n") != 8 {
		t.Errorf("graph -o -: exit %d, %q", code, out)
	}
	// The newer generators write through the same path, in any format.
	code, out, _ = tcgenIn(t, dir, "-q", "graph", "ba", "--vertices", "5", "--m", "1", "-o", "-", "--output-format", "adj")
	if code != exitOK || !strings.HasPrefix(out, "AdjacencyGraph\n5\n8\n") {
		t.Errorf("graph ba -o - --output-format adj: exit %d, %q", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); !os.IsNotExist(err) {
		t.Error(`a file named "-" was made`)
	}
	// Where several files or the count share standard output: refused.
	if code, _, errs := tcgen(t, "cuda", "--preset", "polak", "-o", "-"); code != exitUsage {
		t.Errorf("cuda -o -: exit %d: %s", code, errs)
	}
	if code, _, errs := tcgen(t, "--no-cache", "count", in, "--backend", "cpu", "--per-vertex", "-"); code != exitUsage {
		t.Errorf("count --per-vertex -: exit %d: %s", code, errs)
	}
}

// TestOutputErrorNamesPath: a directory the user cannot write is reported
// against the output's path, exit 3, without the temporary name.
func TestOutputErrorNamesPath(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o500)
	out := filepath.Join(dir, "out.tcsr")
	code, _, errs := tcgen(t, "-q", "graph", "complete", "5", "-o", out)
	if code != exitBadInput {
		t.Errorf("exit %d, want %d", code, exitBadInput)
	}
	oneLine(t, "read-only dir", errs, out+": cannot create a file in "+dir+": permission denied")
}

// TestOutputsTogether: a command's outputs appear together or not at all.
// Under a file-size limit (ulimit -f) count's small per-vertex file fits
// and its per-edge file does not: neither is left, nor a temporary file;
// cuda -o into a new directory whose first file does not fit leaves no
// directory.
func TestOutputsTogether(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "r12.txt")
	if code, _, errs := tcgen(t, "-q", "graph", "rmat", "--scale", "12", "-o", g); code != exitOK {
		t.Fatalf("graph rmat: exit %d: %s", code, errs)
	}
	limited := func(blocks string, args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command("sh", append([]string{"-c", `ulimit -f "$1" && shift && exec "$@"`, "sh", blocks, tcgenBin}, args...)...)
		var errb strings.Builder
		cmd.Stderr = &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), errb.String()
	}
	pv, pe := filepath.Join(dir, "pv.tsv"), filepath.Join(dir, "pe.tsv")
	code, errs := limited("200", "--no-cache", "-q", "count", g, "--backend", "cpu", "--per-vertex", pv, "--per-edge", pe)
	if code != exitBadInput {
		t.Errorf("count under ulimit -f: exit %d, want %d", code, exitBadInput)
	}
	oneLine(t, "count under ulimit -f", errs, pe+": writing: file too large")
	for _, p := range []string{pv, pe} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is there after the failed count: %v", p, err)
		}
	}
	out := filepath.Join(dir, "new", "cuda")
	code, errs = limited("1", "cuda", "--preset", "polak", "-o", out)
	if code != exitBadInput {
		t.Errorf("cuda under ulimit -f: exit %d, want %d", code, exitBadInput)
	}
	oneLine(t, "cuda under ulimit -f", errs, "writing: file too large")
	if _, err := os.Stat(filepath.Join(dir, "new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cuda left the directories it made: %v", err)
	}
	if found := tempFiles(t, dir); len(found) > 0 {
		t.Errorf("temporary files left: %v", found)
	}
}
