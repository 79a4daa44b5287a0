package executor_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// spread is the slowest device's pass time over the fastest's.
func spread(res *executor.Result) float64 {
	lo, hi := math.Inf(1), 0.0
	for _, d := range res.Devices {
		lo, hi = min(lo, d.GPUMs.Median), max(hi, d.GPUMs.Median)
	}
	return hi / lo
}

// TestMultiRebalanceMoves: when the fake devices' passes cost more per
// vertex than the model says, the rebalance gives the first device (the
// many low-degree sources) fewer vertices; when they cost less, more. Two
// rounds bring the devices' times close together, each round's count is
// the oracle's, and nothing is allocated or written again.
func TestMultiRebalanceMoves(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(12))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	for _, f := range []string{"pivot-one", "pivot"} {
		p, err := ir.Load("../../examples/" + f + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			perVertex float64
			left      bool // the first cut moves to lower ids
		}{{10, true}, {0, false}} {
			for _, nd := range []int{2, 3} {
				t.Run(fmt.Sprintf("%s/%g/%d", f, tc.perVertex, nd), func(t *testing.T) {
					rebalanceMoves(t, p, g, want, nd, tc.perVertex, tc.left)
				})
			}
		}
	}
}

func rebalanceMoves(t *testing.T, p ir.Plan, g *graph.Graph, want uint64, nd int, perVertex float64, left bool) {
	devs := make([]gpu.Device, nd)
	fakes := make([]*fakeDevice, nd)
	ords := make([]int, nd)
	for k := range devs {
		fakes[k] = newFakeDevice(t, p, 1<<40)
		fakes[k].passMs = fakeSplitCost(fakes[k], perVertex)
		devs[k], ords[k] = fakes[k], k
	}
	ctx := context.Background()
	mp, err := executor.PrepareMulti(ctx, devs, ords, &fakeCompiler{}, p, g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer mp.Close()
	run := func() *executor.Result {
		t.Helper()
		res, err := mp.Run(ctx, executor.RunOptions{Repeat: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res.Triangles != want {
			t.Fatalf("%d triangles, want %d: %+v", res.Triangles, want, res.Devices)
		}
		return res
	}
	res0 := run()
	before := uploads(fakes)
	r1 := mp.Rebalance(res0)
	res1 := run()
	r2 := mp.Rebalance(res1)
	res2 := run()
	if after := uploads(fakes); after != before {
		t.Errorf("the rebalances allocated or wrote: %+v, then %+v", before, after)
	}
	if r1.Why != "" || r2.Why != "" {
		t.Fatalf("not rebalanced: %q, %q", r1.Why, r2.Why)
	}
	if moved := r1.After[1] < r1.Before[1]; moved != left || r1.After[1] == r1.Before[1] {
		t.Errorf("the first cut went from %d to %d; want it to move left: %v", r1.Before[1], r1.After[1], left)
	}
	for k := range nd {
		if r1.MeasuredMs[k] != res0.Devices[k].GPUMs.Median || r2.MeasuredMs[k] != res1.Devices[k].GPUMs.Median {
			t.Errorf("device %d: measured %g and %g, the runs said %g and %g", k, r1.MeasuredMs[k], r2.MeasuredMs[k], res0.Devices[k].GPUMs.Median, res1.Devices[k].GPUMs.Median)
		}
	}
	// Each round brings the devices closer. A density per device fits a
	// cost far from the model (many times off) in a few rounds: the
	// slowest within 50% of the fastest after two, and within 2% where the
	// first cut was within 2x.
	s0, s1, s2 := spread(res0), spread(res1), spread(res2)
	if s0 < 1.05 || s1 >= s0 || s2 > s1+1e-3 || s2 > 1.5 || (s0 < 2 && s2 > 1.02) {
		t.Errorf("slowest over fastest: %.3f before, %.3f, then %.3f after two rounds (cuts %v, %v, %v)", s0, s1, s2, r1.Before, r1.After, r2.After)
	}
	t.Logf("slowest over fastest: %.3f, %.3f, %.3f; first cuts %v, %v, %v", s0, s1, s2, r1.Before, r1.After, r2.After)
	if len(res2.Rebalance) != 2 || res2.Devices[0].PredictedMs != r2.PredictedMs[0] {
		t.Errorf("the result carries %d rounds, predicted %g", len(res2.Rebalance), res2.Devices[0].PredictedMs)
	}
}
