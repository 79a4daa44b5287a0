package executor_test

import (
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/tests/gputest"
)

// TestLocalGPU runs every local plan, per vertex and per edge, on the
// small graphs, RMAT 16 to 18 and the shared datasets (all of them unless
// -short), and compares each count with the CPU oracle.
func TestLocalGPU(t *testing.T) {
	dev, comp := openGPU(t)
	gs := append(localGraphs(t), smallGraphs(t)...)
	for _, s := range []int{16, 17, 18} {
		gs = append(gs, mustGraph(t, fmt.Sprintf("rmat%d", s), graph.DefaultRMAT(s)))
	}
	if dir := datasetDir(); dir != "" && !testing.Short() {
		files, _ := filepath.Glob(filepath.Join(dir, "*.gz"))
		sort.Strings(files)
		for _, f := range files {
			g, _, err := graph.Open(f, graph.ReadOptions{})
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			gs = append(gs, testGraph{name: filepath.Base(f), g: g, want: graph.Oracle(g)})
		}
	} else if gputest.Required() && !testing.Short() {
		t.Fatal("no datasets: set TCGEN_DATASETS")
	}
	// Subtests output/graph, so that a run can take a share of them
	// (-run 'TestLocalGPU/edge/\.' takes the datasets' per-edge counts).
	for _, o := range []ir.Output{ir.OutputVertex, ir.OutputEdge} {
		plans := localPlans(t, o)
		t.Run(string(o), func(t *testing.T) {
			for _, tg := range gs {
				t.Run(tg.name, func(t *testing.T) {
					for _, p := range plans {
						if res := runLocalGPU(t, dev, comp, p, tg); res != nil {
							t.Logf("%-24s %-6s %-30s %12d triangles  kernel %8.3f ms  download %7.3f ms", tg.name, o, res.Plan, res.Triangles, res.KernelMs.Median, res.LocalDownloadMs)
						}
					}
				})
			}
		})
	}
}
