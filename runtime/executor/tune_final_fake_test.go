package executor_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/store"
)

// TestTuneFinalistsFake: the search's best was a lucky measurement (plan B
// at 0.4 ms once, 1.3 ms truly); the finalists B, A, C measured again in
// interleaved rounds choose A, the truly fastest, and the store's best
// follows. The fake device's timers see which plan's kernels ran, so the
// test also checks that the rounds interleave: A B C A B C ...
func TestTuneFinalistsFake(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(8))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	sf, err := autotune.LoadSpace("../../examples/spaces/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	target := gen.Target{Arch: "sm_90", MaxSharedPerBlock: 227 << 10}
	sp, err := sf.Expand(target)
	if err != nil {
		t.Fatal(err)
	}
	var d *fakeDevice
	owners := map[string][]int{} // kernel -> the plans that launch it
	for i, p := range sp.Plans {
		out, err := gen.Generate(p, target)
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			d = newFakeDevice(t, p, 1<<40)
		} else {
			d.addPlan(t, out)
		}
		for _, v := range out.Manifest.Variants {
			for _, c := range v.Classes {
				if !c.Skip && !slices.Contains(owners[c.Kernel], i) {
					owners[c.Kernel] = append(owners[c.Kernel], i)
				}
			}
		}
	}
	// A, B and C are three plans whose kernels no other plan launches.
	var abc []int
	for i := range sp.Plans {
		mine := true
		for _, ps := range owners {
			if slices.Contains(ps, i) && len(ps) > 1 {
				mine = false
			}
		}
		if mine && len(abc) < 3 {
			abc = append(abc, i)
		}
	}
	if len(abc) < 3 {
		t.Fatalf("only %d plans of space small launch kernels of their own", len(abc))
	}
	a, b, c := abc[0], abc[1], abc[2]
	planOf := func(kernel string) int {
		if ps := owners[kernel]; len(ps) == 1 {
			return ps[0]
		}
		return -1
	}
	lucky := true
	d.passMs = func(launched []string) float64 {
		for _, k := range launched {
			switch planOf(k) {
			case a:
				return 1.0
			case b:
				if lucky {
					return 0.4
				}
				return 1.3
			case c:
				return 1.2
			}
		}
		return 2.0 // every other plan
	}

	st, err := store.Open(filepath.Join(t.TempDir(), "tuning.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	base := store.Row{Graph: graph.Fingerprint(&g.CSR), GraphName: "rmat8", Features: graph.ComputeFeatures(g),
		GPU: autotune.GPUKey(d.Facts(), 13, 0), Version: "test", Space: sp.Cands.Name}
	ev := &autotune.GPU{Ctx: context.Background(), Dev: d, Comp: &fakeCompiler{}, Graph: g, Space: sp, Reference: want,
		Warmup: 1, Store: st, Base: base, Workers: 2}
	strat, _ := autotune.StrategyByName("exhaustive")
	const runs = 4
	out, err := autotune.Run(context.Background(), &sp.Cands, strat, ev, autotune.Options{Runs: runs})
	if err != nil || out.Best != b {
		t.Fatalf("search: best %d (%v), want the lucky plan %d", out.Best, err, b)
	}

	lucky = false
	d.launch = nil
	f, err := autotune.Remeasure(ev, out, runs, autotune.FinalistsDefault)
	if err != nil {
		t.Fatal(err)
	}
	if f.Best != a || f.Score != 1.0 || !f.Changed {
		t.Fatalf("interleaved winner %d at %g ms (changed %v), want plan %d at 1 ms", f.Best, f.Score, f.Changed, a)
	}
	var got []int
	for _, fi := range f.Finalists {
		got = append(got, fi.Index)
	}
	if !slices.Equal(got, []int{b, a, c}) {
		t.Errorf("finalists %v, want %v (the search's order)", got, []int{b, a, c})
	}
	if fb := f.Finalists[0]; fb.Search != 0.4 || fb.Result.Score != 1.3 || len(fb.Result.Samples) != runs {
		t.Errorf("finalist B: search %g ms, interleaved %g ms over %d passes; want 0.4, 1.3, %d", fb.Search, fb.Result.Score, len(fb.Result.Samples), runs)
	}

	// Each plan's kernels in launch order, runs of one plan merged: its
	// verifying pass and warm-up, then the rounds, one pass of each.
	var order []int
	for _, k := range d.launch {
		if p := planOf(k); p >= 0 && (len(order) == 0 || order[len(order)-1] != p) {
			order = append(order, p)
		}
	}
	var wantOrder []int
	for range runs + 1 {
		wantOrder = append(wantOrder, b, a, c)
	}
	if !slices.Equal(order, wantOrder) {
		t.Errorf("pass order %v, want %v", order, wantOrder)
	}

	// The interleaved rows are the plans' newest, so the store's best is A.
	row, _, ok, err := st.Best(base.Graph, base.GPU, autotune.CodeMatcher(d.Facts()))
	if err != nil || !ok || row.Plan != sp.Cands.Plans[a] || row.Runs != runs || row.MedianMs != 1.0 {
		t.Errorf("store's best %s (%d runs, %g ms, %v %v), want %s at 1 ms over %d runs", row.Plan, row.Runs, row.MedianMs, ok, err, sp.Cands.Plans[a], runs)
	}
	// B's lucky row stays as history beneath its interleaved one.
	hist, err := st.Rows(store.Filter{Graph: base.Graph, History: true})
	if err != nil {
		t.Fatal(err)
	}
	var bms []float64
	for _, r := range hist {
		if r.Plan == sp.Cands.Plans[b] {
			bms = append(bms, r.MedianMs)
		}
	}
	if !slices.Contains(bms, 0.4) || !slices.Contains(bms, 1.3) {
		t.Errorf("plan B's rows: medians %v, want the lucky 0.4 kept beside the interleaved 1.3", bms)
	}
}
