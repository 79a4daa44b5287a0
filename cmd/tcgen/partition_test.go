package main

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
)

// TestPartitionNotice: the notice of a count in partitions is one line
// naming the plan that did not fit, why, the plan that runs and what a
// pass moves; the text output adds the pass's copies and kernels.
func TestPartitionNotice(t *testing.T) {
	def, err := PlanArg{}.plan()
	if err != nil {
		t.Fatal(err)
	}
	pp, err := PlanArg{Spec: partitionSpec}.plan()
	if err != nil {
		t.Fatal(err)
	}
	st := executor.PartitionStats{CapBytes: 600 << 20, Blocks: 3, Chunks: 20, Pairs: 31, BytesCopied: 2500 << 20, Family: "merge",
		CopyMs: executor.Timing{Median: 90}, KernelMs: executor.Timing{Median: 110}, OverlapMs: 5}
	got := partitionNotice(def, "needs 1200 MiB of device memory, H100 has 600 MiB usable", pp, st, 590<<20)
	want := fmt.Sprintf("count: %s cannot take this graph (needs 1200 MiB of device memory, H100 has 600 MiB usable); counting in partitions with %s (examples/partition.yaml, the tiled edge merge): 3 blocks, 20 chunks, 31 pairs, 2500 MiB copied a pass, 590 MiB of 600 MiB of device memory", def.Name(), pp.Name())
	if got != want || strings.Contains(got, "\n") {
		t.Errorf("notice\n%s\nwant\n%s", got, want)
	}
	var out bytes.Buffer
	printPartition(&out, &countResult{GPU: &executor.Result{Partition: &st}})
	if w := "partitions\tthe tiled edge merge; 3 blocks, 20 chunks, 31 pairs; 2500 MiB copied a pass in 90.0000 ms, kernels 110.0000 ms, overlapped 5.0000 ms (medians)\n"; out.String() != w {
		t.Errorf("printed %q, want %q", out.String(), w)
	}
	for _, c := range []struct {
		core int
		want string
	}{{8192, "the pivot, its core of 8192 ids"}, {0, "the pivot, no core"}} {
		if got := partitionDesign(executor.PartitionStats{Family: "pivot", CoreIDs: c.core}); got != c.want {
			t.Errorf("core %d: %q, want %q", c.core, got, c.want)
		}
	}
	c := &CountCmd{}
	if !c.partitionable(&executor.TooLargeError{}) || c.partitionable(fmt.Errorf("other")) {
		t.Error("partitionable: a too large plan is, another failure is not")
	}
	c.PerVertex = "v.tsv"
	if c.partitionable(&executor.TooLargeError{}) || c.localOutput() != ir.OutputVertex {
		t.Error("partitionable: a local output is not")
	}
}

// TestPartitionPlanFollowsDefault: for graphs on either side of every
// boundary of the default plan's guard, the partition plan takes the pivot
// exactly where the default does, with the same class and core, and the
// default's tiled edge merge (examples/small.yaml's class) everywhere
// else, also where the default takes a thread per vertex or dense rows.
// The features are those the guards test (a guard on a feature the map
// lacks fails the test): chooseVariant measures every one of them.
func TestPartitionPlanFollowsDefault(t *testing.T) {
	def, err := PlanArg{}.plan()
	if err != nil {
		t.Fatal(err)
	}
	part, err := PlanArg{Spec: partitionSpec}.plan()
	if err != nil {
		t.Fatal(err)
	}
	small, err := PlanArg{Spec: "small.yaml"}.plan()
	if err != nil {
		t.Fatal(err)
	}
	pivots, dense := 0, 0
	for _, dram := range []float64{3352, 4814} { // an H100's bandwidth, an H200's
		for _, edges := range []float64{1e5, 999999, 1e6, 1999999, 2e6, 5e6, 31999999, 32e6, 1e9} {
			for _, wpe := range []float64{5, 20.9, 21, 39.9, 40, 160} {
				for _, avg := range []float64{4, 12.9, 13, 16.4, 16.5, 29.9, 30, 60} {
					for _, cv := range []float64{0.1, 0.29, 0.3, 0.99, 1, 10} {
						for _, n := range []float64{16384, 16385} { // dense rows' bound
							f := map[string]float64{ir.FeatureEdges: edges, ir.FeatureWedges: wpe, ir.FeatureAvgDegree: avg, ir.FeatureDegreeCV: cv,
								ir.FeatureVertices:  n,
								ir.FeatureWords:     1 / cv / 20, // local ids (below 0.3) on the even graphs
								ir.FeatureMaxOutDeg: 2 * avg,     // short out-lists (below 33) up to average degree 16
								ir.FeatureDRAM:      dram}
							dv, pv := pickVariant(t, def, f), pickVariant(t, part, f)
							switch {
							case dv.Classes[0].Iterator == ir.IterPivot:
								pivots++
								if !reflect.DeepEqual(dv.Classes, pv.Classes) || dv.Core != pv.Core {
									t.Errorf("%v: the default takes %+v (core %d), the partition plan %+v (core %d)", f, dv.Classes, dv.Core, pv.Classes, pv.Core)
								}
								continue
							case dv.Classes[0].Iterator == ir.IterEdge && dv.Classes[0].Intersection == ir.Bitmap:
								dense++ // dense rows (a helper kernel, n x n bits): the edge merge in partitions
							}
							if !reflect.DeepEqual(pv.Classes, small.Classes) || pv.Core != 0 {
								t.Errorf("%v: the default takes %s/%s, the partition plan %+v, want the tiled edge merge", f, dv.Classes[0].Iterator, dv.Classes[0].Intersection, pv.Classes)
							}
						}
					}
				}
			}
		}
	}
	if pivots == 0 || dense == 0 {
		t.Errorf("the default took the pivot %d times and dense rows %d times; want both", pivots, dense)
	}
}

// pickVariant is the variant of p's guard that a graph of features f
// takes: the first whose range holds the guard's feature and whose
// conditions hold (executor's chooseVariant).
func pickVariant(t *testing.T, p ir.Plan, f map[string]float64) ir.Variant {
	t.Helper()
	if p.Guard == nil {
		t.Fatalf("plan %s has no guard", p.Name())
	}
	i, err := p.Guard.Choose(func(feature string) (float64, error) {
		x, ok := f[feature]
		if !ok {
			return 0, fmt.Errorf("feature %s not given", feature)
		}
		return x, nil
	})
	if err != nil {
		t.Fatalf("plan %s: %v", p.Name(), err)
	}
	return p.Guard.Variants[i]
}
