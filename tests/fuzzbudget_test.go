package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tcgen/tcgen/tests/gputest"
)

// fakeGo stands in for go in scripts/fuzz.sh: one package with the fuzz
// targets FuzzPass, FuzzRace (Go 1.26's bare deadline error) and
// FuzzCrash (a finding); it logs the fuzzing runs' arguments.
const fakeGo = `#!/bin/sh
case "$1 $2" in
"list ./...") echo example.com/p ;;
"test -list") printf 'FuzzPass\nFuzzRace\nFuzzCrash\nok example.com/p 0.1s\n' ;;
*)
  echo "$@" >> "$FAKE_LOG"
  case "$*" in
  *FuzzPass*) echo "fuzz: elapsed: 20s, execs: 100 (5/sec)"; echo PASS ;;
  *FuzzRace*) printf 'fuzz: elapsed: 20s, execs: 100 (5/sec)\n--- FAIL: FuzzRace (20.01s)\n    context deadline exceeded\nFAIL\n'; exit 1 ;;
  *FuzzCrash*) printf -- '--- FAIL: FuzzCrash (3.00s)\n    x_test.go:9: boom\n    Failing input written to testdata/fuzz/FuzzCrash/abc\nFAIL\n'; exit 1 ;;
  esac ;;
esac
`

// TestFuzzScript: make fuzz's script gives each target a duration and a
// test timeout, does not count the coordinator's bare deadline error,
// and fails on a finding after running every target.
func TestFuzzScript(t *testing.T) {
	root, err := gputest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fake := filepath.Join(dir, "go")
	if err := os.WriteFile(fake, []byte(fakeGo), 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "log")
	cmd := exec.Command(filepath.Join(root, "scripts", "fuzz.sh"))
	cmd.Env = append(os.Environ(), "GO="+fake, "FAKE_LOG="+log, "FUZZTIME=20s", "FUZZTIMEOUT=3m")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 (a finding):\n%s", err, out)
	}
	o := string(out)
	if !strings.Contains(o, "golang/go#75804") || !strings.Contains(o, "Failing input written to") ||
		!strings.Contains(o, "fuzz: FAILED example.com/p FuzzCrash") || strings.Contains(o, "FAILED example.com/p FuzzRace") {
		t.Fatalf("output:\n%s", o)
	}
	runs, _ := os.ReadFile(log)
	for _, target := range []string{"FuzzPass", "FuzzRace", "FuzzCrash"} {
		if !strings.Contains(string(runs), "-fuzz ^"+target+"$ -fuzztime 20s -fuzzminimizetime 5s -timeout 3m example.com/p") {
			t.Fatalf("%s not run with its budget:\n%s", target, runs)
		}
	}
}

// TestFuzzBudget: CI's fuzzing (make fuzz) is bounded in time: each target
// runs for a duration, not a count of executions, well under go test's
// 10-minute default timeout, and under a test timeout of its own.
func TestFuzzBudget(t *testing.T) {
	root, err := gputest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	get := func(name string) time.Duration {
		m := regexp.MustCompile(`(?m)^` + name + `\s*\?=\s*(\S+)`).FindSubmatch(mk)
		if m == nil {
			t.Fatalf("Makefile sets no %s", name)
		}
		d, err := time.ParseDuration(string(m[1]))
		if err != nil {
			t.Fatalf("%s = %s is not a duration: %v", name, m[1], err)
		}
		return d
	}
	fuzz, timeout := get("FUZZTIME"), get("FUZZTIMEOUT")
	if fuzz > time.Minute || timeout < 2*fuzz || timeout >= 10*time.Minute {
		t.Fatalf("FUZZTIME %v, FUZZTIMEOUT %v: want at most a minute a target, under a timeout of more than twice that and under 10m", fuzz, timeout)
	}
}
