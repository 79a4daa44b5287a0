package executor_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// largeSample is how many points of examples/spaces/large.yaml the sample
// tests take: enough to draw every strategy and order several times
// (pivot plans are a fifth of the space), few enough for CI's two cores.
const (
	largeCounted  = 48
	largeCompiled = 16
)

// largeSamplePoints expands the large space for an H100's or H200's target
// (the recording's) and draws n of its points with a fixed seed.
func largeSamplePoints(t *testing.T, n int, seed uint64) (*autotune.Space, []int) {
	t.Helper()
	sf, err := autotune.LoadSpace("../../examples/spaces/large.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sf.Expand(gen.Target{Arch: "sm_90", MaxSharedPerBlock: autotune.MaxSharedOptin})
	if err != nil {
		t.Fatal(err)
	}
	return sp, rand.New(rand.NewPCG(seed, 0)).Perm(len(sp.Plans))[:n]
}

// TestLargeSpaceCounts runs a seeded sample of the large space's points on
// the fake device (each class's kernels emulated on the CPU, launch
// arguments, lists and buffers as the GPU gets them) on a graph with hubs
// and one of even degrees: every point counts exactly what the CPU oracle
// counts.
func TestLargeSpaceCounts(t *testing.T) {
	sp, sample := largeSamplePoints(t, largeCounted, 20261201)
	var graphs []*graph.Graph
	for _, gg := range []graph.Generator{graph.DefaultRMAT(9), graph.Grid{Rows: 12, Cols: 15, Diagonals: true}} {
		g, _, err := graph.Generate(gg)
		if err != nil {
			t.Fatal(err)
		}
		graphs = append(graphs, g)
	}
	pivots := 0
	for _, i := range sample {
		if sp.Plans[i].HasPivot() {
			pivots++
		}
	}
	if pivots == 0 || pivots == len(sample) {
		t.Fatalf("the sample has %d pivot plans of %d: draw another", pivots, len(sample))
	}
	for _, i := range sample {
		p := sp.Plans[i]
		d := newFakeDevice(t, p, 1<<40)
		for gi, g := range graphs {
			res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, g, executor.RunOptions{Repeat: 1})
			if err != nil {
				t.Errorf("point %d (%s) on graph %d: %v", i, sp.Labels[i], gi, err)
				continue
			}
			if want := graph.Oracle(g); res.Triangles != want {
				t.Errorf("point %d (%s) on graph %d: %d triangles, the oracle counts %d", i, sp.Labels[i], gi, res.Triangles, want)
			}
		}
	}
}

// TestLargeSpaceCompiles compiles a seeded sample of the large space's
// points through NVRTC (skipped without it, a failure in CI), for the
// architecture of the GPUs it is recorded on.
func TestLargeSpaceCompiles(t *testing.T) {
	comp := testCompiler(t)
	sp, sample := largeSamplePoints(t, largeCompiled, 20261202)
	target := gen.Target{Arch: "compute_90", MaxSharedPerBlock: autotune.MaxSharedOptin}
	for _, i := range sample {
		out, err := gen.Generate(sp.Plans[i], target)
		if err != nil {
			t.Errorf("point %d (%s): %v", i, sp.Labels[i], err)
			continue
		}
		img, err := comp.Compile(gpu.CompileInput{Name: out.FileName, Source: out.Source, Headers: out.Headers, Arch: target.Arch, Options: out.Manifest.Options})
		if err != nil || len(img.Data) == 0 {
			t.Errorf("point %d (%s): %v (%d bytes)", i, sp.Labels[i], err, len(img.Data))
		}
	}
}
