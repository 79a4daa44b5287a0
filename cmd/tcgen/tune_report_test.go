package main

import (
	"math"
	"testing"
	"time"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/store"
)

// TestTuneTracer: on the GPU an evaluation costs the wall time since the
// one before, a store answer nothing; the baselines are the first
// evaluations of their indices; screenings are not full.
func TestTuneTracer(t *testing.T) {
	sp := &autotune.Space{Cands: autotune.Candidates{Plans: []string{"a", "b", "c"}}, Labels: []string{"A", "B", "C"}}
	tr := &tuneTracer{sp: sp, runs: 10, base: []int{2}}
	tr.cost = tr.measuredCost
	seen := 0
	obs := tr.observe(func(autotune.Trial) { seen++ })
	ok := func(ms float64) autotune.Result {
		return autotune.Result{OK: true, Score: ms, Samples: []float64{ms, ms, ms}}
	}
	for _, tc := range []autotune.Trial{
		{Index: 2, Runs: 10, Result: ok(3), N: 1, Elapsed: 2 * time.Second},
		{Index: 0, Runs: 1, Result: ok(5), N: 2, Elapsed: 2500 * time.Millisecond},
		{Index: 1, Runs: 10, Result: autotune.Result{Score: math.Inf(1), Reason: "wrong", Cached: true}, N: 3, Elapsed: 2600 * time.Millisecond},
		{Index: 2, Runs: 10, Result: ok(3), N: 4, Elapsed: 4 * time.Second},
	} {
		obs(tc)
	}
	if seen != 4 || len(tr.evals) != 4 {
		t.Fatalf("%d observed, %d traced", seen, len(tr.evals))
	}
	want := []struct {
		sec            float64
		full, ok, base bool
		plan           string
	}{{2, true, true, true, "c"}, {0.5, false, true, false, "a"}, {0, true, false, false, "b"}, {1.4, true, true, false, "c"}}
	for i, w := range want {
		e := tr.evals[i]
		if math.Abs(e.Seconds-w.sec) > 1e-9 || e.Full != w.full || e.OK != w.ok || e.Baseline != w.base || e.Plan != w.plan {
			t.Errorf("evaluation %d: %+v, want %+v", i+1, e, w)
		}
	}
	if e := tr.evals[0]; e.MedianMs != 3 || e.CILoMs != 3 || e.CIHiMs != 3 || e.Label != "C" {
		t.Errorf("first evaluation %+v", e)
	}
}

func TestRecordedCost(t *testing.T) {
	r := store.Row{Status: store.StatusOK, CompileMs: 100, PrepareMs: 20, Warmup: 3, MedianMs: 2, Samples: []float64{1, 2, 3, 4}}
	// 100 + 20 + (1 verify + 3 warm-ups) x 2 + the first 3 passes (6).
	if got := recordedCost(r, 3); math.Abs(got-0.134) > 1e-12 {
		t.Errorf("cost %v s, want 0.134", got)
	}
	r.Samples = nil // 10 passes at the median
	if got := recordedCost(r, 10); math.Abs(got-0.148) > 1e-12 {
		t.Errorf("cost without samples %v s, want 0.148", got)
	}
	if got := recordedCost(store.Row{Status: store.StatusCompile, CompileMs: 50}, 10); got != 0.05 {
		t.Errorf("failed compile %v s, want 0.05", got)
	}
}
