package executor_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// CPU reference of Green's merge-path kernels
// (templates/isect_mergepath.cu.tmpl), step for step: the same diagonals,
// the same binary search, the same merge loop with its peek past the
// stretch, so that a partition or tie-breaking error shows up here before
// the GPU run.

// mpSplit is mp_split: how many entries of a are among the first d of the
// merge of a and b (ties to a).
func mpSplit(a, b []uint32, d uint64) uint64 {
	na, nb := uint64(len(a)), uint64(len(b))
	lo, hi := uint64(0), min(d, na)
	if d > nb {
		lo = d - nb
	}
	for lo < hi {
		mid := lo + (hi-lo)>>1
		if a[mid] <= b[d-1-mid] {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// mergePathLane is merge_path for one lane of a group of width lanes. It
// also returns where the lane's stretch ended.
func mergePathLane(a, b []uint32, lane, width uint64) (c, iEnd, jEnd uint64) {
	na, nb := uint64(len(a)), uint64(len(b))
	n := na + nb
	d0, d1 := n*lane/width, n*(lane+1)/width
	if d0 == d1 {
		return 0, 0, 0
	}
	i := mpSplit(a, b, d0)
	j := d0 - i
	var x, y uint32
	if i < na {
		x = a[i]
	}
	if j < nb {
		y = b[j]
	}
	for s := d1 - d0; s > 0; s-- {
		if j < nb && (i >= na || y < x) {
			j++
			if j < nb {
				y = b[j]
			}
		} else {
			if i >= na {
				panic("merge path: the stretch takes an entry of a past its end")
			}
			if j < nb && x == y {
				c++
			}
			i++
			if i < na {
				x = a[i]
			}
		}
	}
	return c, i, j
}

// mergePath is merge_path summed over a group of width lanes; it checks
// that each lane's stretch ends where the next one's begins.
func mergePath(t testing.TB, a, b []uint32, width uint64) uint64 {
	var c uint64
	n := uint64(len(a) + len(b))
	for lane := range width {
		lc, i, j := mergePathLane(a, b, lane, width)
		c += lc
		d1 := n * (lane + 1) / width
		if n*lane/width != d1 {
			if wi := mpSplit(a, b, d1); i != wi || j != d1-wi {
				t.Fatalf("lane %d of %d: stretch ends at (%d, %d), the next starts at (%d, %d)", lane, width, i, j, wi, d1-wi)
			}
		}
	}
	return c
}

// greenWidths are the widths a merge-path class may have (1..32 by powers of
// two, or a block), and a few others the arithmetic must handle as well.
var greenWidths = []uint64{1, 2, 3, 4, 8, 16, 32, 64, 100, 256, 512, 1024}

// TestMergePathLists: random sorted sets, many ties, short and empty lists,
// every width, against a plain intersection.
func TestMergePathLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	set := func(n int, universe uint32) []uint32 {
		m := map[uint32]bool{}
		for len(m) < n {
			m[rng.Uint32N(universe)] = true
		}
		s := make([]uint32, 0, n)
		for x := range m {
			s = append(s, x)
		}
		slices.Sort(s)
		return s
	}
	for trial := range 3000 {
		na, nb := rng.IntN(70), rng.IntN(70)
		if trial%10 == 0 {
			na = rng.IntN(3000)
		}
		universe := uint32(max(na, nb)+1) * uint32(1+rng.IntN(4)) // dense: many equal entries
		a, b := set(na, universe), set(nb, universe)
		want := intersect(a, b)
		for _, w := range greenWidths {
			if got := mergePath(t, a, b, w); got != want {
				t.Fatalf("width %d, a=%v b=%v: %d common, want %d", w, a, b, got, want)
			}
		}
	}
	// Equal lists: every entry matches, and with width >= 2 pairs straddle
	// the stretches at every odd diagonal.
	for n := range 70 {
		a := make([]uint32, n)
		for i := range a {
			a[i] = uint32(3*i + 1)
		}
		for _, w := range greenWidths {
			if got := mergePath(t, a, a, w); got != uint64(n) {
				t.Fatalf("equal lists of %d, width %d: %d", n, w, got)
			}
		}
	}
}

// greenCount counts as the merge-path kernels do: for every oriented edge
// (u, v), N+(u) (trimmed after v under id order) and N+(v) along the merge
// path; the edge and the vertex iterator intersect the same pairs of lists.
func greenCount(t testing.TB, o *graph.Oriented, idOrdered bool, width uint64) uint64 {
	var c uint64
	off, adj := o.Offsets, o.Adj
	for u := range uint32(o.N()) {
		for e := off[u]; e < off[u+1]; e++ {
			v := adj[e]
			a0 := off[u]
			if idOrdered {
				a0 = e + 1
			}
			a, b := adj[a0:off[u+1]], adj[off[v]:off[v+1]]
			if len(a) == 0 || len(b) == 0 {
				continue
			}
			c += mergePath(t, a, b, width)
		}
	}
	return c
}

type refGraph struct {
	name string
	g    *graph.Graph
}

// refGraphs are the CPU references' graphs: random, skewed, hubs above
// 4096, dense, and graphs without triangles or edges.
func refGraphs(t *testing.T) []refGraph {
	var out []refGraph
	for _, tg := range []testGraph{
		mustGraph(t, "er500", graph.ErdosRenyi{N: 500, M: 4000, Seed: 5}),
		mustGraph(t, "er120dense", graph.ErdosRenyi{N: 120, M: 5000, Seed: 6}),
		mustGraph(t, "rmat11", graph.DefaultRMAT(11)),
		mustGraph(t, "wheel5000", graph.Wheel{Rim: 5000}),
		mustGraph(t, "star300", graph.Star{Leaves: 300}),
		mustGraph(t, "k90", graph.Complete{N: 90}),
		mustGraph(t, "grid", graph.Grid{Rows: 30, Cols: 40}),
		mustGraph(t, "griddiag", graph.Grid{Rows: 30, Cols: 40, Diagonals: true}),
		hubGraph(t, 6000, 20000, 9),
	} {
		out = append(out, refGraph{tg.name, tg.g})
	}
	empty, _, err := graph.FromPairs(nil)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, refGraph{"empty", empty})
}

type orientCase struct {
	name      string
	by        graph.Orientation
	relabel   bool
	idOrdered bool
}

var refOrients = []orientCase{
	{"degree", graph.ByDegree, false, false},
	{"degree+relabel", graph.ByDegree, true, true},
	{"id", graph.ByID, false, true},
}

func TestGreenReference(t *testing.T) {
	for _, rg := range refGraphs(t) {
		want := graph.Oracle(rg.g)
		for _, oc := range refOrients {
			o := graph.Orient(rg.g, oc.by, oc.relabel)
			for _, w := range greenWidths {
				if got := greenCount(t, o, oc.idOrdered, w); got != want {
					t.Errorf("%s, %s, width %d: %d triangles, want %d", rg.name, oc.name, w, got, want)
				}
			}
		}
	}
}

// TestGreenReferenceDatasets: the shared datasets, under the preset's
// orientation (degree) and id order, at the preset's width and two others.
func TestGreenReferenceDatasets(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, f := range refDatasets(t) {
		g, _, err := graph.Open(f, graph.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want := graph.Oracle(g)
		for i, oc := range []orientCase{refOrients[0], refOrients[2]} {
			o := graph.Orient(g, oc.by, oc.relabel)
			// The preset's width under its orientation; one thread and a
			// block of 512 under id order (where N+(u) is trimmed).
			widths := []uint64{32}
			if i == 1 {
				widths = []uint64{1}
			}
			for _, w := range widths {
				if got := greenCount(t, o, oc.idOrdered, w); got != want {
					t.Errorf("%s, %s, width %d: %d triangles, want %d", filepath.Base(f), oc.name, w, got, want)
				}
			}
		}
	}
}

// refDatasets lists the shared datasets, or skips.
func refDatasets(t *testing.T) []string {
	dir := datasetDir()
	if dir == "" {
		t.Skip("no datasets found (set TCGEN_DATASETS)")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.gz"))
	sort.Strings(files)
	if len(files) == 0 {
		t.Skipf("no datasets in %s", dir)
	}
	return files
}

// TestGreenGenerated: the preset lowers to merge-path kernels of the
// paper's shape, and every width the IR allows generates for both
// iterators.
func TestGreenGenerated(t *testing.T) {
	p, _ := ir.Preset("green")
	out, err := gen.Generate(p, gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	c := out.Manifest.Variants[0].Classes[0]
	if c.Intersection != ir.MergePath || c.Width != 32 || c.Block != 512 || c.Scratch != nil || c.StaticSharedBytes != 0 {
		t.Errorf("green class %+v", c)
	}
	for _, want := range []string{"mp_split(", "merge_path(adj, a0, a1 - a0, b0, b1 - b0, lane)", "constexpr u32 WIDTH = 32;", "constexpr u32 BLOCK = 512;"} {
		if !strings.Contains(out.Source, want) {
			t.Errorf("green source lacks %q", want)
		}
	}
	for _, it := range []ir.Iterator{ir.IterEdge, ir.IterVertex} {
		for _, blk := range []int{32, 256, 1024} {
			for _, w := range []int{1, 2, 4, 8, 16, 32, blk} {
				q := ir.Plan{Prefix: "mp", Classes: []ir.Class{{Select: ir.Selector{Key: ir.KeyOutDegree},
					Strategy: ir.Strategy{Iterator: it, Intersection: ir.MergePath, Width: w, Block: blk}}}}
				if _, err := gen.Generate(q, gen.DefaultTarget()); err != nil {
					t.Errorf("%s width %d block %d: %v", it, w, blk, err)
				}
			}
		}
	}
}

func ExampleScratch() {
	s := gen.Scratch{Groups: 8, BitsPerVertex: 1, Zeroed: true}
	fmt.Println(s.WordsPerGroup(0), s.WordsPerGroup(64), s.WordsPerGroup(65), s.WordsPerGroup(1<<22))
	// Output: 1 1 2 65536
}
