//go:build unix

package tests

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopLimit is the promise: Ctrl-C or SIGTERM ends tcgen within a second
// in every phase.
const stopLimit = time.Second

// interrupt starts tcgen with args, sends sig after delay and returns the
// exit code, how long the process took to end after the signal, and its
// stderr.
func interrupt(t *testing.T, delay time.Duration, sig syscall.Signal, args ...string) (int, time.Duration, string) {
	t.Helper()
	var errb bytes.Buffer
	cmd := exec.Command(tcgenBin, args...)
	cmd.Stderr, cmd.Env = &errb, tcgenEnv
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(delay)
	sent := time.Now()
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	took := time.Since(sent)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return exitOK, took, errb.String()
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode(), took, errb.String()
	}
	t.Fatalf("tcgen %q: %v\nstderr: %s", args, err, errb.String())
	return 0, 0, ""
}

// checkStopped: exit code 130 within stopLimit, one line saying so, or a
// run that had finished before the signal came (exit 0, done may accept).
func checkStopped(t *testing.T, what string, code int, took time.Duration, stderr string) {
	t.Helper()
	switch {
	case code == exitOK && took < 50*time.Millisecond:
		// Finished before the signal.
	case code != exitInterrupted:
		t.Errorf("%s: exit %d, want %d; stderr %q", what, code, exitInterrupted, stderr)
	case took > stopLimit:
		t.Errorf("%s: stopped %v after the signal, want within %v", what, took, stopLimit)
	case !strings.HasSuffix(stderr, "tcgen: interrupted\n") || strings.Contains(stderr, "goroutine "):
		t.Errorf("%s: stderr %q", what, stderr)
	}
}

// TestInterruptDevZero: an endless input stops at Ctrl-C and at SIGTERM,
// with the cache (its hashing) and without (its parsing).
func TestInterruptDevZero(t *testing.T) {
	cache := t.TempDir()
	for _, c := range []struct {
		name  string
		cache []string
	}{{"cache", []string{"--cache-dir", cache}}, {"no cache", []string{"--no-cache"}}} {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			args := append(append([]string{}, c.cache...), "count", "/dev/zero", "--backend", "cpu")
			code, took, errs := interrupt(t, 300*time.Millisecond, sig, args...)
			checkStopped(t, c.name+", "+sig.String(), code, took, errs)
		}
	}
	if found := tempFiles(t, cache); len(found) > 0 {
		t.Errorf("temporary files left: %v", found)
	}
}

// TestInterruptPhases: convert of a large text file, interrupted all
// along its run (parsing, cleaning, the cache write, the output write),
// stops within the second, and neither the output, a partial output nor
// a temporary file is left; so does a generator.
func TestInterruptPhases(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a 100 MB graph")
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	if code, _, errs := tcgen(t, "-q", "graph", "rmat", "--scale", "19", "-o", big); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	out := filepath.Join(dir, "out", "big.tcsr")
	os.Mkdir(filepath.Dir(out), 0o755)
	cache := filepath.Join(dir, "cache")
	args := []string{"-q", "--cache-dir", cache, "convert", big, "-o", out}
	start := time.Now()
	if code, _, errs := tcgen(t, args...); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	full := time.Since(start)
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	size := st.Size()
	os.RemoveAll(cache)
	os.Remove(out)
	for i, frac := range []float64{0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95} {
		sig := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}[i%2]
		delay := time.Duration(frac * float64(full))
		code, took, errs := interrupt(t, delay, sig, args...)
		what := "convert, " + sig.String() + " at " + delay.Round(time.Millisecond).String()
		t.Logf("%s: exit %d after %v", what, code, took)
		checkStopped(t, what, code, took, errs)
		// A signal just after the rename finds the output whole.
		if st, err := os.Stat(out); err == nil && st.Size() != size {
			t.Errorf("%s: a partial output of %d bytes (whole: %d)", what, st.Size(), size)
		}
		if found := tempFiles(t, dir); len(found) > 0 {
			t.Errorf("%s: temporary files left: %v", what, found)
		}
		os.RemoveAll(cache)
		os.Remove(out)
	}
	for _, delay := range []time.Duration{200 * time.Millisecond, 700 * time.Millisecond} {
		code, took, errs := interrupt(t, delay, syscall.SIGINT, "-q", "graph", "rmat", "--scale", "22", "-o", out)
		checkStopped(t, "graph rmat at "+delay.String(), code, took, errs)
		if found := tempFiles(t, dir); len(found) > 0 {
			t.Errorf("graph rmat: temporary files left: %v", found)
		}
	}
}

// TestStaleTempsRemoved: the temporary files a killed writer left in the
// caches go on the next run (their pid is gone, or they are an hour old);
// a live writer's stay.
func TestStaleTempsRemoved(t *testing.T) {
	cache := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	deadPid, live := strconv.Itoa(dead.Process.Pid), strconv.Itoa(os.Getpid())
	graphs, kernels := filepath.Join(cache, "graphs"), filepath.Join(cache, "kernels")
	os.MkdirAll(graphs, 0o755)
	os.MkdirAll(kernels, 0o755)
	stale := []string{
		filepath.Join(graphs, ".0123-text.tcsr.tmp-"+deadPid+"-1206100532"),
		filepath.Join(kernels, ".tmp-"+deadPid+"-55.kernel"),
		filepath.Join(graphs, ".4567-text.tcsr.tmp-1206100532"), // before pids were in the name, old
	}
	keep := filepath.Join(graphs, ".89ab-text.tcsr.tmp-"+live+"-1")
	for _, p := range append(stale, keep) {
		if err := os.WriteFile(p, make([]byte, 1<<20), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(stale[2], old, old)
	in := writeFile(t, t.TempDir(), "k4.txt", k4)
	if code, _, errs := tcgen(t, "-q", "--cache-dir", cache, "count", in, "--backend", "cpu"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, p := range stale {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there", filepath.Base(p))
		}
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("a live writer's file went: %v", err)
	}
}
