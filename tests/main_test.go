// Package tests holds tcgen's end-to-end tests: the tcgen binary run on
// files in and out (cli_test.go, tune_test.go), the shared datasets, and the
// GPU integration behind the GPU check (gpu_test.go). The helpers the tests
// of every package share are in tests/gputest.
//
// TestMain builds the binary once with go (go build ./cmd/tcgen), or takes a
// prebuilt one from $TCGEN_BIN (a path relative to the repository root, or
// absolute): the GPU machine has no Go, and scripts/gpu-check.sh points
// TCGEN_BIN at the bundle's .gpu/bin/tcgen.
package tests

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tcgen/tcgen/tests/gputest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The exit codes tcgen documents (tcgen --help, cmd/tcgen/exit.go);
// TestExitCodesHelp checks them against the help.
const (
	exitOK          = 0
	exitInternal    = 1
	exitUsage       = 2
	exitBadInput    = 3
	exitMismatch    = 4
	exitNoGPU       = 5
	exitTooLarge    = 6
	exitCompile     = 7
	exitNoMPI       = 8
	exitInterrupted = 130
)

var (
	// tcgenBin is the binary under test.
	tcgenBin string
	// tcgenEnv is its environment: this process's, with the user cache and
	// data directories in a temporary directory, so that a command given
	// neither --cache-dir nor --store touches no cache or tuning store of
	// the user's.
	tcgenEnv []string
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "tcgen-tests-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tests:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	if tcgenBin, err = binary(tmp); err != nil {
		fmt.Fprintln(os.Stderr, "tests:", err)
		return 1
	}
	tcgenEnv = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(tmp, "cache"), "XDG_DATA_HOME="+filepath.Join(tmp, "data"))
	return m.Run()
}

// binary is $TCGEN_BIN, or tcgen built into dir by the go that runs the
// tests (GOROOT's, else the one on PATH).
func binary(dir string) (string, error) {
	root, err := gputest.RepoRoot()
	if p := os.Getenv("TCGEN_BIN"); p != "" {
		if !filepath.IsAbs(p) {
			if err != nil {
				return "", fmt.Errorf("TCGEN_BIN=%s relative to the repository root: %w", p, err)
			}
			p = filepath.Join(root, p)
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("TCGEN_BIN: %w", err)
		}
		return p, nil
	}
	if err != nil {
		return "", err
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			return "", fmt.Errorf("no go to build tcgen with (set TCGEN_BIN to a built tcgen): %w", err)
		}
	}
	bin := filepath.Join(dir, "tcgen")
	cmd := exec.Command(goBin, "build", "-o", bin, "./cmd/tcgen")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/tcgen: %v\n%s", err, out)
	}
	return bin, nil
}

// tcgen runs the binary and returns its exit code and output.
func tcgen(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(tcgenBin, args...)
	cmd.Stdout, cmd.Stderr, cmd.Env = &out, &errb, tcgenEnv
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return exitOK, out.String(), errb.String()
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("tcgen %q: %v\nstderr: %s", args, err, errb.String())
	return 0, "", ""
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// countResult is the part of count --json the tests read (cmd/tcgen
// countResult; its JSON field names are stable).
type countResult struct {
	Graph      string  `json:"graph"`
	Backend    string  `json:"backend"`
	Device     string  `json:"device"`
	Plan       string  `json:"plan"`
	PlanSource string  `json:"plan_source"`
	Vertices   uint64  `json:"vertices"`
	Edges      uint64  `json:"edges"`
	DegreeMax  uint64  `json:"degree_max"`
	SelfLoops  uint64  `json:"self_loops_dropped"`
	Duplicates uint64  `json:"duplicates_dropped"`
	Triangles  uint64  `json:"triangles"`
	Reference  *uint64 `json:"reference"`
	Checked    string  `json:"checked"`
	FromCache  bool    `json:"from_cache"`
}

// fuzzSummary is the part of fuzz --json the tests read.
type fuzzSummary struct {
	Device    string                    `json:"device"`
	Plans     int                       `json:"plans"`
	Refused   int                       `json:"refused"`
	Compiles  int                       `json:"compiles"`
	Errors    int                       `json:"errors"`
	Histogram map[string]map[string]int `json:"histogram"`
}

// tuneOutcome is the part of tune --json the tests read.
type tuneOutcome struct {
	Points   int      `json:"points"`
	Evals    int      `json:"evaluations"`
	Best     string   `json:"best_plan"`
	BestMs   float64  `json:"best_ms"`
	CILo     float64  `json:"ci_lo_ms"`
	CIHi     float64  `json:"ci_hi_ms"`
	Baseline []string `json:"baseline"`
	Exhaust  *struct {
		Ratio float64 `json:"ratio"`
	} `json:"replay_truth"`
	Final *struct {
		Skipped string `json:"skipped"`
	} `json:"final"`
}
