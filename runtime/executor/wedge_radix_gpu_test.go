package executor_test

import (
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// radixLog logs a run's wedge/radix classes.
func radixLog(t *testing.T, tg testGraph, p ir.Plan, res *executor.Result) {
	t.Helper()
	var per []string
	for _, c := range res.PerClass {
		if rs := c.Radix; rs != nil {
			per = append(per, fmt.Sprintf("%s: %d wedges, %d per batch (%d MiB), %d batches, %d levels (deepest %d), %.3f ms",
				c.Name, rs.Wedges, rs.Capacity, rs.Bytes>>20, rs.Batches, rs.Levels, rs.MaxLevel, c.Ms.Median))
		}
	}
	t.Logf("%-26s %-22s %12d triangles  kernel %9.3f ms  [%s]", tg.name, p.Prefix, res.Triangles, res.KernelMs.Median, strings.Join(per, "; "))
}

// TestRadixGPU runs the wedge/radix plans of wedge_radix_test.go (every radix
// width, thresholds, blocks, all three orders, hybrids, a guard) on the
// radix graphs and the executor's small graphs, and the first four (the
// preset, id order, unrelabelled degree order, one bit per level) on the
// shared datasets, in one batch and in about 7 (batches ending inside
// vertices), against the oracle.
func TestRadixGPU(t *testing.T) {
	dev, comp := openGPU(t)
	defer executor.SetRadixMaxBatch(executor.SetRadixMaxBatch(0))
	gs := append(radixGraphs(t), smallGraphs(t)...)
	all := len(gs)
	if dir := datasetDir(); dir != "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*.gz"))
		sort.Strings(files)
		for _, f := range files {
			g, _, err := graph.Open(f, graph.ReadOptions{})
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			gs = append(gs, testGraph{name: filepath.Base(f), g: g, want: graph.Oracle(g)})
		}
	}
	for i, tg := range gs {
		ps := radixPlans()
		if i >= all {
			ps = ps[:4]
		}
		for _, p := range ps {
			w := wedgesOf(p, tg.g)
			for _, parts := range []uint64{1, 7} {
				executor.SetRadixMaxBatch(max(1, w/parts+3))
				if res := check(t, dev, comp, p, tg); res != nil && parts == 7 {
					radixLog(t, tg, p, res)
				}
			}
		}
	}
}

// TestRadixGPULarge runs the preset on the RMAT scales of TCGEN_RMAT_SCALES
// (e.g. "16 18 20 22"; skipped when unset) with the automatic budget (half
// of the free memory: RMAT-22's 7.2e9 candidates in 2 batches on an H200, 4
// on an H100) and with budget_mib = TCGEN_RADIX_BUDGET_MIB (default 4096:
// dozens of batches).
func TestRadixGPULarge(t *testing.T) {
	scales := strings.Fields(os.Getenv("TCGEN_RMAT_SCALES"))
	if len(scales) == 0 {
		t.Skip("set TCGEN_RMAT_SCALES (e.g. \"16 18 20 22\") to run the large RMAT check")
	}
	mib := int64(4096)
	if s := os.Getenv("TCGEN_RADIX_BUDGET_MIB"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		mib = v
	}
	dev, comp := openGPU(t)
	pre, _ := ir.Preset("radixbin")
	small := pre.Clone()
	small.Prefix = fmt.Sprintf("radixbin_%dmib", mib)
	small.Classes[0].Params[ir.ParamBudgetMiB] = mib
	for _, s := range scales {
		scale, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		tg := mustGraph(t, "rmat"+s, graph.DefaultRMAT(scale))
		for _, p := range []ir.Plan{pre, small} {
			if res := check(t, dev, comp, p, tg); res != nil {
				radixLog(t, tg, p, res)
			}
		}
	}
}
