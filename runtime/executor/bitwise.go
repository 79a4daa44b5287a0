package executor

import (
	"context"
	"fmt"
	"slices"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// edgeBitwise runs the bitwise classes (TCBW, gen/edge_bitwise.go): before the
// first pass the slice helpers build the bit slices of every out-neighbour
// list, once per slice size the classes use; each class then runs once
// per block of its P1 x P2 partition (TCBW §3.2), and the blocks' counts
// add up in the class's counter. The partition is planned on the host.
type edgeBitwise struct {
	noStats
	h       *gen.SliceHelpers
	n, m    uint64
	sets    []int                 // the slice sets the classes with items read, in increasing order
	bufs    map[int]*sliceBufs    // by set: its slices on the device
	classes map[int]*bitwiseClass // by slot: the classes with items
}

// bitwiseClass is what a bitwise class launches.
type bitwiseClass struct {
	set    int
	bufs   *sliceBufs
	passes []tcbwPass
}

// sliceBufs are the bit slices of one set on the device.
type sliceBufs struct {
	set    *gen.SliceSet
	soff   gpu.Buffer // u64[n+1]: the slices of N+(x) are [soff[x], soff[x+1])
	bsum   gpu.Buffer // u64[blocks]: the scan's block sums
	sidx   gpu.Buffer // u32[slices]: slice indices
	smask  gpu.Buffer // u32 or u64 [slices]: masks
	slices uint64
}

// tcbwPass is one block of the P1 x P2 partition: the class's items
// [ibeg, iend) (the edges whose source lies in one row range) and the
// slice indices [klo, khi) (one column range), launched with grid blocks.
type tcbwPass struct {
	ibeg, iend uint64
	klo, khi   uint32
	grid       uint32
}

// allSlices is the khi of the last column range: every slice index is
// below it (indices are ids >> log2(slice_bits) < 2^30).
const allSlices = ^uint32(0)

func newEdgeBitwise(pl *planning, slots []int) (family, error) {
	h := pl.man.Slices
	f := &edgeBitwise{h: h, n: uint64(pl.o.N()), m: pl.o.Arcs(), bufs: map[int]*sliceBufs{}, classes: map[int]*bitwiseClass{}}
	for _, i := range slots {
		c, l := pl.classes[i], &pl.lists[i]
		if l.Count == 0 {
			continue
		}
		passes := tcbwPasses(pl.o, l, int(c.Params[ir.ParamSliceBits]), int(c.Params[ir.ParamP1]), int(c.Params[ir.ParamP2]))
		for k := range passes {
			passes[k].grid = c.Grid.Blocks(passes[k].iend-passes[k].ibeg, pl.sms)
		}
		f.classes[i] = &bitwiseClass{set: bitwiseSet(c), passes: passes}
		f.sets = append(f.sets, bitwiseSet(c))
	}
	slices.Sort(f.sets)
	f.sets = slices.Compact(f.sets)
	if len(f.sets) > 0 && h == nil {
		return nil, fmt.Errorf("bitwise classes but no slice helpers in the manifest")
	}
	for _, si := range f.sets {
		if si < 0 || si >= len(h.Sets) {
			return nil, fmt.Errorf("slice set %d of %d", si, len(h.Sets))
		}
		f.bufs[si] = &sliceBufs{set: &h.Sets[si]}
	}
	return f, nil
}

// buffers lists the slices' buffers, per set: the offsets, the scan's
// block sums and one slice per oriented edge, the bound (a list has no
// more slices than entries). The memory plan sums them and setup
// allocates them before the helpers count and fill the slices.
func (f *edgeBitwise) buffers() []bufferSpec {
	var b []bufferSpec
	for _, si := range f.sets {
		sb := f.bufs[si]
		b = append(b,
			bufferSpec{name: "offsets", bytes: (f.n + 1) * 8, dst: &sb.soff},
			bufferSpec{name: "scan block sums", bytes: uint64(f.h.ScanMaxBlocks) * 8, dst: &sb.bsum},
			bufferSpec{name: "slice indices", bytes: f.m * 4, dst: &sb.sidx},
			bufferSpec{name: "slice masks", bytes: f.m * uint64(sb.set.MaskBytes), dst: &sb.smask})
	}
	return b
}

// setup builds the slices (src is filled by then). Their buffers are
// allocated first, at the bound the memory plan holds (one slice per
// oriented edge), so that the event-timed part, Result.SlicesMs, is the
// helper kernels alone, with no host round trip between them.
func (f *edgeBitwise) setup(pr *Prepared) error {
	if len(f.sets) == 0 {
		return nil
	}
	if err := pr.allocate(f.buffers()); err != nil {
		return fmt.Errorf("plan %s: bit slices: %w", pr.name, err)
	}
	t, err := pr.newTimer()
	if err != nil {
		return fmt.Errorf("plan %s: slice timer: %w", pr.name, err)
	}
	if err := t.Start(); err != nil {
		return fmt.Errorf("plan %s: slice timer: %w", pr.name, err)
	}
	for _, si := range f.sets {
		if err := pr.buildSlices(f.h, f.bufs[si]); err != nil {
			return fmt.Errorf("plan %s: slices of %d bits: %w", pr.name, f.h.Sets[si].Bits, err)
		}
	}
	if err := t.Stop(); err != nil {
		return fmt.Errorf("plan %s: slice timer: %w", pr.name, err)
	}
	if pr.res.SlicesMs, err = t.Elapsed(); err != nil {
		return fmt.Errorf("plan %s: slices: %w", pr.name, err)
	}
	// The totals, read after the timer. A list has no more slices than
	// entries, so a total above m means a wrong count kernel, whose fill
	// has already written past the pairs: the check reports it, it cannot
	// prevent it (the fake device's fill checks the bound before writing).
	for _, si := range f.sets {
		sb := f.bufs[si]
		total := make([]uint64, 1)
		if err := gpu.ReadSlice(sb.soff, uint64(pr.n)*8, total); err != nil {
			return fmt.Errorf("plan %s: slices of %d bits: reading their total: %w", pr.name, sb.set.Bits, err)
		}
		if sb.slices = total[0]; sb.slices > pr.m {
			return fmt.Errorf("plan %s: slices of %d bits: %d for %d edges: the count kernel is wrong", pr.name, sb.set.Bits, sb.slices, pr.m)
		}
	}
	for _, bc := range f.classes {
		bc.bufs = f.bufs[bc.set]
	}
	return nil
}

// launch launches every pass of a bitwise class (gen.BitwiseArgs, and
// gen.BitwiseLocalArgs under a local output).
func (f *edgeBitwise) launch(_ context.Context, pr *Prepared, pc *prepClass) error {
	bc := f.classes[pc.c.Slot]
	if bc == nil {
		return fmt.Errorf("plan %s: bitwise class %s was not prepared", pr.name, pc.c.Name)
	}
	for _, p := range bc.passes {
		if p.grid == 0 || p.klo >= p.khi {
			continue
		}
		args := []any{pr.adj, pr.srcArg(), pc.listArg(), pr.counts, bc.bufs.soff, bc.bufs.sidx, bc.bufs.smask, p.ibeg, p.iend, p.klo, p.khi}
		if pr.local != nil {
			args = append(args, pr.off, pr.localArg())
		}
		if err := pc.fn.Launch(gpu.Dim3{X: p.grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(pc.c.Block), Y: 1, Z: 1}, pc.shared, args...); err != nil {
			return pr.kernelErr(pc, fmt.Errorf("pass items [%d, %d) slices [%d, %d): %w", p.ibeg, p.iend, p.klo, p.khi, err))
		}
	}
	return nil
}

// buildSlices launches the helpers of one set into its buffers: count,
// scan, fill.
func (pr *Prepared) buildSlices(h *gen.SliceHelpers, sb *sliceBufs) error {
	s := sb.set
	mod := pr.mod
	fn := func(name string) (gpu.Function, error) {
		f, err := mod.Function(name)
		if err != nil {
			return nil, fmt.Errorf("kernel %s: %w", name, err)
		}
		return f, nil
	}
	count, err := fn(s.Count)
	if err != nil {
		return err
	}
	fill, err := fn(s.Fill)
	if err != nil {
		return err
	}
	up, err := fn(h.ScanUp)
	if err != nil {
		return err
	}
	top, err := fn(h.ScanTop)
	if err != nil {
		return err
	}
	down, err := fn(h.ScanDown)
	if err != nil {
		return err
	}
	n := uint64(pr.n)
	block := gpu.Dim3{X: uint32(h.Block), Y: 1, Z: 1}
	grid := func(x uint32) gpu.Dim3 { return gpu.Dim3{X: x, Y: 1, Z: 1} }
	nb := h.ScanBlocks(n + 1)
	vgrid := s.Grid.Blocks(n, pr.sms)
	if vgrid == 0 { // no vertex: soff = [0]
		return gpu.WriteSlice(sb.soff, 0, []uint64{0})
	}
	if err := count.Launch(grid(vgrid), block, 0, pr.off, pr.adj, pr.n, sb.soff); err != nil {
		return fmt.Errorf("kernel %s: %w", s.Count, err)
	}
	// Inclusive scan of soff[0, n+1) (soff[0] = 0): soff[x] = slices before x.
	if err := up.Launch(grid(nb), block, 0, sb.soff, n+1, sb.bsum); err != nil {
		return fmt.Errorf("kernel %s: %w", h.ScanUp, err)
	}
	if err := top.Launch(grid(1), block, 0, sb.bsum, nb); err != nil {
		return fmt.Errorf("kernel %s: %w", h.ScanTop, err)
	}
	if err := down.Launch(grid(nb), block, 0, sb.soff, n+1, sb.bsum); err != nil {
		return fmt.Errorf("kernel %s: %w", h.ScanDown, err)
	}
	if pr.m == 0 {
		return nil // no slice to fill
	}
	if err := fill.Launch(grid(vgrid), block, 0, pr.off, pr.adj, pr.n, sb.soff, sb.sidx, sb.smask); err != nil {
		return fmt.Errorf("kernel %s: %w", s.Fill, err)
	}
	return nil
}

// tcbwPasses splits a bitwise class's items into P1 row ranges and the
// slice indices into P2 column ranges (TCBW §3.2: "each P2 partition has
// the same size as possible", and likewise the rows) and returns the
// non-empty blocks, rows outer. Sizes are counted in oriented edges: row
// range i holds the sources whose out-edges start at or after i*m/P1 and
// before (i+1)*m/P1; column range k the slice indices whose in-entries
// (edges pointing into them) fall in the k-th P2-th of all. The boundaries
// only balance the passes: any ranges that tile the rows and the indices
// count every triangle once. Grids are left to the caller.
func tcbwPasses(o *graph.Oriented, l *WorkList, sliceBits, p1, p2 int) []tcbwPass {
	if l.Count == 0 {
		return nil
	}
	p1, p2 = max(p1, 1), max(p2, 1)
	n, m := o.N(), o.Arcs()

	// Rows: vertex boundaries r[0] = 0 <= ... <= r[p1] = n, as item ranges.
	items := make([]uint64, p1+1) // item index where row range i starts
	items[p1] = l.Count
	for i := 1; i < p1; i++ {
		target := uint64(i) * m / uint64(p1)
		r, _ := slices.BinarySearch(o.Offsets, target) // first vertex whose list starts at or after target
		// (Offsets may repeat: BinarySearch gives the first position with
		// Offsets[r] >= target, and vertices before r start earlier.)
		e := o.Offsets[min(r, n)] // first edge of row range i
		switch {
		case l.All:
			items[i] = e
		default:
			items[i] = uint64(lowerBound(l.Edges, e))
		}
	}

	// Columns: slice index boundaries c[0] = 0 <= ... <= c[p2] = allSlices.
	cols := make([]uint32, p2+1)
	cols[p2] = allSlices
	if p2 > 1 {
		shift := 0
		for 1<<shift < sliceBits {
			shift++
		}
		nsl := (uint64(n) + uint64(sliceBits) - 1) >> shift
		in := make([]uint64, nsl+1) // in[s+1] = entries whose slice index is s; then prefix sums
		for _, w := range o.Adj {
			in[uint64(w>>shift)+1]++
		}
		for s := 1; s < len(in); s++ {
			in[s] += in[s-1]
		}
		for k := 1; k < p2; k++ {
			target := uint64(k) * m / uint64(p2)
			s, _ := slices.BinarySearch(in, target) // first index with entries before it >= target
			cols[k] = uint32(s)
		}
	}

	var ps []tcbwPass
	for i := range p1 {
		if items[i] >= items[i+1] {
			continue
		}
		for k := range p2 {
			if cols[k] >= cols[k+1] {
				continue
			}
			ps = append(ps, tcbwPass{ibeg: items[i], iend: items[i+1], klo: cols[k], khi: cols[k+1]})
		}
	}
	return ps
}

// lowerBound returns the first index of the sorted s whose value is >= x.
func lowerBound(s []uint64, x uint64) int {
	i, _ := slices.BinarySearch(s, x)
	return i
}
