package gputest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that records how a helper ended the test: the
// real one's Skip and Fatal end the goroutine, as these do.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	skipped  bool
	failed   bool
	msg      string
	cleanups []func()
}

func (r *recorder) Helper() {}
func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}
func (r *recorder) end(skip bool, msg string) {
	r.mu.Lock()
	r.skipped, r.failed, r.msg = skip, !skip, msg
	r.mu.Unlock()
	runtime.Goexit()
}
func (r *recorder) Skip(args ...any)                 { r.end(true, strings.TrimSpace(sprint(args...))) }
func (r *recorder) Skipf(format string, args ...any) { r.end(true, sprintf(format, args...)) }
func (r *recorder) Fatal(args ...any)                { r.end(false, strings.TrimSpace(sprint(args...))) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.end(false, sprintf(format, args...))
}
func (r *recorder) Error(args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed, r.msg = true, sprint(args...)
}

// call runs f as a test body would, on its own goroutine, and the cleanups.
func call(t *testing.T, f func(r *recorder)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	return r
}

type closer struct{ closed *bool }

func (c closer) Close() error { *c.closed = true; return nil }

var (
	errNoDevice = errors.New("no device")
	errOther    = errors.New("driver broken")
)

func TestOpen(t *testing.T) {
	for _, tc := range []struct {
		name     string
		require  string
		err      error
		absent   []error
		skip     bool
		fail     bool
		contains string
	}{
		{"opens", "", nil, nil, false, false, ""},
		{"no GPU skips", "", errNoDevice, nil, true, false, "TCGEN_REQUIRE_GPU=1 makes this a failure"},
		{"no GPU listed skips", "", errNoDevice, []error{errNoDevice}, true, false, "no GPU here"},
		{"no GPU fails when required", "1", errNoDevice, []error{errNoDevice}, false, true, "TCGEN_REQUIRE_GPU=1 but no GPU opened"},
		{"another error fails", "", errOther, []error{errNoDevice}, false, true, "driver broken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvRequireGPU, tc.require)
			closed := false
			r := call(t, func(r *recorder) {
				Open(r, func() (closer, error) { return closer{&closed}, tc.err }, tc.absent...)
			})
			if r.skipped != tc.skip || r.failed != tc.fail || !strings.Contains(r.msg, tc.contains) {
				t.Errorf("skipped %v, failed %v, %q; want %v, %v, %q", r.skipped, r.failed, r.msg, tc.skip, tc.fail, tc.contains)
			}
			if tc.err == nil && !closed {
				t.Error("the device was not closed when the test ended")
			}
		})
	}
}

func TestCompiler(t *testing.T) {
	errNoNVRTC := errors.New("no nvrtc")
	for _, tc := range []struct {
		name, ci, require string
		err               error
		skip, fail        bool
	}{
		{"loads", "", "", nil, false, false},
		{"missing skips", "", "", errNoNVRTC, true, false},
		{"missing fails on CI", "true", "", errNoNVRTC, false, true},
		{"missing fails on the GPU machine", "", "1", errNoNVRTC, false, true},
		{"broken fails", "", "", errOther, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			t.Setenv(EnvRequireGPU, tc.require)
			r := call(t, func(r *recorder) {
				if got := Compiler(r, func() (int, error) { return 7, tc.err }, errNoNVRTC); got != 7 {
					r.Fatalf("got %d", got)
				}
			})
			if r.skipped != tc.skip || r.failed != tc.fail {
				t.Errorf("skipped %v, failed %v (%q); want %v, %v", r.skipped, r.failed, r.msg, tc.skip, tc.fail)
			}
		})
	}
}

const manifest = "name\tfile\tformat\tsource_repo\tsource_path\tvertices\tedges_undirected\tmax_degree\ttriangles\tsnap_published_triangles\tsha256\n" +
	"k4\tk4.txt.gz\tSNAP edge list\to/r\tk4.txt\t4\t6\t3\t4\tn/a\tabc\n" +
	"tri\ttri.mtx.gz\t\"Matrix Market, quoted\"\to/r\ttri.mtx\t3\t3\t2\t1\t1\tdef\n"

func TestReadManifest(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []Dataset{
		{Name: "k4", File: "k4.txt.gz", Path: filepath.Join(dir, "k4.txt.gz"), Format: "SNAP edge list", SourceRepo: "o/r", SourcePath: "k4.txt",
			Vertices: 4, EdgesUndirected: 6, MaxDegree: 3, Triangles: 4, SNAPTriangles: "n/a", SHA256: "abc"},
		{Name: "tri", File: "tri.mtx.gz", Path: filepath.Join(dir, "tri.mtx.gz"), Format: "Matrix Market, quoted", SourceRepo: "o/r", SourcePath: "tri.mtx",
			Vertices: 3, EdgesUndirected: 3, MaxDegree: 2, Triangles: 1, SNAPTriangles: "1", SHA256: "def"},
	}
	if len(rows) != len(want) || rows[0] != want[0] || rows[1] != want[1] {
		t.Errorf("got %+v\nwant %+v", rows, want)
	}
	if p := Pick(t, rows, "tri", "k4"); len(p) != 2 || p[0].Name != "tri" || p[1].Name != "k4" {
		t.Errorf("Pick: %+v", p)
	}
	if r := call(t, func(r *recorder) { Pick(r, rows, "nosuch") }); !r.failed || !strings.Contains(r.msg, "nosuch") {
		t.Errorf("Pick of a missing name: failed %v, %q", r.failed, r.msg)
	}

	for name, content := range map[string]string{
		"no rows":        strings.SplitAfter(manifest, "\n")[0],
		"missing column": strings.Replace(manifest, "max_degree", "maxdeg", 1),
		"bad number":     strings.Replace(manifest, "\t4\t6\t3\t4\t", "\t4\tsix\t3\t4\t", 1),
	} {
		if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadManifest(dir); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestDatasetsDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDatasets, dir)
	if _, err := DatasetsDir(); err == nil || !strings.Contains(err.Error(), EnvDatasets) {
		t.Errorf("a directory without a manifest: %v", err)
	}
	t.Setenv("CI", "")
	t.Setenv(EnvRequireGPU, "")
	if r := call(t, func(r *recorder) { Datasets(r) }); !r.skipped {
		t.Errorf("missing datasets: skipped %v, failed %v (%q); want a skip", r.skipped, r.failed, r.msg)
	}
	t.Setenv("CI", "true")
	if r := call(t, func(r *recorder) { Datasets(r) }); !r.failed {
		t.Errorf("missing datasets under CI=true: skipped %v, failed %v (%q); want a failure", r.skipped, r.failed, r.msg)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := DatasetsDir(); got != dir || err != nil {
		t.Errorf("DatasetsDir = %q, %v; want %q", got, err, dir)
	}
	if rows := Manifest(t); len(rows) != 2 {
		t.Errorf("Manifest: %+v", rows)
	}
}

func TestRepoRoot(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if want := filepath.Dir(filepath.Dir(wd)); root != want { // tests run in <root>/tests/gputest
		t.Errorf("RepoRoot = %s, want %s", root, want)
	}
}

// TestMainWorktree: a linked worktree's .git file leads to the main
// worktree, beside which ../shared/datasets lies.
func TestMainWorktree(t *testing.T) {
	top := t.TempDir()
	main := filepath.Join(top, "main")
	linked := filepath.Join(top, "wt", "x")
	gitdir := filepath.Join(main, ".git", "worktrees", "x")
	for _, d := range []string{gitdir, linked} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644)
	os.WriteFile(filepath.Join(linked, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644)
	if got := mainWorktree(linked); got != main {
		t.Errorf("mainWorktree = %q, want %q", got, main)
	}
	if got := mainWorktree(main); got != "" {
		t.Errorf("mainWorktree of the main worktree = %q, want \"\"", got)
	}
}

func sprint(args ...any) string                 { return fmt.Sprintln(args...) }
func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
