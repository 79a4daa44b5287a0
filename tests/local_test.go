package tests

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/tests/gputest"
)

// readTSV returns the tab-separated fields of each line of path.
func readTSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rows = append(rows, strings.Split(sc.Text(), "\t"))
	}
	return rows
}

func atou(t *testing.T, s string) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCountLocalOutputs: count --per-edge, --clustering and --per-vertex
// on shared datasets. The edges listed must be the manifest's number, each
// once with u < v; their supports, the per-vertex counts and the
// coefficients must be what a brute force on those edges gives (common
// neighbours through adjacency sets), and the summary's transitivity and
// average clustering must follow.
func TestCountLocalOutputs(t *testing.T) {
	for _, row := range gputest.Pick(t, gputest.Manifest(t), "karate", "ca-GrQc") {
		t.Run(row.Name, func(t *testing.T) {
			dir := t.TempDir()
			pe, cl, pv := filepath.Join(dir, "pe.tsv"), filepath.Join(dir, "cl.txt"), filepath.Join(dir, "pv.tsv")
			code, js, errs := tcgen(t, "-q", "--no-cache", "count", row.Path, "--backend", "cpu", "--per-edge", pe, "--clustering", cl, "--per-vertex", pv, "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var r struct {
				Triangles, Wedges uint64
				Transitivity      float64
				AvgClustering     float64 `json:"average_clustering"`
				Backend           string
			}
			if err := json.Unmarshal([]byte(js), &r); err != nil || r.Triangles != row.Triangles || r.Backend != "cpu" {
				t.Fatalf("%v: %+v, want %d triangles on the cpu", err, r, row.Triangles)
			}
			adj := map[uint64]map[uint64]bool{}
			edges := readTSV(t, pe)
			for _, e := range edges {
				u, v := atou(t, e[0]), atou(t, e[1])
				if u >= v || adj[u][v] {
					t.Fatalf("edge %d %d: not u < v, or listed twice", u, v)
				}
				for _, p := range [][2]uint64{{u, v}, {v, u}} {
					if adj[p[0]] == nil {
						adj[p[0]] = map[uint64]bool{}
					}
					adj[p[0]][p[1]] = true
				}
			}
			if uint64(len(edges)) != row.EdgesUndirected || uint64(len(adj)) != row.Vertices {
				t.Fatalf("%d edges on %d vertices, manifest %d on %d", len(edges), len(adj), row.EdgesUndirected, row.Vertices)
			}
			per := map[uint64]uint64{}
			var sum uint64
			for _, e := range edges {
				u, v := atou(t, e[0]), atou(t, e[1])
				var s uint64
				for w := range adj[u] {
					if adj[v][w] {
						s++
					}
				}
				if got := atou(t, e[2]); got != s {
					t.Fatalf("edge %d %d: %d triangles, brute force %d", u, v, got, s)
				}
				per[u] += s
				per[v] += s
				sum += s
			}
			if sum != 3*row.Triangles {
				t.Fatalf("supports sum to %d, want 3 x %d", sum, row.Triangles)
			}
			var wedges uint64
			var avg float64
			for _, l := range readTSV(t, pv) {
				if id := atou(t, l[0]); atou(t, l[1])*2 != per[id] {
					t.Fatalf("vertex %d: %s triangles, half its edges' supports is %d", id, l[1], per[id]/2)
				}
			}
			coefs := readTSV(t, cl)
			for _, l := range coefs {
				id := atou(t, l[0])
				d := uint64(len(adj[id]))
				want := 0.0
				if d >= 2 {
					want = float64(per[id]/2) / float64(d*(d-1)/2)
				}
				wedges += d * (d - 1) / 2
				avg += want
				if got, err := strconv.ParseFloat(l[1], 64); err != nil || got != want {
					t.Fatalf("vertex %d: coefficient %s, want %v", id, l[1], want)
				}
			}
			avg /= float64(len(coefs))
			if len(coefs) != len(adj) || r.Wedges != wedges || r.Transitivity != 3*float64(row.Triangles)/float64(wedges) ||
				math.Abs(r.AvgClustering-avg) > 1e-12 {
				t.Errorf("%d coefficients; summary %+v; want %d wedges, average %v", len(coefs), r, wedges, avg)
			}
		})
	}
}

// TestCountLocalNPY: .npy outputs of the K_4-plus-pendant graph of ids 1..5
// (not dense: isolated id 0 is absent) carry an id column; a dense graph
// (a generated wheel) gets an array indexed by id.
func TestCountLocalNPY(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "k4.txt", k4)
	pe, pv := filepath.Join(dir, "pe.npy"), filepath.Join(dir, "pv.npy")
	if code, _, errs := tcgen(t, "-q", "--no-cache", "count", in, "--backend", "cpu", "--per-edge", pe, "--per-vertex", pv); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(pe)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "\x93NUMPY\x01\x00") || !strings.Contains(string(b[:128]), "'descr': '<u8', 'fortran_order': False, 'shape': (7, 3), }") {
		t.Errorf("per-edge header %q", b[:min(len(b), 128)])
	}
	b, _ = os.ReadFile(pv)
	if !strings.Contains(string(b[:min(len(b), 128)]), "'shape': (5, 2), }") || len(b) != 128+5*2*8 {
		t.Errorf("per-vertex .npy of %d bytes, header %q", len(b), b[:min(len(b), 128)])
	}
	w := filepath.Join(dir, "w.tcsr")
	tcgen(t, "-q", "graph", "wheel", "6", "-o", w)
	cl := filepath.Join(dir, "cl.npy")
	if code, _, errs := tcgen(t, "-q", "--no-cache", "count", w, "--backend", "cpu", "--clustering", cl); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, _ = os.ReadFile(cl)
	if !strings.Contains(string(b[:min(len(b), 128)]), "'descr': '<f8', 'fortran_order': False, 'shape': (7,), }") || len(b) != 128+7*8 {
		t.Errorf("clustering .npy of %d bytes, header %q", len(b), b[:min(len(b), 128)])
	}
}

// TestCountLocalErrors: the exact refusals of bad combinations.
func TestCountLocalErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "k4.txt", k4)
	or := filepath.Join(dir, "o.tcsr")
	if code, _, errs := tcgen(t, "-q", "--no-cache", "convert", in, "-o", or, "--orient", "degree", "--relabel"); code != 0 {
		t.Fatalf("convert: %d %s", code, errs)
	}
	out := filepath.Join(dir, "x.tsv")
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{or, "--per-edge", out}, exitBadInput, or + ": --per-edge needs the undirected graph; this file is oriented by degree"},
		{[]string{or, "--clustering-stats"}, exitBadInput, or + ": --clustering-stats needs the undirected graph; this file is oriented by degree"},
		{[]string{in, "--per-edge", out, "--clustering", out}, exitUsage, "count: --per-edge and --clustering both name " + out},
		{[]string{in, "--per-edge", "-"}, exitUsage, "count: --per-edge -: standard output carries the count; name a file"},
	} {
		code, _, errs := tcgen(t, append([]string{"-q", "--no-cache", "count"}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("count %v: exit %d %q; want %d %q", c.args, code, errs, c.code, c.msg)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("count %v left %s", c.args, out)
		}
	}
}

// TestCountLocalGPU: count --per-vertex, --per-edge and --clustering on
// the GPU (the default plan's local variant, and a spec's) write the same
// files as the CPU, --check passes, and the summary has the clustering
// statistics. Skipped without a GPU (a failure under TCGEN_REQUIRE_GPU=1).
func TestCountLocalGPU(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, dir, "vertex.yaml", "prefix: vm\norientation: degree\nrelabel: true\nclasses:\n  - select: {key: outdeg, lo: 0}\n    iterator: vertex\n    intersection: merge\n    width: 4\n")
	for _, row := range gputest.Pick(t, gputest.Manifest(t), "karate", "ca-GrQc") {
		for _, plan := range [][]string{nil, {"--spec", spec}} {
			cpu := map[string]string{}
			for _, backend := range []string{"cpu", "gpu"} {
				pe, pv, cl := filepath.Join(dir, backend+"-pe.tsv"), filepath.Join(dir, backend+"-pv.npy"), filepath.Join(dir, backend+"-cl.txt")
				args := append([]string{"-q", "--no-cache", "--no-store", "count", row.Path, "--backend", backend, "--json", "--check"}, plan...)
				runs := [][]string{{"--per-edge", pe, "--clustering", cl}, {"--per-vertex", pv, "--clustering-stats"}}
				for _, extra := range runs {
					code, js, errs := tcgen(t, append(args, extra...)...)
					if backend == "gpu" && code == exitNoGPU && !gputest.Required() {
						t.Skipf("no GPU: %s", errs)
					}
					if code != 0 {
						t.Fatalf("%s %v %v: exit %d: %s", row.Name, plan, extra, code, errs)
					}
					var r struct {
						Triangles     uint64
						Backend       string
						Transitivity  *float64
						AvgClustering *float64 `json:"average_clustering"`
					}
					if err := json.Unmarshal([]byte(js), &r); err != nil || r.Triangles != row.Triangles || r.Backend != backend || r.Transitivity == nil || r.AvgClustering == nil {
						t.Fatalf("%s %v: %v: %+v", row.Name, extra, err, r)
					}
				}
				for _, f := range []string{pe, pv, cl} {
					b, err := os.ReadFile(f)
					if err != nil {
						t.Fatal(err)
					}
					key := strings.TrimPrefix(filepath.Base(f), backend)
					if backend == "cpu" {
						cpu[key] = string(b)
					} else if string(b) != cpu[key] {
						t.Errorf("%s %v: the GPU's %s differs from the CPU's", row.Name, plan, key)
					}
				}
			}
		}
	}
}
