package executor_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// TestPrepareShareTiles: the shares k of parts, each prepared alone on its
// own fake device (as the ranks of count --mpi prepare them), count the
// oracle's total between them, and their fractions of the modelled work
// add up to 1; for every family of plan and on graphs with hubs and with
// fewer items than shares.
func TestPrepareShareTiles(t *testing.T) {
	graphs := map[string]graph.Generator{
		"rmat10": graph.DefaultRMAT(10),
		"star":   graph.Star{Leaves: 60},
		"wheel":  graph.Wheel{Rim: 200},
		"k4":     graph.Complete{N: 4},
	}
	var plans []ir.Plan
	for _, f := range []string{"default", "pivot", "pivot-one", "dense", "small", "two-class"} {
		p, err := ir.Load("../../examples/" + f + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	for name, gg := range graphs {
		g, _, err := graph.Generate(gg)
		if err != nil {
			t.Fatal(err)
		}
		want := graph.Oracle(g)
		for _, p := range plans {
			for _, parts := range []int{1, 3} {
				t.Run(fmt.Sprintf("%s/%s/%d", name, p.Prefix, parts), func(t *testing.T) {
					var sum uint64
					share := 0.0
					for k := range parts {
						d := newFakeDevice(t, p, 1<<40)
						mp, err := executor.PrepareShare(context.Background(), d, 7, &fakeCompiler{}, p, g, executor.RunOptions{}, k, parts)
						if err != nil {
							t.Fatalf("share %d: %v", k, err)
						}
						res, err := mp.Run(context.Background(), executor.RunOptions{Repeat: 2})
						if cerr := mp.Close(); err == nil {
							err = cerr
						}
						if err != nil {
							t.Fatalf("share %d: %v", k, err)
						}
						if len(res.Devices) != 1 || res.Devices[0].Ordinal != 7 || res.Devices[0].Triangles != res.Triangles {
							t.Fatalf("share %d: devices %+v for %d triangles", k, res.Devices, res.Triangles)
						}
						sum += res.Triangles
						share += res.Devices[0].Share
						if len(d.live) != 0 || d.loaded != 0 {
							t.Errorf("share %d: %d buffers, %d modules left", k, len(d.live), d.loaded)
						}
					}
					if sum != want {
						t.Errorf("shares sum to %d triangles, want %d", sum, want)
					}
					if math.Abs(share-1) > 1e-9 && want > 0 {
						t.Errorf("shares' fractions sum to %g", share)
					}
				})
			}
		}
	}
}

// TestPrepareShareRefuses: a share outside [0, parts) is refused.
func TestPrepareShareRefuses(t *testing.T) {
	g, _, err := graph.Generate(graph.Complete{N: 5})
	if err != nil {
		t.Fatal(err)
	}
	p, err := ir.Load("../../examples/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]int{{3, 3}, {-1, 2}, {0, 0}} {
		_, err := executor.PrepareShare(context.Background(), newFakeDevice(t, p, 1<<40), 0, &fakeCompiler{}, p, g, executor.RunOptions{}, c[0], c[1])
		if want := fmt.Sprintf("plan %s: share %d of %d", p.Name(), c[0], c[1]); err == nil || err.Error() != want {
			t.Errorf("share %d of %d: error %v, want %q", c[0], c[1], err, want)
		}
	}
}

// TestPrepareShareRebalance: ranks that each prepared their share alone
// and recut from every rank's gathered pass time (RebalanceMeasured) cut
// exactly as one process splitting over as many devices does from the
// same times (Rebalance), each keeps its own range of the new cuts, and
// their counts still add up to the oracle's.
func TestPrepareShareRebalance(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(11))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	p, err := ir.Load("../../examples/pivot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const parts = 3
	ctx := context.Background()
	ranks := make([]*executor.MultiPrepared, parts)
	ms := make([]float64, parts)
	for k := range parts {
		d := newFakeDevice(t, p, 1<<40)
		d.passMs = fakeSplitCost(d, 10) // a per-vertex cost the model underrates: the cuts move
		mp, err := executor.PrepareShare(ctx, d, k, &fakeCompiler{}, p, g, executor.RunOptions{}, k, parts)
		if err != nil {
			t.Fatalf("rank %d: %v", k, err)
		}
		defer mp.Close()
		res, err := mp.Run(ctx, executor.RunOptions{Repeat: 1})
		if err != nil {
			t.Fatalf("rank %d: %v", k, err)
		}
		ranks[k], ms[k] = mp, res.GPUMs.Median
	}
	devs := make([]gpu.Device, parts)
	for k := range devs {
		devs[k] = newFakeDevice(t, p, 1<<40)
	}
	one, err := executor.PrepareMulti(ctx, devs, []int{0, 1, 2}, &fakeCompiler{}, p, g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	ref := one.RebalanceMeasured(ms)
	if ref.Why != "" || slices.Equal(ref.Before, ref.After) {
		t.Fatalf("the reference rebalance did not recut: %+v", ref)
	}
	var sum uint64
	for k, mp := range ranks {
		r := mp.RebalanceMeasured(ms)
		if !slices.Equal(r.Before, ref.Before) || !slices.Equal(r.After, ref.After) {
			t.Errorf("rank %d cut %v -> %v, one process %v -> %v", k, r.Before, r.After, ref.Before, ref.After)
		}
		res, err := mp.Run(ctx, executor.RunOptions{Repeat: 1})
		if err != nil {
			t.Fatalf("rank %d after the rebalance: %v", k, err)
		}
		if d := res.Devices[0]; d.Items != ref.After[k+1]-ref.After[k] || d.PredictedMs != ref.PredictedMs[k] {
			t.Errorf("rank %d: %d items (predicted %g ms), want its range of %v (%g ms)", k, d.Items, d.PredictedMs, ref.After, ref.PredictedMs[k])
		}
		sum += res.Triangles
	}
	if sum != want {
		t.Errorf("the ranks count %d triangles after the rebalance, want %d", sum, want)
	}
}
