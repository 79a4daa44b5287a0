package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// runCLI runs tcgen's run in process.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestJoinNegativeValues: a negative number after a flag that takes a
// value becomes its value; after a bool flag, after "--" or alone it is
// left to kong.
func TestJoinNegativeValues(t *testing.T) {
	var cli CLI
	parser := mustParser(t, &cli)
	for _, c := range []struct{ in, want []string }{
		{[]string{"count", "g", "--repeat", "-1"}, []string{"count", "g", "--repeat=-1"}},
		{[]string{"count", "g", "--warmup", "-2.5", "--json"}, []string{"count", "g", "--warmup=-2.5", "--json"}},
		{[]string{"count", "g", "--json", "-1"}, []string{"count", "g", "--json", "-1"}},
		{[]string{"graph", "rmat", "-o", "-1"}, []string{"graph", "rmat", "-o=-1"}},
		{[]string{"count", "--", "--repeat", "-1"}, []string{"count", "--", "--repeat", "-1"}},
		{[]string{"count", "g", "--repeat", "-x"}, []string{"count", "g", "--repeat", "-x"}},
	} {
		if got := joinNegativeValues(parser.Model, c.in); !slices.Equal(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

// TestUsageErrors: a usage error says what is wrong and where the help is,
// on stderr, with exit code 2 and nothing on stdout.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"count", "g.txt", "--repeat", "-1"}, "tcgen: count: --repeat must be at least 1 and --warmup at least 0\nRun \"tcgen help count\" for usage.\n"},
		{[]string{"count", "g.txt", "--bogus"}, "tcgen: unknown flag --bogus\nRun \"tcgen help count\" for usage.\n"},
		{[]string{"graph", "complete", "-3", "-o", "x.txt"}, "tcgen: -3: a negative number is not a valid argument here\nRun \"tcgen help graph complete\" for usage.\n"},
		{[]string{"help", "nope"}, "tcgen: help: \"nope\" is not a command; commands: count, stats, convert, graph, cuda, list, devices, store, bench, sweep, tune, report, fuzz, version, help, completion\nRun \"tcgen help\" for usage.\n"},
		{[]string{"help", "graph", "nope"}, "tcgen: help: \"nope\" is not a command of tcgen graph; commands: rmat, er, grid, complete, bipartite, wheel, ba, ws, rgg, chung-lu, sbm, road\nRun \"tcgen help\" for usage.\n"},
		{[]string{"cuda", "--preset", "polak", "-o", t.TempDir(), "--shared-kib", "0"}, "tcgen: cuda: --shared-kib must be at least 1, got 0\nRun \"tcgen help cuda\" for usage.\n"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != exitUsage || out != "" || errs != c.msg {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stderr %q", c.args, code, out, errs, exitUsage, c.msg)
		}
	}
}

// TestHelpCommand: tcgen help CMD prints what CMD --help prints, and every
// command's help lists the exit codes.
func TestHelpCommand(t *testing.T) {
	code, top, _ := runCLI(t, "help")
	if _, want, _ := runCLI(t, "--help"); code != exitOK || top != want {
		t.Fatalf("help: exit %d, output differs from --help", code)
	}
	var cli CLI
	parser := mustParser(t, &cli)
	var paths [][]string
	for _, n := range parser.Model.Leaves(true) {
		paths = append(paths, strings.Fields(strings.TrimPrefix(n.FullPath(), "tcgen ")))
	}
	if len(paths) < 15 {
		t.Fatalf("only %d commands: %v", len(paths), paths)
	}
	for _, p := range paths {
		code, out, errs := runCLI(t, append([]string{"help"}, p...)...)
		_, want, _ := runCLI(t, append(slices.Clone(p), "--help")...)
		if code != exitOK || out != want {
			t.Errorf("help %v: exit %d (%s), output differs from --help:\n%s\n---\n%s", p, code, errs, out, want)
		}
		if !strings.Contains(out, exitCodesHelp) {
			t.Errorf("help %v lacks the exit codes:\n%s", p, out)
		}
	}
}

// TestVersionFlag: --version prints what the version command prints.
func TestVersionFlag(t *testing.T) {
	code, out, _ := runCLI(t, "--version")
	_, want, _ := runCLI(t, "version")
	if code != exitOK || out != want || !strings.HasPrefix(out, "tcgen ") {
		t.Errorf("--version: exit %d, %q; version says %q", code, out, want)
	}
}

func mustParser(t *testing.T, cli *CLI) *kong.Kong {
	t.Helper()
	p, err := newParser(cli, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
