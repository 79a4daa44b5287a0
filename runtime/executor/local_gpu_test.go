package executor_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/tests/gputest"
)

// TestLocalGPU runs every local plan (those whose prefix matches
// TCGEN_LOCAL_PLANS, a regular expression, when set), per vertex and per
// edge, on the small graphs, RMAT 16 to 18 and the shared datasets (all of
// them unless -short), and compares each count with the CPU oracle.
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
		plans := localPlansMatching(t, localPlans(t, o))
		t.Run(string(o), func(t *testing.T) {
			for _, tg := range gs {
				t.Run(tg.name, func(t *testing.T) {
					for _, p := range plans {
						if res := runLocalGPU(t, dev, comp, p, tg, 2, false); res != nil {
							t.Logf("%-24s %-6s %-30s %12d triangles  kernel %8.3f ms  download %7.3f ms", tg.name, o, res.Plan, res.Triangles, res.KernelMs.Median, res.LocalDownloadMs)
						}
					}
				})
			}
		})
	}
}

// TestLocalGPULarge runs every local plan, per vertex and per edge, on the
// RMAT graphs of the scales in TCGEN_RMAT_SCALES (e.g. "19 20 21 22") and
// compares each count with the CPU oracle; skipped when unset. One timed
// run a plan: the slowest, a thread per hub under id order, may take a
// minute on RMAT-22. A plan too large for the GPU (the dense bitmap's n^2
// bits from RMAT-21 on) is logged and skipped. Subtests output/graph, as
// TestLocalGPU's.
func TestLocalGPULarge(t *testing.T) {
	scales := strings.Fields(os.Getenv("TCGEN_RMAT_SCALES"))
	if len(scales) == 0 {
		t.Skip("set TCGEN_RMAT_SCALES (e.g. \"19 20 21 22\") to run the large RMAT local check")
	}
	dev, comp := openGPU(t)
	for _, o := range []ir.Output{ir.OutputVertex, ir.OutputEdge} {
		plans := localPlansMatching(t, localPlans(t, o))
		t.Run(string(o), func(t *testing.T) {
			for _, s := range scales {
				t.Run("rmat"+s, func(t *testing.T) {
					scale, err := strconv.Atoi(s)
					if err != nil {
						t.Fatal(err)
					}
					tg := mustGraph(t, "rmat"+s, graph.DefaultRMAT(scale))
					for _, p := range plans {
						if res := runLocalGPU(t, dev, comp, p, tg, 1, true); res != nil {
							t.Logf("%-8s %-6s %-30s %14d triangles  kernel %9.3f ms  download %8.3f ms", tg.name, o, res.Plan, res.Triangles, res.KernelMs.Median, res.LocalDownloadMs)
						}
					}
				})
			}
		})
	}
}

// localPlansMatching keeps the plans whose prefix matches the regular
// expression TCGEN_LOCAL_PLANS (all of them when it is unset), so that a
// GPU run can check one family's local kernels alone.
func localPlansMatching(t *testing.T, plans []ir.Plan) []ir.Plan {
	expr := os.Getenv("TCGEN_LOCAL_PLANS")
	if expr == "" {
		return plans
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		t.Fatalf("TCGEN_LOCAL_PLANS: %v", err)
	}
	var out []ir.Plan
	for _, p := range plans {
		if re.MatchString(p.Prefix) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatalf("TCGEN_LOCAL_PLANS %q matches no local plan", expr)
	}
	return out
}
