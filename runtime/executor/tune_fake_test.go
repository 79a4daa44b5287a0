package executor_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/store"
)

// TestTuneFake runs the tuner's GPU evaluator on the fake device (which
// computes each class's triangles on the CPU), so CI checks, without a GPU:
// every measurement is verified before it is timed and lands in the store at
// once; Ctrl-C in the middle loses no finished measurement; a second tune
// resumes from the store; a wrong reference is recorded as wrong and never
// timed, and does not poison a later tune with the right one.
func TestTuneFake(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(9))
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
	base := store.Row{Graph: graph.Fingerprint(&g.CSR), GraphName: "rmat9", Features: graph.ComputeFeatures(g),
		GPU: autotune.GPUKey(d.Facts(), 13, 0), Version: "test", Space: sp.Cands.Name}
	eval := func(ctx context.Context, ref uint64) *autotune.GPU {
		return &autotune.GPU{Ctx: ctx, Dev: d, Comp: &fakeCompiler{}, Graph: g, Space: sp, Reference: ref,
			Warmup: 1, Store: st, Base: base, Workers: 3}
	}
	strat, _ := autotune.StrategyByName("random")

	// Interrupted after 7 measurements: all 7 are in the store.
	ctx, cancel := context.WithCancel(context.Background())
	out, err := autotune.Run(ctx, &sp.Cands, strat, eval(ctx, want), autotune.Options{Runs: 3, Seed: 5,
		Observe: func(tr autotune.Trial) {
			if tr.N == 7 {
				cancel()
			}
		}})
	if err != nil || out.Stopped != autotune.StopInterrupted || out.Evals != 7 {
		t.Fatalf("interrupted run: %+v, %v", out, err)
	}
	rows, err := st.Rows(store.Filter{Graph: base.Graph})
	if err != nil || len(rows) != 7 {
		t.Fatalf("%d rows after an interrupted run of 7 measurements: %v", len(rows), err)
	}
	for _, r := range rows {
		if r.Status != store.StatusOK || r.Triangles != want || r.Reference != want || r.Runs != 3 || len(r.Samples) != 3 {
			t.Errorf("row %s: %s %q, %d triangles of %d, %d runs", r.Plan, r.Status, r.Reason, r.Triangles, want, r.Runs)
		}
	}

	// Resumed with the same seed: the 7 come from the store (free), then 5 more.
	out, err = autotune.Run(context.Background(), &sp.Cands, strat, eval(context.Background(), want),
		autotune.Options{Runs: 3, Seed: 5, Budget: autotune.Budget{Evals: 5}})
	if err != nil || out.Evals != 5 || len(out.Trials) != 12 {
		t.Fatalf("resumed: %d measured, %d trials, %v; want 5 after 7 from the store", out.Evals, len(out.Trials), err)
	}
	for _, tr := range out.Trials[:7] {
		if !tr.Result.Cached {
			t.Errorf("trial %d (%s) measured again", tr.N, sp.Cands.Plans[tr.Index])
		}
	}
	if out.Best < 0 {
		t.Fatal("no best")
	}
	// Every row carries the hash of its plan's code as rebuilt from its
	// spec, so count's choice (Best with CodeMatcher) skips none of them.
	match := autotune.CodeMatcher(d.Facts())
	rows, _ = st.Rows(store.Filter{Graph: base.Graph})
	for _, r := range rows {
		if !match(r) {
			t.Errorf("row %s (code %q) is not current", r.Plan, r.Code)
		}
	}
	if _, skipped, ok, err := st.Best(base.Graph, base.GPU, match); err != nil || !ok || skipped != 0 {
		t.Errorf("store's best: %v, %d skipped, %v", ok, skipped, err)
	}

	// A newer row whose code hash differs from what this build generates
	// (measured by a build with an edited template) is passed over: Best
	// skips it, and a resumed tune answers the plan from the row of the
	// code it generates, not from the other code's (faster) one.
	first := sp.Cands.Plans[out.Trials[0].Index]
	cur, ok, err := st.Get(base.Graph, base.GPU, base.Version, first)
	if err != nil || !ok {
		t.Fatalf("row %s: %v %v", first, ok, err)
	}
	stale := cur
	stale.Code, stale.MedianMs, stale.Samples = "0123456789abcdef", 1e-9, []float64{1e-9, 1e-9, 1e-9}
	if err := st.Put(stale); err != nil {
		t.Fatal(err)
	}
	if r, skipped, _, _ := st.Best(base.Graph, base.GPU, autotune.CodeMatcher(d.Facts())); r.Plan == first && r.Code != cur.Code || skipped != 1 {
		t.Errorf("store's best %s (%d skipped): the stale row was used", r.Plan, skipped)
	}
	out, err = autotune.Run(context.Background(), &sp.Cands, strat, eval(context.Background(), want),
		autotune.Options{Runs: 3, Seed: 5, Budget: autotune.Budget{Evals: 1}})
	if err != nil || len(out.Trials) == 0 || sp.Cands.Plans[out.Trials[0].Index] != first ||
		!out.Trials[0].Result.Cached || out.Trials[0].Result.Score != cur.MedianMs {
		t.Fatalf("after a stale row: %+v, %v; want %s answered from its current row (%g ms)", out.Trials[:min(len(out.Trials), 2)], err, first, cur.MedianMs)
	}
	if r, _, _ := st.Get(base.Graph, base.GPU, base.Version, first); r.Code != stale.Code {
		t.Errorf("Get: code %s, want the newest row's (the stale one)", r.Code)
	}

	// A wrong reference: every candidate is "wrong", none timed ...
	out, err = autotune.Run(context.Background(), &sp.Cands, strat, eval(context.Background(), want+1),
		autotune.Options{Runs: 3, Seed: 9, Budget: autotune.Budget{Evals: 4}})
	if err != nil || out.Best != -1 || out.Evals != 4 {
		t.Fatalf("wrong reference: %+v, %v", out, err)
	}
	wrong := 0
	rows, _ = st.Rows(store.Filter{Graph: base.Graph})
	for _, r := range rows {
		if r.Status == store.StatusWrong {
			wrong++
			if r.Runs != 0 || len(r.Samples) != 0 || r.Reference != want+1 {
				t.Errorf("wrong row %s timed: %d runs", r.Plan, r.Runs)
			}
		}
	}
	if wrong == 0 {
		t.Error("no wrong rows stored")
	}
	// ... and the right reference measures them again instead of trusting those rows.
	out, err = autotune.Run(context.Background(), &sp.Cands, strat, eval(context.Background(), want),
		autotune.Options{Runs: 3, Seed: 9, Budget: autotune.Budget{Evals: 4}})
	if err != nil || out.Best < 0 {
		t.Fatalf("right reference after a wrong one: %+v, %v", out, err)
	}
	rows, _ = st.Rows(store.Filter{Graph: base.Graph, Status: store.StatusWrong})
	if len(rows) >= wrong {
		t.Errorf("%d wrong rows left of %d: the right reference did not replace them", len(rows), wrong)
	}
}
