package executor_test

import (
	"context"
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"math/bits"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"unsafe"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// A CPU reference of the TCBW kernels (templates/tcbw_*.cu.tmpl), lane by
// lane: the warp-per-vertex slice count and fill with their ballots and
// shuffles over 32-entry chunks, the three-launch scan with its block
// ranges, and the class kernel's trimming, width split and slice merge. The
// fake device runs it for the bitwise kernels, so TestExecFake checks the
// executor and this logic together against the oracle; the tests below
// check it alone on random graphs, hubs and the shared datasets.

const warp = 32

// tcbwCount is the count kernel: soff[u+1] = heads of N+(u), soff[0] = 0.
func tcbwCount(off []uint64, adj []uint32, shift uint, soff []uint64) {
	soff[0] = 0
	for u := 0; u+1 < len(off); u++ {
		beg, end := off[u], off[u+1]
		var c uint64
		for e0 := beg; e0 < end; e0 += warp {
			var ballot uint32
			for lane := range uint64(warp) {
				e := e0 + lane
				if e < end && (e == beg || adj[e]>>shift != adj[e-1]>>shift) {
					ballot |= 1 << lane
				}
			}
			c += uint64(bits.OnesCount32(ballot))
		}
		soff[u+1] = c
	}
}

// tcbwScan is ScanUp, ScanTop and ScanDown with nb blocks of block threads
// (the tile loops do not change sums, so a block's range is summed at once).
func tcbwScan(data []uint64, nb, block int) {
	n := uint64(len(data))
	per := (n + uint64(nb) - 1) / uint64(nb)
	rng := func(b int) (uint64, uint64) {
		lo := min(uint64(b)*per, n)
		return lo, min(lo+per, n)
	}
	bsum := make([]uint64, nb)
	for b := range nb {
		lo, hi := rng(b)
		for i := lo; i < hi; i++ {
			bsum[b] += data[i]
		}
	}
	var carry uint64
	for b := range nb { // exclusive, in tiles of block: the same sums
		x := bsum[b]
		bsum[b] = carry
		carry += x
	}
	for b := range nb {
		lo, hi := rng(b)
		c := bsum[b]
		for i0 := lo; i0 < hi; i0 += uint64(block) {
			for i := i0; i < min(i0+uint64(block), hi); i++ {
				c += data[i]
				data[i] = c
			}
		}
	}
}

// tcbwFill is the fill kernel, lane by lane.
func tcbwFill(off []uint64, adj []uint32, shift uint, sliceBits uint32, soff []uint64, sidx []uint32, smask []uint64) {
	for u := 0; u+1 < len(off); u++ {
		beg, end := off[u], off[u+1]
		base := soff[u]
		for e0 := beg; e0 < end; e0 += warp {
			var s [warp]uint32
			var acc [warp]uint64
			var head [warp]bool
			var heads uint32
			for lane := range uint64(warp) {
				e := e0 + lane
				s[lane] = ^uint32(0)
				if e < end {
					x := adj[e]
					s[lane] = x >> shift
					acc[lane] = 1 << (x & (sliceBits - 1))
					head[lane] = e == beg || s[lane] != adj[e-1]>>shift
				}
				if head[lane] {
					heads |= 1 << lane
				}
			}
			for d := 1; d < warp; d <<= 1 {
				prev := acc // every lane reads before any writes (shuffle)
				for lane := range warp {
					if lane+d < warp && s[lane+d] == s[lane] {
						acc[lane] |= prev[lane+d]
					}
				}
			}
			for lane := range warp {
				e := e0 + uint64(lane)
				if e < end && (lane == 0 || s[lane-1] != s[lane]) {
					upto := uint32(2)<<lane - 1
					k := base + uint64(bits.OnesCount32(heads&upto)) - 1
					if head[lane] {
						sidx[k] = s[lane]
						smask[k] = acc[lane]
					} else {
						smask[k] |= acc[lane]
					}
				}
			}
			base += uint64(bits.OnesCount32(heads))
		}
	}
}

// tcbwSlicesAnd is slices_and.
func tcbwSlicesAnd(sidx []uint32, smask []uint64, i, ie, j, je uint64) uint64 {
	var c uint64
	for i < ie && j < je {
		switch x, y := sidx[i], sidx[j]; {
		case x < y:
			i++
		case y < x:
			j++
		default:
			c += uint64(bits.OnesCount64(smask[i] & smask[j]))
			i++
			j++
		}
	}
	return c
}

func lowerBound32(a []uint32, lo, hi uint64, x uint32) uint64 {
	for lo < hi {
		mid := lo + (hi-lo)>>1
		if a[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// tcbwEdge is edge for every lane of a group of width: the trim is the
// same for all lanes (computed once here), then each lane merges its run.
func tcbwEdge(sidx []uint32, smask []uint64, a0, a1, b0, b1 uint64, klo, khi uint32, width uint64) uint64 {
	lo := max(uint64(klo), uint64(sidx[a0]), uint64(sidx[b0]))
	hi := min(uint64(khi), min(uint64(sidx[a1-1]), uint64(sidx[b1-1]))+1)
	if lo >= hi {
		return 0
	}
	a0 = lowerBound32(sidx, a0, a1, uint32(lo))
	a1 = lowerBound32(sidx, a0, a1, uint32(hi))
	b0 = lowerBound32(sidx, b0, b1, uint32(lo))
	b1 = lowerBound32(sidx, b0, b1, uint32(hi))
	if width == 1 {
		return tcbwSlicesAnd(sidx, smask, a0, a1, b0, b1)
	}
	l0, l1, s0, s1 := a0, a1, b0, b1
	if a1-a0 < b1-b0 {
		l0, l1, s0, s1 = b0, b1, a0, a1
	}
	run := (l1 - l0 + width - 1) / width
	var c uint64
	for lane := range width {
		r0 := l0 + lane*run
		if r0 >= l1 {
			continue // this lane returns 0
		}
		r1 := min(r0+run, l1)
		c += tcbwSlicesAnd(sidx, smask, r0, r1, lowerBound32(sidx, s0, s1, sidx[r0]), s1)
	}
	return c
}

// tcbwPass is the class kernel over items [ibeg, iend) and slice indices
// [klo, khi).
func tcbwPass(adj, src []uint32, items func(uint64) uint64, soff []uint64, sidx []uint32, smask []uint64,
	ibeg, iend uint64, klo, khi uint32, width uint64) uint64 {
	var c uint64
	for i := ibeg; i < iend; i++ {
		e := items(i)
		u, v := src[e], adj[e]
		a0, a1, b0, b1 := soff[u], soff[u+1], soff[v], soff[v+1]
		if a0 >= a1 || b0 >= b1 {
			continue
		}
		c += tcbwEdge(sidx, smask, a0, a1, b0, b1, klo, khi, width)
	}
	return c
}

// tcbwSlicesOf builds the slices of o on the CPU through the kernels'
// logic, with nb scan blocks.
func tcbwSlicesOf(o *graph.Oriented, sliceBits, nb int) (soff []uint64, sidx []uint32, smask []uint64) {
	shift := uint(bits.TrailingZeros(uint(sliceBits)))
	n := o.N()
	soff = make([]uint64, n+1)
	tcbwCount(o.Offsets, o.Adj, shift, soff)
	tcbwScan(soff, nb, 256)
	sidx = make([]uint32, soff[n])
	smask = make([]uint64, soff[n])
	tcbwFill(o.Offsets, o.Adj, shift, uint32(sliceBits), soff, sidx, smask)
	return
}

// checkSlices compares the slices with their definition.
func checkSlices(t *testing.T, o *graph.Oriented, sliceBits int, soff []uint64, sidx []uint32, smask []uint64) {
	t.Helper()
	for u := range o.N() {
		var wantIdx []uint32
		var wantMask []uint64
		for _, x := range o.Neighbors(uint32(u)) {
			s := x / uint32(sliceBits)
			if len(wantIdx) == 0 || wantIdx[len(wantIdx)-1] != s {
				wantIdx = append(wantIdx, s)
				wantMask = append(wantMask, 0)
			}
			wantMask[len(wantMask)-1] |= 1 << (x % uint32(sliceBits))
		}
		a, b := soff[u], soff[u+1]
		if !slices.Equal(sidx[a:b], wantIdx) || !slices.Equal(smask[a:b], wantMask) {
			t.Fatalf("slices of %d bits, vertex %d (list %v): got %v %x, want %v %x",
				sliceBits, u, o.Neighbors(uint32(u)), sidx[a:b], smask[a:b], wantIdx, wantMask)
		}
	}
}

// tcbwCountCPU counts o's triangles through the kernels' logic: the slices,
// the partition of runtime's tcbwPasses (reimplemented by the fake device,
// which receives the passes) and the class kernel.
func tcbwCountCPU(o *graph.Oriented, sliceBits, width, p1, p2, nb int) uint64 {
	soff, sidx, smask := tcbwSlicesOf(o, sliceBits, nb)
	src := make([]uint32, o.Arcs())
	for u := range o.N() {
		for e := o.Offsets[u]; e < o.Offsets[u+1]; e++ {
			src[e] = uint32(u)
		}
	}
	m := o.Arcs()
	// Rows and columns cut at arbitrary points: any tiling must count
	// every triangle once.
	var c uint64
	rows := cuts(m, p1)
	nsl := uint32((uint64(o.N()) + uint64(sliceBits) - 1) / uint64(sliceBits))
	cols := cuts(uint64(nsl), p2)
	for i := range p1 {
		for k := range p2 {
			khi := uint32(cols[k+1])
			if k == p2-1 {
				khi = ^uint32(0)
			}
			c += tcbwPass(o.Adj, src, func(i uint64) uint64 { return i }, soff, sidx, smask,
				rows[i], rows[i+1], uint32(cols[k]), khi, uint64(width))
		}
	}
	return c
}

// cuts splits [0, n) into p consecutive ranges of about equal size.
func cuts(n uint64, p int) []uint64 {
	c := make([]uint64, p+1)
	for i := range p + 1 {
		c[i] = uint64(i) * n / uint64(p)
	}
	return c
}

func tcbwGraphs(t *testing.T) map[string]*graph.Graph {
	t.Helper()
	gs := map[string]*graph.Graph{}
	for name, g := range map[string]graph.Generator{
		"rmat10": graph.DefaultRMAT(10),
		"rmat12": graph.DefaultRMAT(12),
		"er":     graph.ErdosRenyi{N: 300, M: 6000, Seed: 3},
		"wheel":  graph.Wheel{Rim: 20000}, // a hub of degree 20000: a center under tcbw, a list of 20000 under id order
		"star":   graph.Star{Leaves: 100},
		"k60":    graph.Complete{N: 60},
		"grid":   graph.Grid{Rows: 30, Cols: 40, Diagonals: true},
	} {
		gg, _, err := graph.Generate(g)
		if err != nil {
			t.Fatal(err)
		}
		gs[name] = gg
	}
	return gs
}

// TestTCBWReferenceSlices: the count/scan/fill logic builds exactly the
// slices of the definition, for every slice size and scan grid.
func TestTCBWReferenceSlices(t *testing.T) {
	for name, g := range tcbwGraphs(t) {
		for _, oc := range []struct {
			by      graph.Orientation
			relabel bool
		}{{graph.ByTCBW, false}, {graph.ByTCBW, true}, {graph.ByID, false}} {
			o := graph.Orient(g, oc.by, oc.relabel)
			for _, sb := range []int{4, 8, 16, 32, 64} {
				for _, nb := range []int{1, 3, 1024} {
					soff, sidx, smask := tcbwSlicesOf(o, sb, nb)
					t.Run(fmt.Sprintf("%s/%v/relabel=%v/bits=%d/nb=%d", name, oc.by, oc.relabel, sb, nb), func(t *testing.T) {
						checkSlices(t, o, sb, soff, sidx, smask)
					})
				}
			}
		}
	}
}

// TestTCBWReferenceCounts: the class kernel's logic counts the oracle's
// triangles for every orientation, slice size, width and partition.
func TestTCBWReferenceCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for name, g := range tcbwGraphs(t) {
		want := graph.Oracle(g)
		for _, oc := range []struct {
			by      graph.Orientation
			relabel bool
		}{{graph.ByTCBW, false}, {graph.ByTCBW, true}, {graph.ByDegree, false}, {graph.ByID, false}} {
			o := graph.Orient(g, oc.by, oc.relabel)
			for _, sb := range []int{4, 32, 64} {
				for _, w := range []int{1, 2, 32, 256} {
					p1, p2 := 1, 1
					if rng.IntN(2) == 0 {
						p1, p2 = 1+rng.IntN(7), 1+rng.IntN(7)
					}
					if got := tcbwCountCPU(o, sb, w, p1, p2, 1+rng.IntN(8)); got != want {
						t.Errorf("%s %v relabel=%v bits=%d width=%d %dx%d: %d triangles, want %d",
							name, oc.by, oc.relabel, sb, w, p1, p2, got, want)
					}
				}
			}
		}
	}
}

// TestTCBWReferenceRandom: random graphs, random parameters.
func TestTCBWReferenceRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	for i := range 60 {
		n := 2 + rng.IntN(400)
		g, _, err := graph.Generate(graph.ErdosRenyi{N: uint64(n), M: uint64(1 + rng.IntN(min(n*8, n*(n-1)/2))), Seed: uint64(i)})
		if err != nil {
			t.Fatal(err)
		}
		want := graph.Oracle(g)
		o := graph.Orient(g, graph.ByTCBW, rng.IntN(2) == 0)
		sb := 4 << rng.IntN(5)
		w := 1 << rng.IntN(6)
		p1, p2 := 1+rng.IntN(64), 1+rng.IntN(64)
		if got := tcbwCountCPU(o, sb, w, p1, p2, 1+rng.IntN(1024)); got != want {
			t.Errorf("graph %d (n=%d): bits=%d width=%d %dx%d: %d, want %d", i, n, sb, w, p1, p2, got, want)
		}
	}
}

// TestTCBWReferenceDatasets: the shared datasets, TCBW's preset settings
// (orientation tcbw, slices of 32, one thread per edge) and a partitioned
// variant, against the manifest's counts.
func TestTCBWReferenceDatasets(t *testing.T) {
	dir := datasetDir()
	if dir == "" {
		t.Skip("no datasets found (set TCGEN_DATASETS)")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.gz"))
	sort.Strings(files)
	if testing.Short() && len(files) > 4 {
		files = files[:4]
	}
	for _, f := range files {
		g, _, err := graph.Open(f, graph.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want := graph.Oracle(g)
		p, _ := ir.Preset("tcbw")
		o := graph.Orient(g, graph.ByTCBW, p.Relabel)
		if got := tcbwCountCPU(o, 32, 1, 1, 1, 1024); got != want {
			t.Errorf("%s: preset settings: %d, want %d", filepath.Base(f), got, want)
		}
		if got := tcbwCountCPU(o, 64, 8, 3, 5, 7); got != want {
			t.Errorf("%s: 64-bit slices, width 8, 3x5: %d, want %d", filepath.Base(f), got, want)
		}
	}
}

// --- the fake device's bitwise kernels ---

func u64s(b *fakeBuf) []uint64 {
	if len(b.data) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b.data[0])), len(b.data)/8)
}

func u32s(b *fakeBuf) []uint32 {
	if len(b.data) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b.data[0])), len(b.data)/4)
}

// masks reads a mask buffer of maskBytes per mask as u64s.
func masks(b *fakeBuf, maskBytes int) []uint64 {
	if maskBytes == 8 {
		return u64s(b)
	}
	m := make([]uint64, len(b.data)/4)
	for i, x := range u32s(b) {
		m[i] = uint64(x)
	}
	return m
}

func (d *fakeDevice) isSliceKernel(name string) bool {
	return slices.Contains(d.slices.Kernels(), name)
}

// tcbwLaunch runs the bitwise kernels and the slice helpers on the CPU
// (false: not one of them). The scan is emulated whole at ScanDown (the
// sums ScanUp and ScanTop leave in bsum are its by-products), after the
// launches' arguments are checked.
func (d *fakeDevice) tcbwLaunch(name string, grid, block gpu.Dim3, args []any) (bool, error) {
	h := d.slices
	if h == nil {
		return false, nil
	}
	if c, ok := d.kernels[name]; ok && c.Kind == gen.KindBitwise {
		return true, d.tcbwClass(c, grid, block, args)
	}
	if block.X != uint32(h.Block) {
		return d.isSliceKernel(name), fmt.Errorf("%s: block %d", name, block.X)
	}
	switch name {
	case h.ScanUp:
		n := args[1].(uint64)
		if grid.X != h.ScanBlocks(n) {
			return true, fmt.Errorf("scan grid %d for %d entries", grid.X, n)
		}
		return true, nil
	case h.ScanTop:
		if grid.X != 1 {
			return true, fmt.Errorf("scan top on %d blocks", grid.X)
		}
		return true, nil
	case h.ScanDown:
		data, n, bsum := args[0].(*fakeBuf), args[1].(uint64), args[2].(*fakeBuf)
		if grid.X != h.ScanBlocks(n) || uint64(len(bsum.data)) < uint64(grid.X)*8 || uint64(len(data.data)) != n*8 {
			return true, fmt.Errorf("scan grid %d for %d entries, bsum %d bytes", grid.X, n, len(bsum.data))
		}
		tcbwScan(u64s(data), int(grid.X), h.Block)
		return true, nil
	}
	for _, s := range h.Sets {
		if name != s.Count && name != s.Fill {
			continue
		}
		off, adj, n, soff := args[0].(*fakeBuf), args[1].(*fakeBuf), args[2].(uint32), args[3].(*fakeBuf)
		if grid.X != s.Grid.Blocks(uint64(n), 4) {
			return true, fmt.Errorf("%s: grid %d for %d vertices", name, grid.X, n)
		}
		shift := uint(bits.TrailingZeros(uint(s.Bits)))
		if name == s.Count {
			tcbwCount(u64s(off), u32s(adj), shift, u64s(soff))
			return true, nil
		}
		sidx, smaskBuf := args[4].(*fakeBuf), args[5].(*fakeBuf)
		total := u64s(soff)[n]
		// The pairs are allocated at the bound, one slice per oriented edge.
		m := u64s(off)[n]
		if total > m || uint64(len(sidx.data)) != m*4 || uint64(len(smaskBuf.data)) != m*uint64(s.MaskBytes) {
			return true, fmt.Errorf("%s: pair buffers %d, %d bytes for %d slices of %d edges", name, len(sidx.data), len(smaskBuf.data), total, m)
		}
		sm := make([]uint64, total)
		tcbwFill(u64s(off), u32s(adj), shift, uint32(s.Bits), u64s(soff), u32s(sidx), sm)
		for i, x := range sm {
			if s.MaskBytes == 8 {
				u64s(smaskBuf)[i] = x
			} else {
				u32s(smaskBuf)[i] = uint32(x)
			}
		}
		return true, nil
	}
	return false, nil
}

// tcbwClass runs one pass of a bitwise class kernel.
func (d *fakeDevice) tcbwClass(c gen.Class, grid, block gpu.Dim3, args []any) error {
	args, credit, err := d.tcbwLocalArgs(c, args) // local_probe_fake_test.go
	if err != nil {
		return err
	}
	adj, src, counts := args[0].(*fakeBuf), args[1].(*fakeBuf), args[3].(*fakeBuf)
	soff, sidx, smask := args[4].(*fakeBuf), args[5].(*fakeBuf), args[6].(*fakeBuf)
	ibeg, iend, klo, khi := args[7].(uint64), args[8].(uint64), args[9].(uint32), args[10].(uint32)
	if ibeg >= iend || klo >= khi || grid.X != c.Grid.Blocks(iend-ibeg, 4) || block.X != uint32(c.Block) {
		return fmt.Errorf("%s: pass [%d, %d) x [%d, %d) with grid %d block %d", c.Kernel, ibeg, iend, klo, khi, grid.X, block.X)
	}
	set := d.slices.Sets[c.Bitwise.Set]
	if int64(set.Bits) != c.Params[ir.ParamSliceBits] {
		return fmt.Errorf("%s: set of %d bits for slice_bits %d", c.Kernel, set.Bits, c.Params[ir.ParamSliceBits])
	}
	items := func(i uint64) uint64 { return i }
	if b, ok := args[2].(*fakeBuf); ok {
		if iend > uint64(len(b.data))/8 {
			return fmt.Errorf("%s: items [%d, %d) of a list of %d", c.Kernel, ibeg, iend, len(b.data)/8)
		}
		items = func(i uint64) uint64 { return b.u64(i) - d.base } // raised by an index base (unshift)
	} else if args[2].(uint64) != 0 {
		return fmt.Errorf("list argument %v", args[2])
	}
	got := tcbwPass(u32s(adj), u32s(src), items, u64s(soff), u32s(sidx), masks(smask, set.MaskBytes),
		ibeg, iend, klo, khi, uint64(c.Width))
	u64s(counts)[c.Slot] += got
	if credit != nil {
		credit(u32s(adj), u32s(src), items, ibeg, iend, klo, khi, uint(bits.TrailingZeros(uint(set.Bits))))
	}
	return nil
}

// tcbwPlans are the tcbw preset and bitwise hybrids: P1 x P2 blocks with
// 64-bit slices and groups of 4, classes of different slice sizes and
// widths up to a block (one skip class, one merge class between), up to
// 64 x 64 blocks, and a work-keyed list under id order.
func tcbwPlans() []ir.Plan {
	tcbw, _ := ir.Preset("tcbw")
	bw := func(w, blk int, p1, p2, sb int64) ir.Strategy {
		return ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Bitwise, Width: w, Block: blk,
			Params: map[string]int64{ir.ParamP1: p1, ir.ParamP2: p2, ir.ParamSliceBits: sb}}
	}
	return []ir.Plan{tcbw,
		{Prefix: "tcbw_parts", Orientation: ir.OrientTCBW, Relabel: true,
			Classes: []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree}, Strategy: bw(4, 128, 5, 7, 64)}}},
		{Prefix: "tcbw_mixed", Orientation: ir.OrientDegree,
			Classes: []ir.Class{
				{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 2}, Skip: true},
				{Name: "mid", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 2, Hi: 8}, Strategy: bw(1, 64, 2, 1, 8)},
				{Name: "merge", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 8, Hi: 40},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128}},
				{Name: "high", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 40}, Strategy: bw(256, 256, 64, 64, 32)},
			}},
		{Prefix: "tcbw_work", Orientation: ir.OrientID,
			Classes: []ir.Class{
				{Name: "small", Select: ir.Selector{Key: ir.KeyWork, Lo: 0, Hi: 30}, Strategy: bw(1, 256, 1, 3, 16)},
				{Name: "big", Select: ir.Selector{Key: ir.KeyWork, Lo: 30}, Strategy: bw(32, 256, 4, 1, 4)},
			}},
		{Prefix: "tcbw_unrelabelled", Orientation: ir.OrientTCBW,
			Classes: []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree}, Strategy: bw(1, 1024, 1, 2, 32)}}},
	}
}

// TestExecFakeTCBW runs tcbwPlans through the executor on the fake device
// (the CPU reference as kernels).
func TestExecFakeTCBW(t *testing.T) {
	graphs := tcbwGraphs(t)
	plans := tcbwPlans()
	for name, g := range graphs {
		want := graph.Oracle(g)
		for _, p := range plans {
			d := newFakeDevice(t, p, 1<<40)
			res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, g, executor.RunOptions{Repeat: 2})
			if err != nil {
				t.Fatalf("%s on %s: %v", p.Prefix, name, err)
			}
			if res.Triangles != want {
				t.Errorf("%s on %s: %d triangles, want %d: %+v", p.Prefix, name, res.Triangles, want, res.PerClass)
			}
			if len(d.live) != 0 || d.loaded != 0 || d.timers != 0 {
				t.Errorf("%s on %s: %d buffers, %d modules, %d timers left", p.Prefix, name, len(d.live), d.loaded, d.timers)
			}
		}
	}
}
