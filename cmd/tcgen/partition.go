package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// partitionSpec is the plan a count in partitions runs
// (executor.PreparePartitioned): the default plan's design where a count
// in partitions can run it, the pivot on skewed graphs and the tiled edge
// merge elsewhere (its guard follows the default's: partition_test.go).
const partitionSpec = "partition.yaml"

// checkPartitionFlags refuses a --device-memory or --partition-chunk that
// is not a byte count, or that comes with --gpus or --backend cpu.
func (c *CountCmd) checkPartitionFlags() error {
	for _, f := range []struct{ name, val, what string }{
		{"--device-memory", c.DeviceMemory, "caps the GPU's memory"},
		{"--partition-chunk", c.PartitionChunk, "sizes the chunks of a count in partitions on the GPU"},
	} {
		if f.val == "" || strings.EqualFold(strings.TrimSpace(f.val), "none") {
			continue
		}
		if b, err := parseBytes(f.val); err != nil || b == 0 {
			if err == nil {
				err = fmt.Errorf("want a number of bytes such as 8G or 512M")
			}
			return errorf(exitUsage, "count: %s %s: %v", f.name, f.val, err)
		}
		switch {
		case c.GPUs != "":
			return errorf(exitUsage, "count: %s is not implemented with --gpus yet", f.name)
		case c.Backend == "cpu":
			return errorf(exitUsage, "count: %s %s; --backend cpu counts on the CPU", f.name, f.what)
		}
	}
	return nil
}

// deviceMemory is --device-memory in bytes (0: none), checked by
// checkPartitionFlags.
func (c *CountCmd) deviceMemory() uint64 {
	b, _ := parseBytes(c.DeviceMemory)
	return b
}

// chunkBytes is --partition-chunk in bytes (0: the default).
func (c *CountCmd) chunkBytes() uint64 {
	b, _ := parseBytes(c.PartitionChunk)
	return b
}

// partitionable reports whether a failed Prepare may be replaced by a
// count in partitions: the plans did not fit the memory, and the count
// is the total (a local output needs every edge's counters at once).
func (c *CountCmd) partitionable(err error) bool {
	fits := errors.Is(err, executor.ErrTooLarge) || errors.Is(err, cuda.ErrOutOfMemory)
	return fits && c.localOutput() == ir.OutputTotal
}

// preparePartitioned prepares the count in partitions after the plans
// failed with unfit, with a notice of what a pass will move.
func (c *CountCmd) preparePartitioned(g *Globals, dev gpu.Device, comp gpu.Compiler, p ir.Plan, gr *graph.Graph, opt executor.RunOptions, unfit error) (countRunner, ir.Plan, error) {
	pp, err := PlanArg{Spec: partitionSpec}.plan()
	if err != nil {
		return nil, p, fmt.Errorf("the built-in plan %s: %w", partitionSpec, err) // a build defect: tests load it
	}
	pt, err := executor.PreparePartitioned(g.ctx, dev, comp, pp, gr, opt)
	if err != nil {
		return nil, p, errors.Join(unfit, err)
	}
	g.notice("%s", partitionNotice(p, unfitReason(unfit), pp, pt.Stats(), pt.DeviceBytes()))
	return pt, pp, nil
}

// partitionNotice is the one line a count in partitions announces itself
// with: the plan that did not fit and why, the plan that counts and its
// design, what a pass moves.
func partitionNotice(p ir.Plan, why string, pp ir.Plan, st executor.PartitionStats, bytes uint64) string {
	return fmt.Sprintf("count: %s cannot take this graph (%s); counting in partitions with %s (examples/%s, %s): %d blocks, %d chunks, %d pairs, %d MiB copied a pass, %d MiB of %d MiB of device memory",
		p.Name(), why, pp.Name(), partitionSpec, partitionDesign(st), st.Blocks, st.Chunks, st.Pairs, st.BytesCopied>>20, bytes>>20, st.CapBytes>>20)
}

// partitionDesign names what counts each pair.
func partitionDesign(st executor.PartitionStats) string {
	switch {
	case st.Family != "pivot":
		return "the tiled edge merge"
	case st.CoreIDs > 0:
		return fmt.Sprintf("the pivot, its core of %d ids", st.CoreIDs)
	}
	return "the pivot, no core"
}

// printPartition adds a count in partitions' line: what a pass moved and
// how its time split.
func printPartition(w io.Writer, r *countResult) {
	if r.GPU == nil || r.GPU.Partition == nil {
		return
	}
	st := r.GPU.Partition
	fmt.Fprintf(w, "partitions\t%s; %d blocks, %d chunks, %d pairs; %d MiB copied a pass in %.4f ms, kernels %.4f ms, overlapped %.4f ms (medians)\n",
		partitionDesign(*st), st.Blocks, st.Chunks, st.Pairs, st.BytesCopied>>20, st.CopyMs.Median, st.KernelMs.Median, st.OverlapMs)
}
