package executor

import (
	"math/bits"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// TestWorkload: whatever the plan, every oriented edge is intersected once,
// and the shorter-list probes add up to the graph feature of the same name.
func TestWorkload(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(10))
	if err != nil {
		t.Fatal(err)
	}
	f := graph.ComputeFeatures(g)
	for _, name := range []string{"polak", "trust", "grouptc", "fox", "hu", "wetric"} {
		p, _ := ir.Preset(name)
		_, _, work, err := Workload(p, g, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var inter, probes, skipped uint64
		for _, w := range work {
			if w.Skip {
				continue
			}
			inter += w.Intersections
			probes += w.Probes
			if w.UniqueBytes == 0 && w.Items > 0 {
				t.Errorf("%s: class %s reads nothing", name, w.Name)
			}
		}
		o := graph.Orient(g, graph.ByDegree, false)
		want := f.MinWorkByDegree
		if p.Canonical().Orientation == ir.OrientID {
			o = graph.Orient(g, graph.ByID, false)
			want = f.MinWorkByID
		}
		// Skip classes hold vertices with d+ < 2, whose edges end at
		// vertices... they still are edges: count them apart.
		for u := range o.N() {
			if d := o.Degree(uint32(u)); d < 2 && hasSkip(p) {
				skipped += d
			}
		}
		if inter+skipped != o.Arcs() {
			t.Errorf("%s: %d intersections + %d skipped, want %d edges", name, inter, skipped, o.Arcs())
		}
		if !hasSkip(p) && probes != want {
			t.Errorf("%s: %d probes, features say %d", name, probes, want)
		}
	}
}

// TestWorkloadWedge: the wedge search's accesses are a binary search of
// N+(v) per wedge (v, w) of each N+(u), counted here wedge by wedge.
func TestWorkloadWedge(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(10))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := ir.Preset("wetric")
	_, _, work, err := Workload(p, g, 0)
	if err != nil || len(work) != 1 {
		t.Fatalf("%v, %d classes", err, len(work))
	}
	o := graph.Orient(g, graph.ByDegree, true)
	var want uint64
	for u := range o.N() {
		nu := o.Adj[o.Offsets[u]:o.Offsets[u+1]]
		for a := range nu {
			for range nu[a+1:] {
				want += uint64(bits.Len64(o.Degree(nu[a])))
			}
		}
	}
	if want == 0 || work[0].Accesses != want {
		t.Errorf("accesses %d, want %d", work[0].Accesses, want)
	}
}

func hasSkip(p ir.Plan) bool {
	for _, c := range p.Canonical().Classes {
		if c.Skip {
			return true
		}
	}
	return false
}

func TestFloor(t *testing.T) {
	// The RMAT-24 example: 7.0e10 probes at 33.2 TB/s is ~8.4 ms.
	ms, _, probe := Floor([]ClassWork{{Probes: 7.0e10, UniqueBytes: 1}}, 4.27e12, 33.2e12)
	if probe < 8.3 || probe > 8.5 || ms != probe {
		t.Errorf("floor %.2f ms (probe %.2f), want ~8.4", ms, probe)
	}
}

// TestWorkloadCore: with a core the pivot classes keep the wedges whose
// middle vertex lies below it and the core entry takes the rest, each v of
// S(u) but the last once, reading at most as many words as it has pairs.
func TestWorkloadCore(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(12))
	if err != nil {
		t.Fatal(err)
	}
	p, err := ir.Load("../../examples/pivot-one.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const core = 1024
	p.Core = core
	_, _, work, err := Workload(p, g, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(work) != 2 || work[1].Name != "core" {
		t.Fatalf("work %v, want the class and the core", work)
	}
	o := graph.Orient(g, graph.ByDegree, true)
	top := uint32(o.N() - core)
	var below, pairs, entries, lists uint64
	for u := range o.N() {
		nu := o.Neighbors(uint32(u))
		var s uint64
		for i, v := range nu {
			if v >= top {
				s++
			} else {
				below += uint64(len(nu) - 1 - i)
			}
		}
		if s >= 2 {
			lists++
			entries += s - 1
			pairs += s * (s - 1) / 2
		}
	}
	f := graph.ComputeFeatures(g)
	if below+pairs != f.WedgesByDegree {
		t.Fatalf("test: %d + %d wedges, features say %d", below, pairs, f.WedgesByDegree)
	}
	c := work[1]
	if work[0].Probes != below || c.Items != lists || c.Intersections != entries || c.Probes == 0 || c.Probes > pairs ||
		c.UniqueBytes < core*core/8 {
		t.Errorf("pivot %d probes (want %d); core %+v, want %d lists, %d entries, at most %d words, %d matrix bytes", work[0].Probes, below, c, lists, entries, pairs, core*core/8)
	}
	t.Logf("RMAT-12, core %d: %d pairs in %d word ANDs", core, pairs, c.Probes)
}

// TestWorkloadTarget: target items cost as in CSR order, less the edges
// last in N+(u), which they leave out (one a vertex with out-edges).
func TestWorkloadTarget(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(10))
	if err != nil {
		t.Fatal(err)
	}
	plan := func(target int64) ir.Plan {
		return ir.Plan{Prefix: "t", Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree},
			Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128, Params: map[string]int64{ir.ParamTile: 8, ir.ParamTarget: target}}}}}
	}
	_, _, src, err := Workload(plan(0), g, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _, tgt, err := Workload(plan(1), g, 0)
	if err != nil {
		t.Fatal(err)
	}
	o := graph.Orient(g, graph.ByDegree, true)
	var lasts uint64
	for u := range o.N() {
		if o.Degree(uint32(u)) > 0 {
			lasts++
		}
	}
	if tgt[0].Items != src[0].Items-lasts || tgt[0].Intersections != src[0].Intersections-lasts {
		t.Errorf("target: %d items, %d intersections; by source %d, %d, less %d lasts", tgt[0].Items, tgt[0].Intersections, src[0].Items, src[0].Intersections, lasts)
	}
	if tgt[0].Accesses >= src[0].Accesses || tgt[0].UniqueBytes > src[0].UniqueBytes {
		t.Errorf("target: %+v; by source %+v", tgt[0], src[0])
	}
}
