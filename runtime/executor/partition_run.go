package executor

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// Run runs opt.Warmup untimed and opt.Repeat timed passes, each copying
// every block and chunk its pairs need and counting every pair, and checks
// that every pass counted the same. Result.Partition says what a pass
// moved and how its time split between copies and kernels.
func (pt *Partitioned) Run(ctx context.Context, opt RunOptions) (*Result, error) {
	if opt.FlushL2 {
		return nil, fmt.Errorf("plan %s: an L2 flush is not implemented for a count in partitions", pt.name)
	}
	repeat := max(opt.Repeat, 1)
	warm := max(opt.Warmup, 0)
	var passes, copies, kernels []float64
	var first uint64
	for r := range warm + repeat {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := pt.runPass(ctx); err != nil {
			return nil, err
		}
		got, pass, cp, kn, err := pt.readPass()
		if err != nil {
			return nil, err
		}
		if r == 0 {
			first = got
		} else if got != first {
			return nil, fmt.Errorf("plan %s: pass %d counted %d triangles in partitions, pass 0 counted %d: the kernels are not deterministic", pt.name, r, got, first)
		}
		if r >= warm {
			passes, copies, kernels = append(passes, pass), append(copies, cp), append(kernels, kn)
		}
	}
	return pt.result(first, passes, copies, kernels, opt), nil
}

// The pass's two streams: the copy stream brings each block to the
// window's start and the chunks of its pairs into two slots after it; the
// compute stream rebases their offsets and counts. Events order them: a
// block is overwritten only when the last block's pairs are counted
// (idle), a slot only when the pair before in it is counted (freed), and a
// pair is counted only when its block and chunk are in (blockIn, copied).
// The copy stream runs up to two chunks ahead of the counts.
//
// The offsets buffer is shared by every vertex: a chunk copies the raw
// offsets of [lo+1, hi] only, which no counted pair reads, and the compute
// stream rebases [lo, hi] before its pair counts (off[lo], the previous
// chunk's end, is written there). A block's first chunk goes to slot 0,
// right after the block's rows, so the block's end and the chunk's start
// are the same offset.

// runPass queues one pass and the timer around it on the default stream,
// which waits for both streams.
func (pt *Partitioned) runPass(ctx context.Context) error {
	if err := pt.sum.Zero(); err != nil {
		return fmt.Errorf("plan %s: zeroing the sum: %w", pt.name, err)
	}
	if pt.pv != nil { // the pivot classes add to their counts all pass long
		if err := pt.counts.Zero(); err != nil {
			return fmt.Errorf("plan %s: zeroing counts: %w", pt.name, err)
		}
	}
	if err := pt.pass.Start(); err != nil {
		return fmt.Errorf("plan %s: pass timer: %w", pt.name, err)
	}
	for i := 0; i < len(pt.steps); {
		if err := ctx.Err(); err != nil {
			return err
		}
		blockPass := pt.blockPass
		if pt.pv != nil {
			blockPass = pt.pivotBlockPass // partition_pivot_run.go
		}
		n, err := blockPass(i)
		if err != nil {
			return err
		}
		i += n
	}
	if pt.pv != nil {
		if err := pt.pv.finish(pt); err != nil {
			return err
		}
	}
	if err := pt.pass.Stop(); err != nil {
		return fmt.Errorf("plan %s: pass timer: %w", pt.name, err)
	}
	return nil
}

// blockPass queues the steps of the block whose step is pt.steps[i]: its
// copy, its chunks' copies two ahead of its pairs' counts. It returns the
// number of steps.
func (pt *Partitioned) blockPass(i int) (int, error) {
	st := &pt.steps[i]
	n := 1
	for i+n < len(pt.steps) && pt.steps[i+n].pair >= 0 {
		n++
	}
	pairs := pt.steps[i+1 : i+n]
	blockRows, err := pt.blockStep(st)
	if err != nil {
		return 0, err
	}
	var chunks []*partStep // the block's pairs with a chunk, in order: chunk j goes to slot j % 2
	for k := range pairs {
		if pt.part.pairs[pairs[k].pair].streamed() {
			chunks = append(chunks, &pairs[k])
		}
	}
	copied := 0 // chunks queued to copy
	copyNext := func(upto int) error {
		for ; copied < min(upto, len(chunks)); copied++ {
			if err := pt.chunkCopy(chunks[copied], copied%2, blockRows); err != nil {
				return err
			}
		}
		return nil
	}
	if err := copyNext(2); err != nil {
		return 0, err
	}
	j := 0 // chunks counted
	for k := range pairs {
		q := pt.part.pairs[pairs[k].pair]
		slot := -1
		if q.streamed() {
			slot = j % 2
		}
		if err := pt.pairStep(&pairs[k], slot, blockRows, nil); err != nil {
			return 0, err
		}
		if slot >= 0 {
			j++
			if err := copyNext(j + 2); err != nil { // its slot is free once counted
				return 0, err
			}
		}
	}
	if err := pt.compute.Record(pt.idle); err != nil {
		return 0, fmt.Errorf("plan %s: event: %w", pt.name, err)
	}
	return n, nil
}

// write queues a copy of s to b at byte offset off on stream st.
func write[T any](st gpu.Stream, b gpu.Buffer, off uint64, s []T) error {
	if len(s) == 0 {
		return nil
	}
	var z T
	return st.Write(b, off, unsafe.Pointer(&s[0]), uint64(len(s))*uint64(unsafe.Sizeof(z)))
}

// upload queues on the copy stream the rows of the vertices [lo, hi) to
// the window at entry at and their raw offsets [lo+1, hi] (rebase on the
// compute stream fixes them and off[lo]).
func (pt *Partitioned) upload(lo, hi uint32, at uint64) error {
	off := pt.o.Offsets
	if err := write(pt.copier, pt.adj, at*4, pt.o.Adj[off[lo]:off[hi]]); err != nil {
		return fmt.Errorf("plan %s: uploading the rows of vertices %d to %d: %w", pt.name, lo, hi, err)
	}
	if err := write(pt.copier, pt.off, (uint64(lo)+1)*8, off[lo+1:hi+1]); err != nil {
		return fmt.Errorf("plan %s: uploading the offsets of vertices %d to %d: %w", pt.name, lo, hi, err)
	}
	return nil
}

// rebase queues on the compute stream the rewrite of the offsets of [lo,
// hi] to the rows' places in the window, the first at entry at.
func (pt *Partitioned) rebase(lo, hi uint32, at uint64) error {
	err := pt.compute.Launch(pt.rebaseFn, pt.helperGrid(hi-lo+1), gpu.Dim3{X: partitionBlock, Y: 1, Z: 1}, 0,
		pt.off, lo, hi-lo, pt.o.Offsets[lo], at)
	if err != nil {
		return fmt.Errorf("plan %s: kernel %s: %w", pt.name, partRebaseKernel, err)
	}
	return nil
}

// blockStep queues block st.block's copy to the window's start once the
// last block's pairs are counted, and, once it is in, its offsets' rebase
// and src. It returns the block's entries.
func (pt *Partitioned) blockStep(st *partStep) (uint64, error) {
	lo, hi := pt.part.blockRange(st.block)
	if err := pt.await(pt.copier, pt.idle); err != nil {
		return 0, err
	}
	if err := pt.timed(st.copyT, func() error { return pt.upload(lo, hi, 0) }); err != nil {
		return 0, err
	}
	if err := pt.copier.Record(pt.blockIn); err != nil {
		return 0, fmt.Errorf("plan %s: event: %w", pt.name, err)
	}
	if err := pt.await(pt.compute, pt.blockIn); err != nil {
		return 0, err
	}
	err := pt.timed(st.kernel, func() error {
		if err := pt.rebase(lo, hi, 0); err != nil {
			return err
		}
		if err := pt.compute.Launch(pt.srcFn, pt.helperGrid(hi-lo), gpu.Dim3{X: partitionBlock, Y: 1, Z: 1}, 0, pt.off, lo, hi-lo, pt.src); err != nil {
			return fmt.Errorf("plan %s: kernel %s: %w", pt.name, partSrcKernel, err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return pt.o.Offsets[hi] - pt.o.Offsets[lo], nil
}

// slotAt is the window entry of slot s after a block of blockRows entries.
func (pt *Partitioned) slotAt(s int, blockRows uint64) uint64 {
	return blockRows + uint64(s)*pt.part.maxChunk
}

// chunkCopy queues pair st.pair's chunk into slot s once the pair before
// in the slot is counted.
func (pt *Partitioned) chunkCopy(st *partStep, s int, blockRows uint64) error {
	q := pt.part.pairs[st.pair]
	lo, hi := pt.part.targets(q)
	if err := pt.await(pt.copier, pt.freed[s]); err != nil {
		return err
	}
	if err := pt.timed(st.copyT, func() error { return pt.upload(lo, hi, pt.slotAt(s, blockRows)) }); err != nil {
		return err
	}
	if err := pt.copier.Record(pt.copied[s]); err != nil {
		return fmt.Errorf("plan %s: event: %w", pt.name, err)
	}
	return nil
}

// pairStep queues pair st.pair's count, its chunk in slot s (-1: the
// diagonal or an own chunk, none) once copied, after before (nil: none;
// within the pair's timer), and frees the slot after.
func (pt *Partitioned) pairStep(st *partStep, s int, blockRows uint64, before func() error) error {
	q := pt.part.pairs[st.pair]
	tlo, thi := pt.part.targets(q)
	if s >= 0 {
		if err := pt.await(pt.compute, pt.copied[s]); err != nil {
			return err
		}
	}
	err := pt.timed(st.kernel, func() error {
		if before != nil {
			if err := before(); err != nil {
				return err
			}
		}
		if s >= 0 {
			if err := pt.rebase(tlo, thi, pt.slotAt(s, blockRows)); err != nil {
				return err
			}
		}
		if pt.pv != nil {
			return pt.pv.countPair(pt, q, tlo, thi)
		}
		return pt.countPair(q, tlo, thi)
	})
	if err != nil || s < 0 {
		return err
	}
	if err := pt.compute.Record(pt.freed[s]); err != nil {
		return fmt.Errorf("plan %s: event: %w", pt.name, err)
	}
	return nil
}

// await makes stream st wait for e.
func (pt *Partitioned) await(st gpu.Stream, e gpu.Event) error {
	if err := st.Wait(e); err != nil {
		return fmt.Errorf("plan %s: waiting for an event: %w", pt.name, err)
	}
	return nil
}

// countPair lists pair q's edges (targets [tlo, thi)), runs the merge's
// class kernel on them and adds its count to the sum.
func (pt *Partitioned) countPair(q pair, tlo, thi uint32) error {
	lo, hi := pt.part.blockRange(q.block)
	one := gpu.Dim3{X: 1, Y: 1, Z: 1}
	block := gpu.Dim3{X: partitionBlock, Y: 1, Z: 1}
	if err := pt.compute.Zero(pt.fill); err != nil {
		return fmt.Errorf("plan %s: zeroing the list's fill: %w", pt.name, err)
	}
	if err := pt.compute.Launch(pt.listFn, pt.helperGrid(hi-lo), block, 0, pt.off, pt.adj, lo, hi-lo, tlo, thi, pt.list, pt.fill); err != nil {
		return fmt.Errorf("plan %s: kernel %s: %w", pt.name, partListKernel, err)
	}
	c := pt.cls
	if !c.SelfReset { // it adds to its slot: start from 0
		if err := pt.compute.Zero(pt.counts); err != nil {
			return fmt.Errorf("plan %s: zeroing counts: %w", pt.name, err)
		}
	}
	grid := c.Grid.Blocks(q.edges, pt.sms)
	if c.Grid.BlocksPerSM > 0 { // persistent blocks: one wave at most
		grid = residentGrid(pt.fn, grid, c.Block, c.DynamicSharedBytes, pt.sms)
	}
	err := pt.compute.Launch(pt.fn, gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(c.Block), Y: 1, Z: 1}, uint32(c.DynamicSharedBytes),
		pt.off, pt.adj, pt.src, pt.part.n, pt.part.window(), pt.list, q.edges, pt.counts, uint64(0), uint64(0))
	if err != nil {
		return fmt.Errorf("plan %s: kernel %s (block %d, targets %d to %d, %d edges, grid %d x %d): %w", pt.name, c.Kernel, q.block, tlo, thi, q.edges, grid, c.Block, err)
	}
	if err := pt.compute.Launch(pt.addFn, one, one, 0, pt.counts, uint32(c.Slot), pt.sum); err != nil {
		return fmt.Errorf("plan %s: kernel %s: %w", pt.name, partAddKernel, err)
	}
	return nil
}

// helperGrid is the helpers' grid for nv vertices: a thread each, at
// most partitionWaves blocks per SM (they stride).
func (pt *Partitioned) helperGrid(nv uint32) gpu.Dim3 {
	b := (uint64(nv) + partitionBlock - 1) / partitionBlock
	b = max(1, min(b, uint64(max(pt.sms, 1)*partitionWaves)))
	return gpu.Dim3{X: uint32(b), Y: 1, Z: 1}
}

// timed runs fn between t's events.
func (pt *Partitioned) timed(t gpu.Timer, fn func() error) error {
	if err := t.Start(); err != nil {
		return fmt.Errorf("plan %s: timer: %w", pt.name, err)
	}
	if err := fn(); err != nil {
		return err
	}
	if err := t.Stop(); err != nil {
		return fmt.Errorf("plan %s: timer: %w", pt.name, err)
	}
	return nil
}

// readPass reads the pass's count and its times: the pass, its copies'
// sum and its kernels' sum.
func (pt *Partitioned) readPass() (count uint64, pass, copies, kernels float64, err error) {
	got := []uint64{0}
	if err = gpu.ReadSlice(pt.sum, 0, got); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("plan %s: reading the sum: %w", pt.name, err)
	}
	if pv := pt.pv; pv != nil {
		words := make([]uint64, pv.cost.counts/8)
		if err = gpu.ReadSlice(pt.counts, 0, words); err != nil {
			return 0, 0, 0, 0, fmt.Errorf("plan %s: reading the counts: %w", pt.name, err)
		}
		pv.counts = pv.counts[:0]
		for _, c := range pv.classes {
			pv.counts = append(pv.counts, words[c.Slot])
		}
	}
	if pass, err = pt.pass.Elapsed(); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("plan %s: pass timer: %w", pt.name, err)
	}
	for i := range pt.steps {
		st := &pt.steps[i]
		var c float64
		if st.copyT != nil {
			if c, err = st.copyT.Elapsed(); err != nil {
				return 0, 0, 0, 0, fmt.Errorf("plan %s: copy timer: %w", pt.name, err)
			}
		}
		k, err := st.kernel.Elapsed()
		if err != nil {
			return 0, 0, 0, 0, fmt.Errorf("plan %s: kernel timer: %w", pt.name, err)
		}
		copies, kernels = copies+c, kernels+k
	}
	return got[0], pass, copies, kernels, nil
}

// result summarises the timed passes.
func (pt *Partitioned) result(count uint64, passes, copies, kernels []float64, opt RunOptions) *Result {
	res := pt.res
	part := pt.part
	res.Triangles, res.Runs = count, len(passes)
	res.KernelMs, res.GPUMs, res.GPUSamples = summarize(kernels), summarize(passes), passes
	res.Pass = Summarize(passes, max(opt.Warmup, 0))
	classes, counts := []gen.Class{pt.cls}, []uint64{count}
	if pt.pv != nil { // the in-edges the pivot counted, each class's triangles (the core's in the first's)
		classes, counts = pt.pv.classes, pt.pv.counts
	}
	res.PerClass = nil
	for i, c := range classes {
		res.PerClass = append(res.PerClass, ClassResult{Slot: c.Slot, Name: c.Name, Kernel: c.Kernel, Iterator: c.Iterator, Intersection: c.Intersection,
			Width: c.Width, Block: c.Block, SharedBytes: c.StaticSharedBytes + c.DynamicSharedBytes,
			Items: part.listedArcs, ItemKind: gen.ItemsEdges, List: true, Triangles: counts[i], Ms: res.KernelMs})
	}
	st := new(PartitionStats)
	*st = pt.Stats()
	st.CopyMs, st.KernelMs = summarize(copies), res.KernelMs
	st.OverlapMs = max(0, st.CopyMs.Median+st.KernelMs.Median-res.GPUMs.Median)
	res.Partition = st
	return &res
}
