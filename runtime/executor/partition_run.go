package executor

import (
	"context"
	"fmt"

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

// runPass queues one pass: per block, its rows, its offsets and its src;
// per pair, the chunk's rows and offsets (none for the diagonal), the
// pair's list, the class kernel and the sum.
func (pt *Partitioned) runPass(ctx context.Context) error {
	if err := pt.sum.Zero(); err != nil {
		return fmt.Errorf("plan %s: zeroing the sum: %w", pt.name, err)
	}
	if err := pt.pass.Start(); err != nil {
		return fmt.Errorf("plan %s: pass timer: %w", pt.name, err)
	}
	var blockRows uint64 // entries of the resident block: a chunk's rows follow them
	for i := range pt.steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		st := &pt.steps[i]
		var err error
		if st.pair < 0 {
			blockRows, err = pt.blockStep(st)
		} else {
			err = pt.pairStep(st, blockRows)
		}
		if err != nil {
			return err
		}
	}
	if err := pt.pass.Stop(); err != nil {
		return fmt.Errorf("plan %s: pass timer: %w", pt.name, err)
	}
	return nil
}

// upload copies the rows of the vertices [lo, hi) to the window at entry
// at, and their offsets, rebased to there, to the offsets buffer.
func (pt *Partitioned) upload(lo, hi uint32, at uint64) error {
	off := pt.o.Offsets
	rows := pt.o.Adj[off[lo]:off[hi]]
	if err := gpu.WriteSlice(pt.adj, at*4, rows); err != nil {
		return fmt.Errorf("plan %s: uploading the rows of vertices %d to %d: %w", pt.name, lo, hi, err)
	}
	pt.host = pt.host[:0]
	for v := lo; v <= hi; v++ {
		pt.host = append(pt.host, off[v]-off[lo]+at)
	}
	if err := gpu.WriteSlice(pt.off, uint64(lo)*8, pt.host); err != nil {
		return fmt.Errorf("plan %s: uploading the offsets of vertices %d to %d: %w", pt.name, lo, hi, err)
	}
	return nil
}

// blockStep brings block st.block to the window's start and fills src
// for its entries. It returns the block's entries.
func (pt *Partitioned) blockStep(st *partStep) (uint64, error) {
	lo, hi := pt.part.blockRange(st.block)
	if err := pt.timed(st.copyT, func() error { return pt.upload(lo, hi, 0) }); err != nil {
		return 0, err
	}
	err := pt.timed(st.kernel, func() error {
		return pt.srcFn.Launch(pt.helperGrid(hi-lo), gpu.Dim3{X: partitionBlock, Y: 1, Z: 1}, 0, pt.off, lo, hi-lo, pt.src)
	})
	if err != nil {
		return 0, fmt.Errorf("plan %s: kernel %s: %w", pt.name, partSrcKernel, err)
	}
	return pt.o.Offsets[hi] - pt.o.Offsets[lo], nil
}

// pairStep brings pair st.pair's chunk after the block's rows (the
// diagonal needs none), lists the pair's edges and counts them.
func (pt *Partitioned) pairStep(st *partStep, blockRows uint64) error {
	q := pt.part.pairs[st.pair]
	tlo, thi := pt.part.targets(q)
	if err := pt.timed(st.copyT, func() error {
		if q.chunk < 0 {
			return nil
		}
		return pt.upload(tlo, thi, blockRows)
	}); err != nil {
		return err
	}
	return pt.timed(st.kernel, func() error { return pt.countPair(q, tlo, thi) })
}

// countPair lists pair q's edges (targets [tlo, thi)), runs the class
// kernel on them and adds its count to the sum.
func (pt *Partitioned) countPair(q pair, tlo, thi uint32) error {
	lo, hi := pt.part.blockRange(q.block)
	one := gpu.Dim3{X: 1, Y: 1, Z: 1}
	block := gpu.Dim3{X: partitionBlock, Y: 1, Z: 1}
	if err := pt.fill.Zero(); err != nil {
		return fmt.Errorf("plan %s: zeroing the list's fill: %w", pt.name, err)
	}
	if err := pt.listFn.Launch(pt.helperGrid(hi-lo), block, 0, pt.off, pt.adj, lo, hi-lo, tlo, thi, pt.list, pt.fill); err != nil {
		return fmt.Errorf("plan %s: kernel %s: %w", pt.name, partListKernel, err)
	}
	c := pt.cls
	if !c.SelfReset { // it adds to its slot: start from 0
		if err := pt.counts.Zero(); err != nil {
			return fmt.Errorf("plan %s: zeroing counts: %w", pt.name, err)
		}
	}
	grid := c.Grid.Blocks(q.edges, pt.sms)
	if c.Grid.BlocksPerSM > 0 { // persistent blocks: one wave at most
		grid = residentGrid(pt.fn, grid, c.Block, c.DynamicSharedBytes, pt.sms)
	}
	err := pt.fn.Launch(gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(c.Block), Y: 1, Z: 1}, uint32(c.DynamicSharedBytes),
		pt.off, pt.adj, pt.src, pt.part.n, pt.part.window(), pt.list, q.edges, pt.counts, uint64(0), uint64(0))
	if err != nil {
		return fmt.Errorf("plan %s: kernel %s (block %d, targets %d to %d, %d edges, grid %d x %d): %w", pt.name, c.Kernel, q.block, tlo, thi, q.edges, grid, c.Block, err)
	}
	if err := pt.addFn.Launch(one, one, 0, pt.counts, uint32(c.Slot), pt.sum); err != nil {
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
	if pass, err = pt.pass.Elapsed(); err != nil {
		return 0, 0, 0, 0, fmt.Errorf("plan %s: pass timer: %w", pt.name, err)
	}
	for i := range pt.steps {
		st := &pt.steps[i]
		c, err := st.copyT.Elapsed()
		if err != nil {
			return 0, 0, 0, 0, fmt.Errorf("plan %s: copy timer: %w", pt.name, err)
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
	c := pt.cls
	res.PerClass = []ClassResult{{Slot: c.Slot, Name: c.Name, Kernel: c.Kernel, Iterator: c.Iterator, Intersection: c.Intersection,
		Width: c.Width, Block: c.Block, SharedBytes: c.StaticSharedBytes + c.DynamicSharedBytes,
		Items: part.listedArcs, ItemKind: gen.ItemsEdges, List: true, Triangles: count, Ms: res.KernelMs}}
	st := new(PartitionStats)
	*st = pt.Stats()
	st.CopyMs, st.KernelMs = summarize(copies), res.KernelMs
	st.OverlapMs = max(0, st.CopyMs.Median+st.KernelMs.Median-res.GPUMs.Median)
	res.Partition = st
	return &res
}
