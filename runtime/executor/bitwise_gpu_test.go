package executor_test

import (
	"testing"

	"github.com/tcgen/tcgen/graph"
)

// TestExecGPUTCBW runs the tcbw preset and the bitwise hybrids (tcbwPlans)
// on the GPU: small and skewed graphs, hubs, and RMAT 18, whose 2^18 + 1
// slice offsets take several tiles per scan block (1024 blocks of 256).
func TestExecGPUTCBW(t *testing.T) {
	dev, comp := openGPU(t)
	gs := append(smallGraphs(t),
		mustGraph(t, "rmat18", graph.DefaultRMAT(18)),
		mustGraph(t, "grid", graph.Grid{Rows: 300, Cols: 400, Diagonals: true}),
	)
	for _, tg := range gs {
		for _, p := range tcbwPlans() {
			if res := check(t, dev, comp, p, tg); res != nil {
				t.Logf("%-12s %-24s %12d triangles  slices %7.3f ms  kernel %8.3f ms", tg.name, res.Plan, res.Triangles, res.SlicesMs, res.KernelMs.Median)
			}
		}
	}
}
