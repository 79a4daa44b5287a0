package executor_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/store"
)

// TestTuneFlushFake: the tuner measures through the timing routine with
// the evaluator's flush setting. A flushed tune after an unflushed one
// takes nothing from the store (the kinds are not comparable), flushes
// before every timed pass of the search and of the interleaved finalists,
// and stores flushed rows beside the unflushed ones, which stay the best
// count reads.
func TestTuneFlushFake(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(8))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	sf, err := autotune.LoadSpace("../../examples/spaces/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	target := gen.Target{Arch: "compute_90", MaxSharedPerBlock: 227 << 10}
	sp, err := sf.Expand(target)
	if err != nil {
		t.Fatal(err)
	}
	sp = sp.Subset(func(i int) bool { return i < 4 })
	var d *fakeDevice
	for _, p := range sp.Plans {
		if d == nil {
			d = newFakeDevice(t, p, 1<<40)
			continue
		}
		out, err := gen.Generate(p, target)
		if err != nil {
			t.Fatal(err)
		}
		d.addPlan(t, out)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "tuning.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	base := store.Row{Graph: graph.Fingerprint(&g.CSR), GraphName: "rmat8", Features: graph.ComputeFeatures(g),
		GPU: autotune.GPUKey(d.Facts(), 13, 0), Version: "test", Space: sp.Cands.Name}
	strat, _ := autotune.StrategyByName("exhaustive")
	const runs = 3
	flush := fmt.Sprintf("zero %d running 0", 2*fakeL2)
	tune := func(flushed bool) (autotune.Outcome, int) {
		t.Helper()
		d.events = nil
		ev := &autotune.GPU{Ctx: context.Background(), Dev: d, Comp: &fakeCompiler{}, Graph: g, Space: sp,
			Reference: want, Warmup: 1, FlushL2: flushed, Store: st, Base: base, Workers: 2}
		out, err := autotune.Run(context.Background(), &sp.Cands, strat, ev, autotune.Options{Runs: runs})
		if err != nil || out.Best < 0 {
			t.Fatalf("tune (flush %v): %+v %v", flushed, out, err)
		}
		if _, err := autotune.Remeasure(ev, out, runs, 2); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range d.events {
			if strings.HasPrefix(e, fmt.Sprintf("zero %d ", 2*fakeL2)) {
				if e != flush {
					t.Errorf("a flush while a timer runs: %q", e)
				}
				n++
			}
		}
		return out, n
	}
	if _, n := tune(false); n != 0 {
		t.Errorf("an unflushed tune flushed %d times", n)
	}
	flushed, n := tune(true)
	cached := 0
	for _, tr := range flushed.Trials {
		if tr.Result.Cached {
			cached++
		}
	}
	// Each of the 4 candidates: runs timed passes; then 2 finalists for
	// runs rounds of one pass.
	if cached != 0 || n != len(sp.Plans)*runs+2*runs {
		t.Errorf("flushed tune: %d answered from the unflushed rows (want 0), %d flushes (want %d)", cached, n, len(sp.Plans)*runs+2*runs)
	}
	rows, err := st.Rows(store.Filter{Graph: base.Graph})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[bool]int{}
	for _, r := range rows {
		kinds[r.Flushed]++
		if r.Status == store.StatusOK && r.Runs != runs {
			t.Errorf("%s (flushed %v): %d passes, want %d", r.Plan, r.Flushed, r.Runs, runs)
		}
	}
	if kinds[false] != len(sp.Plans) || kinds[true] != len(sp.Plans) {
		t.Errorf("current rows by kind %v, want %d of each", kinds, len(sp.Plans))
	}
	b, _, ok, err := st.Best(base.Graph, base.GPU, autotune.CodeMatcher(d.Facts()))
	if err != nil || !ok || b.Flushed {
		t.Errorf("Best: %s flushed=%v %v %v, want an unflushed row", b.Plan, b.Flushed, ok, err)
	}
}
