package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/graph"
)

// TestOutputIsInput: an output naming the graph read (through another
// spelling of its path, or a link) is refused before anything is written,
// and the graph is left as it was.
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "g.txt")
	text := "0 1\n1 2\n0 2\n"
	if err := os.WriteFile(in, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"count", in, "--backend", "cpu", "--per-vertex", filepath.Join(dir, ".", "g.txt")},
		{"count", in, "--backend", "cpu", "--per-edge", "pe.tsv", "--clustering", link},
		{"convert", in, "-o", filepath.Join(dir, "..", filepath.Base(dir), "g.txt")},
	} {
		code, _, errOut := runCLI(t, append([]string{"--no-cache", "-q", "--force"}, args...)...)
		if code != exitUsage || !strings.Contains(errOut, "is the input graph") || strings.Count(errOut, "tcgen:") != 1 {
			t.Errorf("%v: exit %d, %q; want %d saying the output is the input", args, code, errOut, exitUsage)
		}
		if got, _ := os.ReadFile(in); string(got) != text {
			t.Errorf("%v: the graph now holds %q", args, got)
		}
	}
}

// TestExportOverStore: store export -o naming the store itself is refused
// and the store is left as it was.
func TestExportOverStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuning.db")
	if code, _, errOut := runCLI(t, "--store", path, "store", "import", "../../autotune/testdata/transfer-nvidia-h100.jsonl.gz"); code != exitOK {
		t.Fatalf("import: exit %d, %s", code, errOut)
	}
	before, _ := os.ReadFile(path)
	code, _, errOut := runCLI(t, "--store", path, "store", "export", "-o", path)
	if code != exitUsage || !strings.Contains(errOut, "-o "+path+" is the tuning store") {
		t.Errorf("export over the store: exit %d, %q", code, errOut)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the store changed")
	}
}

// TestReadStoreMissing: the commands that only read the store refuse a
// --store that is not there, read a default store not made yet as empty,
// and create neither a store nor its directory.
func TestReadStoreMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "typo")
	path := filepath.Join(dir, "tuning.db")
	for _, cmd := range [][]string{{"store", "best"}, {"store", "export"}, {"store", "model"}} {
		code, _, errOut := runCLI(t, append([]string{"--store", path}, cmd...)...)
		if code != exitBadInput || !strings.Contains(errOut, path+": no tuning store there") {
			t.Errorf("%v: exit %d, %q; want %d naming the missing store", cmd, code, errOut, exitBadInput)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reading a missing store made %s: %v", dir, err)
	}
	// The default store before any tune: nothing to list, said once.
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	code, out, errOut := runCLI(t, "store", "best")
	if code != exitOK || strings.Count(errOut, "no tuning store yet at "+filepath.Join(data, "tcgen", "tuning.db")) != 1 || strings.Count(out, "\n") != 1 {
		t.Errorf("store best without a store yet: exit %d, %q %q; want the header and one notice", code, out, errOut)
	}
	if names, _ := os.ReadDir(data); len(names) != 0 {
		t.Errorf("store best made %v", names)
	}
}

// TestOutputDirUndo: outputDir's undo removes the directories it made,
// deepest first, and leaves one that was there.
func TestOutputDirUndo(t *testing.T) {
	root := t.TempDir()
	undo, err := outputDir(filepath.Join(root, "a", "b", "c"))
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(root, "a", "b", "c")); err != nil || !st.IsDir() {
		t.Fatalf("outputDir made no directory: %v", err)
	}
	undo()
	if _, err := os.Stat(filepath.Join(root, "a")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("undo left %s: %v", filepath.Join(root, "a"), err)
	}
	file := filepath.Join(root, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := outputDir(file); err == nil || err.Error() != file+": is a file, not a directory; this command writes several files into a directory" {
		t.Errorf("outputDir of a file: %v", err)
	}
	if undo, err = outputDir(root); err != nil {
		t.Fatal(err)
	}
	undo()
	if _, err := os.Stat(root); err != nil {
		t.Errorf("undo removed a directory it did not make: %v", err)
	}
}

// TestErrorLine: a file that cannot be opened is named as the readers
// name it, without Go's "open" in front; other messages are as they are.
func TestErrorLine(t *testing.T) {
	_, err := os.Open("/nonexistent/x.jsonl")
	if got := errorLine(withCode(exitBadInput, err)); got != "/nonexistent/x.jsonl: no such file or directory" {
		t.Errorf("errorLine = %q", got)
	}
	if got := errorLine(errors.New("open the door")); got != "open the door" {
		t.Errorf("errorLine = %q", got)
	}
}

// TestDescribeGen: a generator is named with its settings in words.
func TestDescribeGen(t *testing.T) {
	if got := describeGen(graph.RMAT{Scale: 10, EdgeFactor: 16, Seed: 42, A: 0.57, B: 0.19, C: 0.19}); got != "RMAT (scale 10, edge factor 16, seed 42, a 0.57, b 0.19, c 0.19)" {
		t.Errorf("describeGen = %q", got)
	}
}

// TestNegativeDevice: --device -1 is a usage error on every command that
// takes it, before any GPU (or its absence) is looked at.
func TestNegativeDevice(t *testing.T) {
	for _, cmd := range [][]string{{"count", "x.txt"}, {"tune", "x.txt"}, {"sweep", "small"}} {
		code, _, errOut := runCLI(t, append(cmd, "--device", "-1")...)
		if code != exitUsage || !strings.Contains(errOut, "--device -1: a GPU ordinal is 0 or more") {
			t.Errorf("%v --device -1: exit %d, %q", cmd, code, errOut)
		}
	}
}

// TestEmptyGraphNotice: a graph without edges counts (0 triangles, exit 0)
// with a notice that says so, which --quiet drops.
func TestEmptyGraphNotice(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.txt")
	if err := os.WriteFile(empty, []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "--no-cache", "count", empty, "--backend", "cpu")
	if code != exitOK || !strings.Contains(out, "triangles") || strings.Count(errOut, empty+": no edges") != 1 {
		t.Errorf("count of an empty file: exit %d, %q %q", code, out, errOut)
	}
	if _, _, errOut := runCLI(t, "--no-cache", "-q", "count", empty, "--backend", "cpu"); errOut != "" {
		t.Errorf("-q: stderr %q", errOut)
	}
}
