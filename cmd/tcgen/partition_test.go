package main

import (
	"bytes"
	"fmt"
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
	st := executor.PartitionStats{CapBytes: 600 << 20, Blocks: 3, Chunks: 20, Pairs: 31, BytesCopied: 2500 << 20,
		CopyMs: executor.Timing{Median: 90}, KernelMs: executor.Timing{Median: 110}, OverlapMs: 5}
	got := partitionNotice(def, "needs 1200 MiB of device memory, H100 has 600 MiB usable", pp, st, 590<<20)
	want := fmt.Sprintf("count: %s cannot take this graph (needs 1200 MiB of device memory, H100 has 600 MiB usable); counting in partitions with %s (examples/small.yaml): 3 blocks, 20 chunks, 31 pairs, 2500 MiB copied a pass, 590 MiB of 600 MiB of device memory", def.Name(), pp.Name())
	if got != want || strings.Contains(got, "\n") {
		t.Errorf("notice\n%s\nwant\n%s", got, want)
	}
	var out bytes.Buffer
	printPartition(&out, &countResult{GPU: &executor.Result{Partition: &st}})
	if w := "partitions\t3 blocks, 20 chunks, 31 pairs; 2500 MiB copied a pass in 90.0000 ms, kernels 110.0000 ms, overlapped 5.0000 ms (medians)\n"; out.String() != w {
		t.Errorf("printed %q, want %q", out.String(), w)
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
