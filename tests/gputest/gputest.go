// Package gputest is what tcgen's tests share to find the things they may
// lack: a GPU, NVRTC, and the shared datasets with their MANIFEST.tsv.
//
// The rules, in one place:
//
//   - Without a GPU a GPU test is skipped with a message; on the GPU machine
//     scripts/gpu-check.sh sets TCGEN_REQUIRE_GPU=1, and a missing GPU fails
//     the test instead (Open).
//   - Without NVRTC a compile test is skipped, except under CI=true (.ci/run
//     installs NVRTC) or TCGEN_REQUIRE_GPU=1, where it fails (Compiler).
//     TCGEN_NVRTC names a particular libnvrtc.so (NVRTCPath).
//   - The shared datasets are $TCGEN_DATASETS, else the bundle's copy
//     (.gpu/datasets) or ../shared/datasets beside the repository root (or
//     beside the main worktree's, from a linked worktree). Missing, a test
//     needing them is skipped, except under CI=true or TCGEN_REQUIRE_GPU=1,
//     where it fails (Datasets, Manifest).
//
// The package imports the standard library alone, so the in-package tests
// of any package (runtime/cuda, runtime/executor, graph) can use it without
// an import cycle: the caller passes the opening function (cuda.Open,
// cuda.NewCompiler) in.
package gputest

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The environment variables the rules read.
const (
	EnvRequireGPU = "TCGEN_REQUIRE_GPU" // "1": a missing GPU, NVRTC or dataset fails the test
	EnvDatasets   = "TCGEN_DATASETS"    // the shared datasets' directory
	EnvNVRTC      = "TCGEN_NVRTC"       // the libnvrtc.so to load (default: cuda's search)
)

// Required reports whether TCGEN_REQUIRE_GPU=1 (the GPU machine): what a
// GPU test needs must be there.
func Required() bool { return os.Getenv(EnvRequireGPU) == "1" }

// CI reports whether CI=true: NVRTC and the shared datasets must be there,
// a GPU need not.
func CI() bool { return os.Getenv("CI") == "true" }

// NVRTCPath is $TCGEN_NVRTC, the NVRTC a test run points at ("" for cuda's
// own search): pass it as cuda.Options.NVRTCPath.
func NVRTCPath() string { return os.Getenv(EnvNVRTC) }

// Open opens a GPU resource (a device, a context) with open, closing it when
// the test ends. Where open fails the test is skipped as one without a GPU,
// or fails under TCGEN_REQUIRE_GPU=1. With absent given (for example
// cuda.ErrNoDriver, cuda.ErrNoDevice), only errors matching one of them mean
// "no GPU here"; any other error fails the test.
//
//	dev := gputest.Open(t, func() (*cuda.Device, error) {
//		return cuda.Open(0, cuda.Options{NVRTCPath: gputest.NVRTCPath()})
//	}, cuda.ErrNoDriver, cuda.ErrNoDevice)
func Open[D io.Closer](t testing.TB, open func() (D, error), absent ...error) D {
	t.Helper()
	d, err := open()
	if err != nil {
		if !matches(err, absent) {
			t.Fatalf("opening the GPU: %v", err)
		}
		if Required() {
			t.Fatalf("%s=1 but no GPU opened: %v", EnvRequireGPU, err)
		}
		t.Skipf("no GPU here, skipping (%s=1 makes this a failure): %v", EnvRequireGPU, err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

// Compiler loads NVRTC with open. Where it fails with an error matching
// absent (cuda.ErrNoNVRTC; any error when absent is empty) the test is
// skipped, except under CI=true or TCGEN_REQUIRE_GPU=1, where it fails, as
// it does for any other error.
//
//	c := gputest.Compiler(t, func() (*cuda.Compiler, error) {
//		return cuda.NewCompiler(cuda.Options{NVRTCPath: gputest.NVRTCPath()})
//	}, cuda.ErrNoNVRTC)
func Compiler[C any](t testing.TB, open func() (C, error), absent ...error) C {
	t.Helper()
	c, err := open()
	if err != nil {
		if !matches(err, absent) {
			t.Fatalf("NVRTC: %v", err)
		}
		if CI() || Required() {
			t.Fatalf("NVRTC missing under CI=true or %s=1: %v", EnvRequireGPU, err)
		}
		t.Skipf("no NVRTC here, skipping (install libnvrtc11.2 or set %s; CI=true or %s=1 makes this a failure): %v", EnvNVRTC, EnvRequireGPU, err)
	}
	return c
}

// matches reports whether err is one of targets, or targets is empty.
func matches(err error, targets []error) bool {
	if len(targets) == 0 {
		return true
	}
	for _, e := range targets {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// modulePath names tcgen's go.mod, to tell the repository root from another
// module's.
const modulePath = "github.com/tcgen/tcgen"

// RepoRoot is the repository root: the nearest directory at or above the
// working directory (a test's package directory) holding tcgen's go.mod.
func RepoRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && modLine(string(b)) == modulePath {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("no go.mod of %s at or above %s", modulePath, wd)
		}
	}
}

func modLine(gomod string) string {
	for _, l := range strings.Split(gomod, "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// mainWorktree is the main worktree's root when root is a linked git
// worktree (its .git a file naming .git/worktrees/NAME), else "".
func mainWorktree(root string) string {
	b, err := os.ReadFile(filepath.Join(root, ".git"))
	if err != nil {
		return "" // a directory (the main worktree) or no git at all
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(root, gitdir)
	}
	common, err := os.ReadFile(filepath.Join(gitdir, "commondir"))
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(common))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitdir, c)
	}
	return filepath.Dir(filepath.Clean(c))
}

// ManifestFile is the shared datasets' index.
const ManifestFile = "MANIFEST.tsv"

// DatasetsDir locates the shared datasets: $TCGEN_DATASETS when set (an
// error if it holds no MANIFEST.tsv), else the first of the repository
// root's .gpu/datasets (make bundle's copy), ../shared/datasets beside the
// root and, from a linked worktree, ../shared/datasets beside the main
// worktree, that holds a MANIFEST.tsv.
func DatasetsDir() (string, error) {
	if d := os.Getenv(EnvDatasets); d != "" {
		if _, err := os.Stat(filepath.Join(d, ManifestFile)); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvDatasets, d, err)
		}
		return d, nil
	}
	root, err := RepoRoot()
	if err != nil {
		return "", fmt.Errorf("shared datasets: %w (set %s)", err, EnvDatasets)
	}
	tries := []string{filepath.Join(root, ".gpu", "datasets"), filepath.Join(root, "..", "shared", "datasets")}
	if m := mainWorktree(root); m != "" && m != root {
		tries = append(tries, filepath.Join(m, "..", "shared", "datasets"))
	}
	for _, d := range tries {
		if _, err := os.Stat(filepath.Join(d, ManifestFile)); err == nil {
			return filepath.Clean(d), nil
		}
	}
	return "", fmt.Errorf("shared datasets not found (no %s in %s; set %s)", ManifestFile, strings.Join(tries, ", "), EnvDatasets)
}

// Datasets is DatasetsDir, or the test ends: skipped, or failed under
// CI=true or TCGEN_REQUIRE_GPU=1.
func Datasets(t testing.TB) string {
	t.Helper()
	d, err := DatasetsDir()
	if err != nil {
		if CI() || Required() {
			t.Fatalf("%v (CI=true or %s=1 needs them)", err, EnvRequireGPU)
		}
		t.Skip(err)
	}
	return d
}

// Dataset is one row of MANIFEST.tsv, every column parsed.
type Dataset struct {
	Name            string
	File            string // the file's name in the datasets' directory
	Path            string // the file's full path
	Format          string
	SourceRepo      string
	SourcePath      string
	Vertices        uint64
	EdgesUndirected uint64
	MaxDegree       uint64
	Triangles       uint64
	SNAPTriangles   string // SNAP's published count, or an "n/a ..." note
	SHA256          string
}

// manifestColumns are the columns ReadManifest requires.
var manifestColumns = []string{"name", "file", "format", "source_repo", "source_path", "vertices", "edges_undirected",
	"max_degree", "triangles", "snap_published_triangles", "sha256"}

// ReadManifest parses dir/MANIFEST.tsv (tab-separated, CSV quoting, a
// header line naming the columns), in its order.
func ReadManifest(dir string) ([]Dataset, error) {
	p := filepath.Join(dir, ManifestFile)
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = '\t'
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s has no rows", p)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range manifestColumns {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("%s: no column %q", p, h)
		}
	}
	var rows []Dataset
	for i, rec := range recs[1:] {
		var bad error
		num := func(h string) uint64 {
			x, err := strconv.ParseUint(rec[col[h]], 10, 64)
			if err != nil && bad == nil {
				bad = fmt.Errorf("%s row %d: %s: %w", p, i+2, h, err)
			}
			return x
		}
		rows = append(rows, Dataset{
			Name: rec[col["name"]], File: rec[col["file"]], Path: filepath.Join(dir, rec[col["file"]]),
			Format: rec[col["format"]], SourceRepo: rec[col["source_repo"]], SourcePath: rec[col["source_path"]],
			Vertices: num("vertices"), EdgesUndirected: num("edges_undirected"),
			MaxDegree: num("max_degree"), Triangles: num("triangles"),
			SNAPTriangles: rec[col["snap_published_triangles"]], SHA256: rec[col["sha256"]],
		})
		if bad != nil {
			return nil, bad
		}
	}
	return rows, nil
}

// Manifest is the shared datasets' manifest (Datasets' rules when they are
// missing; a manifest that does not parse fails the test).
func Manifest(t testing.TB) []Dataset {
	t.Helper()
	rows, err := ReadManifest(Datasets(t))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Pick returns the rows of the datasets named (by Name), in the order
// named; a name the manifest lacks fails the test.
func Pick(t testing.TB, rows []Dataset, names ...string) []Dataset {
	t.Helper()
	var out []Dataset
	for _, n := range names {
		i := indexOf(rows, n)
		if i < 0 {
			t.Fatalf("dataset %q is not in %s", n, ManifestFile)
		}
		out = append(out, rows[i])
	}
	return out
}

func indexOf(rows []Dataset, name string) int {
	for i, r := range rows {
		if r.Name == name {
			return i
		}
	}
	return -1
}
