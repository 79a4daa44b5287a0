package autotune_test

import (
	"context"
	"github.com/tcgen/tcgen/runtime/executor"
	"path/filepath"
	"testing"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/store"
	"github.com/tcgen/tcgen/tests/gputest"
)

// TestGPUTune tunes the small space on an RMAT graph on the GPU: every
// measurement is verified against the oracle before it is timed and lands in
// the store; a second run is answered from the store (resumed) without the
// GPU; a wrong reference makes every candidate fail as "wrong", never timed.
func TestGPUTune(t *testing.T) {
	opts := cuda.Options{NVRTCPath: gputest.NVRTCPath()}
	dev := gputest.Open(t, func() (*cuda.Device, error) { return cuda.Open(0, opts) })
	inner := gputest.Compiler(t, func() (*cuda.Compiler, error) { return cuda.NewCompiler(opts) }, cuda.ErrNoNVRTC)
	comp := &cuda.CachingCompiler{Inner: inner, Dir: t.TempDir()}
	g, _, err := graph.Generate(graph.DefaultRMAT(12))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	sf, err := autotune.LoadSpace("../examples/spaces/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sf.Expand(executor.Target(dev.Facts(), ""))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "tuning.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	major, minor := comp.Version()
	base := store.Row{Graph: graph.Fingerprint(&g.CSR), GraphName: "rmat12", Features: graph.ComputeFeatures(g),
		GPU: autotune.GPUKey(dev.Facts(), major, minor), Version: "test", Space: sp.Cands.Name}
	ev := func(ref uint64, b store.Row) *autotune.GPU {
		return &autotune.GPU{Ctx: context.Background(), Dev: dev, Comp: comp, Graph: g, Space: sp, Reference: ref,
			Warmup: 1, Store: st, Base: b, Workers: 4}
	}
	strat, _ := autotune.StrategyByName("random")
	opt := autotune.Options{Runs: 3, Seed: 7, Budget: autotune.Budget{Evals: 12}}
	out, err := autotune.Run(context.Background(), &sp.Cands, strat, ev(want, base), opt)
	if err != nil || out.Best < 0 || out.Evals != 12 {
		t.Fatalf("%+v, %v", out, err)
	}
	rows, err := st.Rows(store.Filter{Graph: base.Graph})
	if err != nil || len(rows) != 12 {
		t.Fatalf("%d rows in the store, want 12: %v", len(rows), err)
	}
	for _, r := range rows {
		if r.Status != store.StatusOK || r.Triangles != want || r.Runs != 3 || len(r.Samples) != 3 || r.MedianMs <= 0 {
			t.Errorf("row %s: %s %q, %d triangles (want %d), %d runs, %v ms", r.Plan, r.Status, r.Reason, r.Triangles, want, r.Runs, r.MedianMs)
		}
	}
	// Resumed: the same search is answered from the store, then goes on.
	opt.Budget.Evals = 4
	out2, err := autotune.Run(context.Background(), &sp.Cands, strat, ev(want, base), opt)
	if err != nil || out2.Evals != 4 || len(out2.Trials) != 16 {
		t.Fatalf("resumed: %d evaluations, %d trials, %v; want 4 new after 12 from the store", out2.Evals, len(out2.Trials), err)
	}
	for _, tr := range out2.Trials[:12] {
		if !tr.Result.Cached {
			t.Errorf("trial %d measured again", tr.N)
		}
	}
	// A wrong reference: verified before timing, every candidate fails.
	bad := base
	bad.Graph = "wrong-reference"
	out3, err := autotune.Run(context.Background(), &sp.Cands, strat, ev(want+1, bad), autotune.Options{Runs: 3, Budget: autotune.Budget{Evals: 3}})
	if err != nil || out3.Best != -1 {
		t.Fatalf("wrong reference: %+v, %v", out3, err)
	}
	rows, _ = st.Rows(store.Filter{Graph: "wrong-reference"})
	for _, r := range rows {
		if r.Status != store.StatusWrong || r.Runs != 0 || len(r.Samples) != 0 {
			t.Errorf("wrong reference: row %s %s, %d runs", r.Plan, r.Status, r.Runs)
		}
	}
}
