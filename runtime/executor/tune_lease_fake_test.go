package executor_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/store"
)

// leaseSetup is a space, two fake devices with its plans (one per tune, as
// two processes would have), the graph and its exact count.
func leaseSetup(t *testing.T) (*autotune.Space, [2]*fakeDevice, *graph.Graph, uint64) {
	t.Helper()
	g, _, err := graph.Generate(graph.DefaultRMAT(9))
	if err != nil {
		t.Fatal(err)
	}
	sf, err := autotune.LoadSpace("../../examples/spaces/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	target := gen.Target{Arch: "sm_90", MaxSharedPerBlock: 227 << 10}
	sp, err := sf.Expand(target)
	if err != nil {
		t.Fatal(err)
	}
	var ds [2]*fakeDevice
	for k := range ds {
		for _, p := range sp.Plans {
			if ds[k] == nil {
				ds[k] = newFakeDevice(t, p, 1<<40)
				continue
			}
			out, err := gen.Generate(p, target)
			if err != nil {
				t.Fatal(err)
			}
			ds[k].addPlan(t, out)
		}
	}
	return sp, ds, g, graph.Oracle(g)
}

// TestTuneShared: two tunes of one graph on one store file, at once, share
// the candidates through leases: every candidate is measured exactly once in
// all, both end with the same best, and a lease left expired by a crashed
// owner is taken over.
func TestTuneShared(t *testing.T) {
	sp, ds, g, want := leaseSetup(t)
	path := filepath.Join(t.TempDir(), "tuning.db")
	base := store.Row{Graph: graph.Fingerprint(&g.CSR), GraphName: "rmat9", GPU: autotune.GPUKey(ds[0].Facts(), 13, 0),
		Version: "test", Space: sp.Cands.Name}
	var sts [2]*store.Store
	var evs [2]*autotune.GPU
	for k := range sts {
		st, err := store.Open(path) // a handle each, as two processes have
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		sts[k] = st
		evs[k] = &autotune.GPU{Ctx: context.Background(), Dev: ds[k], Comp: &fakeCompiler{}, Graph: g, Space: sp,
			Reference: want, Warmup: 1, Store: st, Base: base, Workers: 2, Owner: []string{"a:1:00", "b:2:00"}[k]}
	}
	// A crashed owner's lease on the first candidate, expired a second ago.
	crashed := store.LeaseKey{Graph: base.Graph, GPU: base.GPU, Version: base.Version, Plan: sp.Cands.Plans[0]}
	crashed.Code, _ = executor.CodeHash(ds[0].Facts(), sp.Plans[0], "")
	if _, ok, err := sts[0].Claim(crashed, "dead:9:00", -time.Second); !ok || err != nil {
		t.Fatalf("planting the crashed lease: %v %v", ok, err)
	}
	strat, _ := autotune.StrategyByName("exhaustive")
	var (
		wg   sync.WaitGroup
		outs [2]autotune.Outcome
		errs [2]error
	)
	for k := range evs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[k], errs[k] = autotune.Run(context.Background(), &sp.Cands, strat, evs[k], autotune.Options{Runs: 3})
		}()
	}
	wg.Wait()
	for k := range outs {
		if errs[k] != nil || outs[k].Stopped != autotune.StopExhausted || len(outs[k].Trials) != len(sp.Plans) {
			t.Fatalf("tune %d: %d trials of %d, %s, %v", k, len(outs[k].Trials), len(sp.Plans), outs[k].Stopped, errs[k])
		}
	}
	t.Logf("measured %d and %d of %d", outs[0].Evals, outs[1].Evals, len(sp.Plans))
	if n := outs[0].Evals + outs[1].Evals; n != len(sp.Plans) {
		t.Errorf("%d + %d measurements, want %d in all", outs[0].Evals, outs[1].Evals, len(sp.Plans))
	}
	rows, err := sts[0].Rows(store.Filter{Graph: base.Graph, History: true})
	if err != nil || len(rows) != len(sp.Plans) {
		t.Fatalf("%d rows, want one per candidate (%d): %v", len(rows), len(sp.Plans), err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.Plan] || r.Status != store.StatusOK || r.Triangles != want {
			t.Errorf("row %s: %s, %d triangles of %d, repeated %v", r.Plan, r.Status, r.Triangles, want, seen[r.Plan])
		}
		seen[r.Plan] = true
	}
	if outs[0].Score != outs[1].Score || outs[0].Best < 0 {
		t.Errorf("bests %d (%g ms) and %d (%g ms), want the same", outs[0].Best, outs[0].Score, outs[1].Best, outs[1].Score)
	}
	if b, _, ok, err := sts[1].Best(base.Graph, base.GPU, autotune.CodeMatcher(ds[1].Facts())); err != nil || !ok || b.MedianMs != outs[0].Score {
		t.Errorf("store's best %+v %v %v, want %g ms", b.Plan, ok, err, outs[0].Score)
	}
	if ls, err := sts[0].Leases(); err != nil || len(ls) != 0 {
		t.Errorf("leases left: %+v %v (the crashed one taken over and released)", ls, err)
	}
}

// TestTuneLeaseWait: an evaluation of a candidate another owner holds waits
// for that owner's row and answers from it; one whose holder never stores
// is measured after LeaseWait.
func TestTuneLeaseWait(t *testing.T) {
	sp, ds, g, want := leaseSetup(t)
	st, err := store.Open(filepath.Join(t.TempDir(), "tuning.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	base := store.Row{Graph: graph.Fingerprint(&g.CSR), GraphName: "rmat9", GPU: autotune.GPUKey(ds[0].Facts(), 13, 0),
		Version: "test", Space: sp.Cands.Name}
	ev := func(k int, owner string) *autotune.GPU {
		return &autotune.GPU{Ctx: context.Background(), Dev: ds[k], Comp: &fakeCompiler{}, Graph: g, Space: sp,
			Reference: want, Warmup: 1, Store: st, Base: base, Owner: owner, LeaseWait: 400 * time.Millisecond}
	}
	waiter, holder := ev(0, "w:1:00"), ev(1, "h:2:00")
	key := func(i int) store.LeaseKey {
		k := store.LeaseKey{Graph: base.Graph, GPU: base.GPU, Version: base.Version, Plan: sp.Cands.Plans[i]}
		k.Code, _ = executor.CodeHash(ds[0].Facts(), sp.Plans[i], "")
		return k
	}
	if _, ok, err := st.Claim(key(0), "h:2:00", time.Hour); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if !waiter.Busy(0) || holder.Busy(0) || waiter.Busy(1) {
		t.Errorf("Busy: %v %v %v, want only the other owner's live lease busy", waiter.Busy(0), holder.Busy(0), waiter.Busy(1))
	}
	done := make(chan autotune.Result)
	go func() {
		r, err := waiter.Evaluate(0, 3)
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	time.Sleep(100 * time.Millisecond) // the waiter is polling by now
	hr, err := holder.Evaluate(0, 3)
	if err != nil || hr.Cached {
		t.Fatalf("holder: %+v %v, want measured", hr, err)
	}
	if wr := <-done; !wr.Cached || wr.Score != hr.Score {
		t.Errorf("waiter: %+v, want the holder's row (%g ms)", wr, hr.Score)
	}
	// A hung holder: live lease, never a row.
	if _, ok, err := st.Claim(key(1), "hung:3:00", time.Hour); !ok || err != nil {
		t.Fatal(ok, err)
	}
	t0 := time.Now()
	r, err := waiter.Evaluate(1, 3)
	if err != nil || r.Cached || !r.OK || time.Since(t0) < 400*time.Millisecond {
		t.Errorf("past a hung lease: %+v %v after %v, want measured after LeaseWait", r, err, time.Since(t0))
	}
	if rows, _ := st.Rows(store.Filter{History: true}); len(rows) != 2 {
		t.Errorf("%d rows, want 2 (each candidate once)", len(rows))
	}
}
