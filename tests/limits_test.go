//go:build unix

package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateTooLarge: generators at absurd sizes are refused before
// they allocate, with one line giving the estimate and the limit and exit
// code 6; none grows until killed or dies with a Go stack dump.
func TestGenerateTooLarge(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "g.tcsr")
	for _, args := range [][]string{
		{"graph", "complete", "100000000"},
		{"graph", "bipartite", "100000", "100000"},
		{"graph", "rmat", "--scale", "32"},
		{"graph", "er", "--vertices", "4000000000", "--edges", "8000000000000"},
		{"graph", "grid", "--rows", "60000", "--cols", "60000", "--diagonals"},
		{"graph", "wheel", "4000000000"},
		{"graph", "ba", "--vertices", "4000000000", "--m", "1000"},
		{"graph", "ws", "--vertices", "4000000000", "--k", "1000", "--p", "0.1"},
		{"graph", "rgg", "--vertices", "4000000000", "--degree", "100"},
		{"graph", "chung-lu", "--vertices", "4000000000", "--degree", "1000"},
		{"graph", "sbm", "--vertices", "4000000000", "--blocks", "10", "--degree-in", "100", "--degree-out", "10"},
		{"graph", "road", "--rows", "60000", "--cols", "60000", "--links", "1000000000"},
	} {
		// 8G: the same answer on any machine.
		code, _, errs := tcgen(t, append([]string{"--memory-limit", "8G"}, append(args, "-o", out)...)...)
		if code != exitTooLarge {
			t.Errorf("%s: exit %d, want %d", strings.Join(args, " "), code, exitTooLarge)
		}
		oneLine(t, strings.Join(args, " "), errs, "of memory, more than the limit of 8.00 GiB (--memory-limit)")
	}
	// Without a flag the limit is the machine's: no machine has 107 PiB.
	code, _, errs := tcgen(t, "graph", "complete", "100000000", "-o", out)
	if code != exitTooLarge {
		t.Errorf("default limit: exit %d, want %d", code, exitTooLarge)
	}
	oneLine(t, "default limit", errs, "generating Complete (n 100000000): needs about 120 PiB of memory, more than the limit of ")
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("an output was written")
	}
	// Parameters no graph can have are a usage error, whatever their size.
	for _, c := range []struct{ args, want string }{
		{"graph complete 5000000000", "complete: 5000000000 vertices exceed the 4294967295 a graph can have"},
		{"graph ba --vertices 5000000000 --m 1000", "barabasi-albert: "},
	} {
		code, _, errs := tcgen(t, append([]string{"--memory-limit", "8G"}, append(strings.Fields(c.args), "-o", out)...)...)
		if code != exitUsage || !strings.HasPrefix(errs, "tcgen: "+c.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.args, code, errs, exitUsage, c.want)
		}
	}
	if code, _, errs := tcgen(t, "--memory-limit", "8Q", "graph", "complete", "5", "-o", out); code != exitUsage {
		t.Errorf("--memory-limit 8Q: exit %d: %s", code, errs)
	}
}

// TestGenerateUnderRlimit: under ulimit -v, what the address space cannot
// hold is refused with exit code 6 (the Go runtime used to die of it with
// a stack dump, exit code 2), and what it can hold is generated.
func TestGenerateUnderRlimit(t *testing.T) {
	dir := t.TempDir()
	run := func(args string) (int, string) {
		// 3 GiB of address space: the Go runtime reserves about 1.7 at start.
		cmd := exec.Command("sh", "-c", "ulimit -v 3145728 && exec "+tcgenBin+" "+args)
		var errb bytes.Buffer
		cmd.Stderr, cmd.Env = &errb, tcgenEnv
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), errb.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, errb.String()
	}
	code, errs := run("-q graph rmat --scale 25 -o " + filepath.Join(dir, "big.tcsr"))
	if code != exitTooLarge {
		t.Errorf("rmat 25 under ulimit -v: exit %d, want %d", code, exitTooLarge)
	}
	oneLine(t, "rmat 25 under ulimit -v", errs, "the address-space rlimit (ulimit -v)")
	if code, errs := run("-q graph rmat --scale 12 -o " + filepath.Join(dir, "small.tcsr")); code != exitOK {
		t.Errorf("rmat 12 under ulimit -v: exit %d: %s", code, errs)
	}
}

// TestReadTooLarge: a file whose size says it will not fit is refused
// before it is parsed, in every format; standard input once the records
// read so far do not fit.
func TestReadTooLarge(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"r.txt", "r.mtx", "r.bin32"} {
		p := filepath.Join(dir, name)
		// 1M records: about 64 MiB to read and build.
		if code, _, errs := tcgen(t, "-q", "graph", "rmat", "--scale", "16", "-o", p); code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		code, _, errs := tcgen(t, "--no-cache", "--memory-limit", "48M", "count", p, "--backend", "cpu")
		if code != exitTooLarge {
			t.Errorf("%s: exit %d, want %d", name, code, exitTooLarge)
		}
		oneLine(t, name, errs, p+": needs about ")
	}
	f, err := os.Open(filepath.Join(dir, "r.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var errb bytes.Buffer
	cmd := exec.Command(tcgenBin, "--no-cache", "--memory-limit", "48M", "count", "-", "--backend", "cpu")
	cmd.Stdin, cmd.Stderr, cmd.Env = struct{ *os.File }{f}, &errb, tcgenEnv // a pipe, not the file
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitTooLarge {
		t.Errorf("standard input: %v, want exit %d", err, exitTooLarge)
	}
	oneLine(t, "standard input", errb.String(), "edge records read so far already need about")
}
