package executor_test

import (
	"context"
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"math/bits"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// The fake device runs the pivot kernels (gen/pivot.go) as Go functions that
// do what each CUDA kernel of templates/pivot_prep.cu.tmpl and
// iter_pivot.cu.tmpl does, on the executor's real buffers sized by
// runtime/pivot.go and with the arguments in the order it passes them:
//
//   - count: a warp per u, one packed counter per pivot (tail entries <<
//     shift | in-edges), the in-edges of the HUBS highest ids counted per
//     block (in "shared memory") and added once, the others directly;
//   - sums, scan: the tile sums and their one-block exclusive scan;
//   - bin: inoff, class_of by d+(v) and guard variant, the split of a
//     pivot's in-edges into items of about max(item_work, build_ratio *
//     d+(v)) tail entries (csz), one append per block and class, pivots of
//     more than a warp of items queued for the whole block up to QUEUE;
//   - scatter: the in-edges placed by counting end (written by bin) down,
//     the hubs' through a per-block range reserved with one atomic, tails
//     packed as start << LEN_BITS | length;
//   - the class kernel: items and nitems read through raw device addresses
//     (resolved inside the fake's buffers), the strides over groups and
//     teams, the open-addressing table of N+(v) with its 8-bit filter (or the
//     binary search of a pivot above TABLE / 2), long tails walked one by one
//     and short ones concatenated by prefix sums, UNROLL positions per lane,
//     and the [lo, hi] filter.
//
// The constants of namespace pv are read from the generated source. Blocks
// reach their global atomics in a random order. Writes past a buffer, past a
// class's part of the item lists or onto an in-edge slot already written
// fail the launch (the GPU would corrupt memory silently), and so does a
// count kernel that finds the counters of the previous pass not zeroed.

type fakePivot struct {
	h       *gen.PivotHelpers
	classes map[string]gen.Class // pivot class kernels by symbol
	rng     *rand.Rand           // the order in which blocks reach their atomics
	// Constants of namespace pv, read from the generated source.
	block, perThread, tile, hubs, queue, nclasses, lenBits, core uint64

	ready  bool     // a scatter ran since the last count: the lists are built
	passes int      // scatter launches
	wrk    *fakeBuf // the work counters, as the last pass left them
	inoff  *fakeBuf // the in-edge offsets bin wrote
	seen   pivotSeen
}

// pivotSeen counts what the kernels met, so the tests can check that they
// reach every path.
type pivotSeen struct {
	items, split, big, teams, unrolled uint64 // items; of chunk > 0; of a big pivot; of a group of several teams; of unroll > 1
	longs, shorts                      uint64 // tails walked one by one, and concatenated
	hubEdges, globalEdges              uint64 // in-edges counted in shared memory, and in global memory
	queued, overflow                   uint64 // pivots whose items the block wrote; the thread did, past QUEUE
	coreLists                          uint64 // lists with two core entries or more, counted by the core kernel
}

func (s *pivotSeen) add(o pivotSeen) {
	s.items += o.items
	s.split += o.split
	s.big += o.big
	s.teams += o.teams
	s.unrolled += o.unrolled
	s.longs += o.longs
	s.shorts += o.shorts
	s.hubEdges += o.hubEdges
	s.globalEdges += o.globalEdges
	s.queued += o.queued
	s.overflow += o.overflow
	s.coreLists += o.coreLists
}

// addPivot registers the pivot kernels of a generated plan (newFakeDevice).
func (d *fakeDevice) addPivot(t *testing.T, out *gen.Output) {
	t.Helper()
	h := out.Manifest.Pivot
	if h == nil {
		return
	}
	p := &fakePivot{h: h, classes: map[string]gen.Class{}, rng: rand.New(rand.NewPCG(uint64(len(h.Classes)), 7))}
	// namespace pv { ... } of the source: its constants.
	src := out.Source
	i := strings.Index(src, "namespace pv {")
	j := strings.Index(src, "}  // namespace pv")
	if i < 0 || j < i {
		t.Fatalf("no namespace pv in the source of %s", out.FileName)
	}
	for name, x := range map[string]*uint64{"BLOCK": &p.block, "PER_THREAD": &p.perThread, "TILE": &p.tile, "HUBS": &p.hubs, "QUEUE": &p.queue, "CLASSES": &p.nclasses, "LEN_BITS": &p.lenBits, "CORE": &p.core} {
		m := regexp.MustCompile(`constexpr u32 ` + name + ` = (\d+);`).FindStringSubmatch(src[i:j])
		if m == nil {
			t.Fatalf("%s: no pv::%s", out.FileName, name)
		}
		*x, _ = strconv.ParseUint(m[1], 10, 64)
	}
	if p.block != uint64(h.Block) || p.tile != uint64(h.Tile) || p.tile != p.block*p.perThread || p.nclasses != uint64(len(h.Classes)) || p.block%32 != 0 ||
		p.core != uint64(slices.Max(append([]int{0}, h.Cores...))) || (len(h.Cores) > 0) != (h.CoreCount != "") {
		t.Fatalf("%s: pv constants %+v against the manifest's %+v", out.FileName, p, h)
	}
	for _, v := range out.Manifest.Variants {
		for _, c := range v.Classes {
			if c.Kind == gen.KindPivot {
				p.classes[c.Kernel] = c
			}
		}
	}
	d.pv = p
}

func (d *fakeDevice) isPivotKernel(name string) bool {
	if d.pv == nil {
		return false
	}
	h := d.pv.h
	return slices.Contains(h.Kernels(), name)
}

// pivotLaunch runs name if it is a pivot kernel (ok = true).
func (d *fakeDevice) pivotLaunch(name string, grid, block gpu.Dim3, shared uint32, args []any) (ok bool, err error) {
	if d.pv == nil {
		return false, nil
	}
	c, isClass := d.pv.classes[name]
	if !isClass && !d.isPivotKernel(name) {
		return false, nil
	}
	defer func() {
		if r := recover(); r != nil {
			ok, err = true, fmt.Errorf("%s: %v", name, r)
		}
	}()
	if grid.Y != 1 || grid.Z != 1 || block.Y != 1 || block.Z != 1 {
		return true, fmt.Errorf("%s: launch %v x %v, want one-dimensional", name, grid, block)
	}
	if isClass {
		return true, d.pivotClass(c, grid, block, shared, args)
	}
	return true, d.pivotPrep(name, grid, block, shared, args)
}

// classOf is pv::class_of: the first pivot class of variant vi whose range
// holds d, its item_work and build_ratio; len(Classes), 1 and 1 when none
// does.
func (p *fakePivot) classOf(vi uint32, d uint64) (cl, work, ratio uint64) {
	for i, c := range p.h.Classes {
		if uint32(c.Variant) == vi && d >= uint64(c.Lo) && (c.Hi == 0 || d < uint64(c.Hi)) {
			return uint64(i), uint64(c.ItemWork), uint64(c.BuildRatio)
		}
	}
	return uint64(len(p.h.Classes)), 1, 1
}

// warpRows calls f for every u that the warps of block b handle in a
// grid-stride loop with a warp per u (count and scatter).
func (p *fakePivot) warpRows(b, gx, n uint64, f func(u uint64) error) error {
	wpb := p.block / 32
	stride := gx * wpb
	for w := b * wpb; w < (b+1)*wpb; w++ {
		for u := w; u < n; u += stride {
			if err := f(u); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *fakeDevice) pivotPrep(name string, grid, block gpu.Dim3, shared uint32, args []any) error {
	p := d.pv
	h := p.h
	// A core kernel: its core, from its name (gen.PivotHelpers.CoreKernel).
	kernelCore := uint64(0)
	for _, k := range h.Cores {
		if name == h.CoreKernel(k) {
			kernelCore = uint64(k)
		}
	}
	nargs := map[string]int{h.Count: 9, h.Sums: 4, h.Scan: 2, h.Bin: 13, h.Scatter: 8}[name]
	if kernelCore > 0 {
		nargs = 6
	}
	if block.X != uint32(p.block) || shared != 0 || len(args) != nargs {
		return fmt.Errorf("%s: block %d, %d shared bytes, %d args; want block %d, none, %d args", name, block.X, shared, len(args), p.block, nargs)
	}
	blk, per, tile, nclasses := p.block, p.perThread, p.tile, p.nclasses
	gx := uint64(grid.X)
	switch name {
	case h.Count: // (off, adj, n, wrk, nitems, shift, mat, top, cw)
		off, adj, n, wrk, nitems := rxU64s(args[0]), rxU32s(args[1]), uint64(args[2].(uint32)), rxU64s(args[3]), rxU64s(args[4])
		shift := uint64(args[5].(uint32))
		top, cw, err := p.coreArgs(name, n, args[6], args[7], args[8])
		if err != nil {
			return err
		}
		if cw > 0 {
			clear(rxU32s(args[6])[:32*cw*cw]) // the matrix, filled by scatter
		}
		if shift >= 64 || n >= 1<<shift {
			return fmt.Errorf("%s: shift %d leaves no room for the in-edges of %d vertices", name, shift, n)
		}
		p.ready = false
		for v := range n {
			if wrk[v] != 0 {
				return fmt.Errorf("%s: wrk[%d] = %d at the start of a pass: the previous one did not zero it", name, v, wrk[v])
			}
		}
		for t := range min(blk, 2*nclasses) { // block 0: the item counts and the queues' counters
			nitems[t] = 0
		}
		add := func(x *uint64, inc uint64) error { // a packed counter must not carry into the next field
			if (*x>>shift)+(inc>>shift) >= 1<<(64-shift) {
				return fmt.Errorf("%s: tail entries overflow %d bits", name, 64-shift)
			}
			*x += inc
			return nil
		}
		h0 := top - min(top, p.hubs)
		hw := make([]uint64, p.hubs) // shared memory
		for _, bi := range p.rng.Perm(int(gx)) {
			b := uint64(bi)
			clear(hw)
			err := p.warpRows(b, gx, n, func(u uint64) error {
				a1 := off[u+1]
				for e := off[u]; e+1 < a1 && uint64(adj[e]) < top; e++ {
					inc := (a1-e-1)<<shift | 1
					if v := uint64(adj[e]); v >= h0 {
						if err := add(&hw[v-h0], inc); err != nil {
							return err
						}
						p.seen.hubEdges++
					} else {
						if err := add(&wrk[v], inc); err != nil {
							return err
						}
						p.seen.globalEdges++
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			for k := uint64(0); k < p.hubs && h0+k < top; k++ {
				if hw[k] != 0 {
					if err := add(&wrk[h0+k], hw[k]); err != nil {
						return err
					}
				}
			}
		}
	case h.Sums: // (wrk, n, shift, sums)
		wrk, n, sums := rxU64s(args[0]), uint64(args[1].(uint32)), rxU64s(args[3])
		mask := uint64(1)<<args[2].(uint32) - 1
		for b := range gx {
			var s uint64
			for t := range blk {
				base := b*tile + t*per
				for k := range per {
					if base+k < n {
						s += wrk[base+k] & mask
					}
				}
			}
			sums[b] = s // the last thread's inclusive scan
		}
	case h.Scan: // (sums, nb)
		if gx != 1 {
			return fmt.Errorf("%s: grid %d, want one block", name, gx)
		}
		sums, nb := rxU64s(args[0]), uint64(args[1].(uint32))
		var carry uint64
		for b := range nb {
			x := sums[b]
			sums[b] = carry
			carry += x
		}
		sums[nb] = carry
	case h.Bin: // (off, cnt, wrk, n, vi, sums, nb, inoff, csz, items, cap, nitems, shift)
		off, end, wrk, n, vi := rxU64s(args[0]), rxU64s(args[1]), rxU64s(args[2]), uint64(args[3].(uint32)), args[4].(uint32)
		shift := args[12].(uint32)
		mask := uint64(1)<<shift - 1
		sums, nb, inoff, csz := rxU64s(args[5]), uint64(args[6].(uint32)), rxU64s(args[7]), rxU32s(args[8])
		items, capacity, nitems := rxU64s(args[9]), args[10].(uint64), rxU64s(args[11])
		p.inoff = args[7].(*fakeBuf) // scatter's placements are checked against it
		p.wrk = args[2].(*fakeBuf)
		// Per thread t and vertex k of its PER_THREAD (index t*per + k):
		// in-edges, items, class.
		c, nch, cls := make([]uint64, blk*per), make([]uint64, blk*per), make([]uint64, blk*per)
		for _, bi := range p.rng.Perm(int(gx)) {
			b := uint64(bi)
			at := sums[b] // the block's exclusive scan of the thread sums, plus its tile's offset
			for t := range blk {
				base := b*tile + t*per
				for k := range per {
					i := t*per + k
					c[i], nch[i], cls[i] = 0, 0, nclasses
					if base+k >= n {
						continue
					}
					x := base + k
					packed := wrk[x]
					c[i] = packed & mask
					if c[i] == 0 {
						continue
					}
					wrk[x] = 0
					w := packed >> shift
					dv := off[x+1] - off[x]
					if dv == 0 {
						continue
					}
					var iw, ratio uint64
					cls[i], iw, ratio = p.classOf(vi, dv)
					iw = max(iw, ratio*dv)
					if iw == 0 {
						return fmt.Errorf("%s: pivot %d: item_work and build_ratio * d+(v) are 0 (division by zero)", name, x)
					}
					k0 := min((w+iw-1)/iw, c[i])
					if k0 == 0 {
						return fmt.Errorf("%s: pivot %d: %d in-edges, %d tail entries: no item (division by zero)", name, x, c[i], w)
					}
					cs := (c[i] + k0 - 1) / k0
					csz[x] = uint32(cs)
					nch[i] = (c[i] + cs - 1) / cs
				}
				for k := range per {
					if base+k < n {
						inoff[base+k] = at
					}
					if c[t*per+k] != 0 {
						end[base+k] = at + c[t*per+k] // scatter counts it down
					}
					at += c[t*per+k]
				}
			}
			if b == nb-1 {
				inoff[n] = sums[nb]
			}
			for cl := range nclasses {
				var total uint64
				for i := range blk * per {
					if cls[i] == cl {
						total += nch[i]
					}
				}
				var slot uint64 // base_of[cl] + the thread's exclusive scan
				if total > 0 {
					slot = nitems[cl]
					nitems[cl] += total
				}
				write := func(v, at, j uint64) error { // out[at] = v << 32 | j
					if at >= capacity {
						return fmt.Errorf("%s: class %d's item list overflows its capacity %d (runtime/pivot.go sizes it)", name, cl, capacity)
					}
					items[cl*capacity+at] = v<<32 | j
					return nil
				}
				// Pivots of more than WARP items go to the block's queue
				// (while it has room), the others are written by their
				// thread.
				type queued struct{ v, slot, n uint64 }
				var queue []queued
				for i := range blk * per { // threads, and each thread's vertices, in order
					if cls[i] != cl {
						continue
					}
					if nch[i] > 32 && uint64(len(queue)) < p.queue {
						queue = append(queue, queued{b*tile + i, slot, nch[i]})
						p.seen.queued++
					} else {
						p.seen.overflow += b2u(nch[i] > 32)
						for j := range nch[i] {
							if err := write(b*tile+i, slot+j, j); err != nil {
								return err
							}
						}
					}
					slot += nch[i]
				}
				for _, q := range queue {
					for j := range q.n {
						if err := write(q.v, q.slot+j, j); err != nil {
							return err
						}
					}
				}
			}
		}
	case h.Scatter: // (off, adj, n, end, tails, mat, top, cw)
		off, adj, n, end := rxU64s(args[0]), rxU32s(args[1]), uint64(args[2].(uint32)), rxU64s(args[3])
		tails := rxU64s(args[4])
		if p.inoff == nil {
			return fmt.Errorf("%s: no bin ran before it", name)
		}
		top, words, err := p.coreArgs(name, n, args[5], args[6], args[7])
		if err != nil {
			return err
		}
		if words > 0 { // the core's rows: N+(x) of each core vertex x
			mat := rxU32s(args[5])
			for x := top; x < n; x++ {
				for e := off[x]; e < off[x+1]; e++ {
					y := uint64(adj[e]) - top
					mat[(x-top)*words+y/32] |= 1 << (y % 32)
				}
			}
		}
		inoff := rxU64s(p.inoff)
		h0 := top - min(top, p.hubs)
		hc := make([]uint64, p.hubs) // shared memory
		written := make([]bool, inoff[n])
		place := func(v, e, a1, old uint64) error { // old: the end before counting it down
			k := old - 1
			if old <= inoff[v] || k >= inoff[v+1] || written[k] {
				return fmt.Errorf("%s: in-edge %d of %d placed at %d, outside [%d, %d) or twice", name, e, v, k, inoff[v], inoff[v+1])
			}
			written[k] = true
			if a1-e-1 >= 1<<p.lenBits || (e+1)>>(64-p.lenBits) != 0 {
				return fmt.Errorf("%s: tail (%d, %d) does not pack in %d + %d bits", name, e+1, a1-e-1, 64-p.lenBits, p.lenBits)
			}
			tails[k] = (e+1)<<p.lenBits | (a1 - e - 1)
			return nil
		}
		for _, bi := range p.rng.Perm(int(gx)) {
			b := uint64(bi)
			clear(hc)
			err := p.warpRows(b, gx, n, func(u uint64) error {
				a1 := off[u+1]
				for e := off[u]; e+1 < a1 && uint64(adj[e]) < top; e++ {
					v := uint64(adj[e])
					if v >= h0 {
						hc[v-h0]++
						continue
					}
					old := end[v] // atomicAdd of -1
					end[v]--
					if err := place(v, e, a1, old); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			// The block's range of each hub, reserved with one atomic.
			for k := uint64(0); k < p.hubs && h0+k < top; k++ {
				if hc[k] != 0 {
					old := end[h0+k]
					if old < inoff[h0+k]+hc[k] {
						return fmt.Errorf("%s: hub %d: the block reserves %d in-edges, %d are left", name, h0+k, hc[k], old-inoff[h0+k])
					}
					end[h0+k] -= hc[k]
					hc[k] = old
				}
			}
			err = p.warpRows(b, gx, n, func(u uint64) error {
				a1 := off[u+1]
				for e := off[u]; e+1 < a1 && uint64(adj[e]) < top; e++ {
					v := uint64(adj[e])
					if v < h0 {
						continue
					}
					old := hc[v-h0] // atomicAdd of -1 on shared memory
					hc[v-h0]--
					if err := place(v, e, a1, old); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		for v := range n {
			if end[v] != inoff[v] && inoff[v+1] > inoff[v] {
				return fmt.Errorf("%s: left end[%d] = %d, want inoff %d", name, v, end[v], inoff[v])
			}
		}
		if i := slices.Index(written, false); i >= 0 {
			return fmt.Errorf("%s: in-edge slot %d of %d left unwritten", name, i, len(written))
		}
		p.ready = true
		p.passes++
	case h.CoreKernel(int(kernelCore)): // (off, adj, n, top, mat, slot)
		if !p.ready {
			return fmt.Errorf("%s: launched before the preparation finished", name)
		}
		off, adj, n := rxU64s(args[0]), rxU32s(args[1]), uint64(args[2].(uint32))
		// The kernel's own core, from its name: top must match it.
		top, words, err := p.coreArgs(name, n, args[4], args[3], uint32(kernelCore/32))
		if err != nil {
			return err
		}
		slot, err := d.pivotAt(args[5])
		if err != nil {
			return fmt.Errorf("%s: slot: %w", name, err)
		}
		// From the matrix, as the kernel: for each u, each core entry v of
		// N+(u) but the last adds |row(v) & S(u)|.
		mat := rxU32s(args[4])
		su := make([]uint32, words)
		var c uint64
		for u := range n {
			a0, a1 := off[u], off[u+1]
			if a1-a0 < 2 || uint64(adj[a1-2]) < top {
				continue
			}
			p.seen.coreLists++
			clear(su)
			k0 := a0
			for uint64(adj[k0]) < top {
				k0++
			}
			for _, x := range adj[k0:a1] {
				y := uint64(x) - top
				su[y/32] |= 1 << (y % 32)
			}
			for _, x := range adj[k0 : a1-1] {
				row := mat[(uint64(x)-top)*words:][:words]
				for k := (uint64(x) - top) / 32; k < words; k++ {
					c += uint64(bits.OnesCount32(row[k] & su[k]))
				}
			}
		}
		slot[0] += c
	}
	return nil
}

// coreArgs checks the core arguments of count, scatter and the core kernel
// (the matrix, or 0 without a core; top = n - min(n, core); cw = core / 32,
// the variant's core, at most the plan's CORE) and returns top and cw.
func (p *fakePivot) coreArgs(name string, n uint64, mat, top, cw any) (uint64, uint64, error) {
	t, w := uint64(top.(uint32)), uint64(cw.(uint32))
	core := 32 * w
	if core > p.core {
		return 0, 0, fmt.Errorf("%s: a core of %d ids, more than the plan's largest %d", name, core, p.core)
	}
	if want := n - min(n, core); t != want {
		return 0, 0, fmt.Errorf("%s: top %d, want %d (n %d, core %d)", name, t, want, n, core)
	}
	if core == 0 {
		if a, ok := mat.(uint64); !ok || a != 0 {
			return 0, 0, fmt.Errorf("%s: a core matrix %v without a core", name, mat)
		}
		return t, 0, nil
	}
	if b, ok := mat.(*fakeBuf); !ok || uint64(len(b.data)) < core*core/8 {
		return 0, 0, fmt.Errorf("%s: core matrix %T, want %d bytes", name, mat, core*core/8)
	}
	return t, w, nil
}

// pivotAt resolves a device address inside a live buffer (Ptr() plus a
// byte offset, as launchPivot passes items and nitems) to the u64 words from
// it on.
func (d *fakeDevice) pivotAt(a any) ([]uint64, error) {
	addr, ok := a.(uint64)
	if !ok {
		return nil, fmt.Errorf("argument %T, want a device address (uint64)", a)
	}
	for b := range d.live {
		if addr >= b.addr && addr-b.addr < uint64(len(b.data)) {
			off := addr - b.addr
			if off%8 != 0 {
				return nil, fmt.Errorf("address %#x is %d bytes into a buffer: not u64-aligned", addr, off)
			}
			return rxU64s(b)[off/8:], nil
		}
	}
	return nil, fmt.Errorf("address %#x lies in no live buffer", addr)
}

// pvTable is struct Table of isect_pivot_table.
type pvTable struct {
	t, f         []uint32 // slots, and the filter of 8 bits per slot
	hb           []uint32 // the hub bitmap: bit x - h0 for a hub x
	fshift, mask uint32
	h0           uint32
	big          bool
	b0, b1       uint64 // the non-hub entries of N+(v)
}

const (
	pvEmpty  = 0xffffffff
	pvGolden = 2654435769
)

// pivotTable is table_build: sm is the group's GROUP_WORDS, table slots and
// then table / 4 words of filter; with spill, sm is the filter and gt the
// group's table slots in global memory.
//
// The hub_bits highest ids of N+(v) (hub >= 1 of them: n - hub and up) are
// bits of the hub bitmap, which follows the filter; the rest goes into the
// table.
func pivotTable(adj []uint32, b0, b1, table, hub uint64, n uint32, sm, gt []uint32) (pvTable, error) {
	at := table + table/4
	if gt != nil {
		at = table / 4
		tb := pvTable{t: gt[:table], f: sm[:table/4]}
		return pivotFill(adj, b0, b1, table, hub, n, tb, sm[at:at+hub/32])
	}
	tb := pvTable{t: sm[:table], f: sm[table : table+table/4]}
	return pivotFill(adj, b0, b1, table, hub, n, tb, sm[at:at+hub/32])
}

func pivotFill(adj []uint32, b0, b1, table, hub uint64, n uint32, tb pvTable, hb []uint32) (pvTable, error) {
	if b1 == b0 {
		return tb, fmt.Errorf("an item of a pivot without out-neighbours")
	}
	tb.hb = hb
	tb.h0 = n // no hub bitmap: no id is a hub
	bh := b1
	if hub > 0 {
		tb.h0 = 0
		if uint64(n) > hub {
			tb.h0 = n - uint32(hub)
		}
		bh = rxLowerBound(adj, b0, b1, tb.h0)
	}
	clear(tb.hb)
	for j := bh; j < b1; j++ {
		x := adj[j] - tb.h0
		tb.hb[x>>5] |= 1 << (x & 31) // atomicOr
	}
	tb.b0, tb.b1 = b0, bh
	d := bh - b0
	tb.big = 2*d > table
	if tb.big {
		return tb, nil
	}
	size := uint32(32)
	if d > 0 {
		size = max(uint32(1)<<bits.Len32(uint32(2*d-1)), 32)
	}
	tb.mask = size - 1
	tb.fshift = 32 - 3 - uint32(bits.Len32(size)-1)
	for k := range size {
		tb.t[k] = pvEmpty
	}
	for k := range size / 4 {
		tb.f[k] = 0
	}
	for j := b0; j < bh; j++ {
		x := adj[j]
		fb := (x * pvGolden) >> tb.fshift
		tb.f[fb>>5] |= 1 << (fb & 31) // atomicOr
		h := fb >> 3
		for probes := uint32(0); tb.t[h] != pvEmpty; probes++ { // atomicCAS
			if probes > tb.mask {
				return tb, fmt.Errorf("table of %d slots full at d+(v) = %d", size, d)
			}
			h = (h + 1) & tb.mask
		}
		tb.t[h] = x
	}
	return tb, nil
}

// has is table_has.
func (tb pvTable) has(adj []uint32, x uint32) (uint64, error) {
	if x >= tb.h0 {
		y := x - tb.h0
		if int(y>>5) >= len(tb.hb) {
			return 0, fmt.Errorf("hub %d past the bitmap of %d words", x, len(tb.hb))
		}
		return uint64(tb.hb[y>>5]>>(y&31)) & 1, nil
	}
	if tb.big {
		if p := rxLowerBound(adj, tb.b0, tb.b1, x); p < tb.b1 && adj[p] == x {
			return 1, nil
		}
		return 0, nil
	}
	fb := (x * pvGolden) >> tb.fshift
	if (tb.f[fb>>5]>>(fb&31))&1 == 0 {
		return 0, nil
	}
	h := fb >> 3
	for probes := uint32(0); probes <= tb.mask; probes++ {
		switch tb.t[h] {
		case x:
			return 1, nil
		case pvEmpty:
			return 0, nil
		}
		h = (h + 1) & tb.mask
	}
	return 0, fmt.Errorf("probe of %d went round a full table", x)
}

// pivotAsserts checks the static_asserts of a pivot class kernel
// (width.cu.tmpl, isect_pivot_table), which it mirrors: a class that fails
// one does not compile.
func pivotAsserts(c gen.Class) error {
	width, table, unroll := uint64(c.Width), uint64(c.Params[ir.ParamTable]), uint64(c.Params[ir.ParamUnroll])
	team, groups := min(width, 32), uint64(c.Block)/width
	switch {
	case groups*width != uint64(c.Block):
		return fmt.Errorf("static_assert(GROUPS * WIDTH == BLOCK) fails: width %d, block %d", width, c.Block)
	case team&(team-1) != 0:
		return fmt.Errorf("static_assert: team %d is not a power of two", team)
	case table&(table-1) != 0 || table < 32:
		return fmt.Errorf("static_assert(TABLE is a power of two && TABLE >= 32) fails: table %d", table)
	case unroll == 0:
		return fmt.Errorf("unroll 0")
	}
	return nil
}

// pivotClass is the class kernel (iter_pivot): (off, adj, inoff, csz,
// tails, items, nitems, counts), items and nitems as device addresses.
func (d *fakeDevice) pivotClass(c gen.Class, grid, block gpu.Dim3, shared uint32, args []any) error {
	if len(args) != len(gen.PivotArgs) || block.X != uint32(c.Block) || shared != uint32(c.DynamicSharedBytes) {
		return fmt.Errorf("%s: block %d, %d shared bytes, %d args; want block %d, %d shared bytes, args %v",
			c.Kernel, block.X, shared, len(args), c.Block, c.DynamicSharedBytes, gen.PivotArgs)
	}
	if !d.pv.ready {
		return fmt.Errorf("%s: launched before the preparation kernels built the pass's lists", c.Kernel)
	}
	if err := pivotAsserts(c); err != nil {
		return fmt.Errorf("%s: %w", c.Kernel, err)
	}
	off, adj, inoff, csz := rxU64s(args[0]), rxU32s(args[1]), rxU64s(args[2]), rxU32s(args[3])
	tails := rxU64s(args[4])
	items, err := d.pivotAt(args[5])
	if err != nil {
		return fmt.Errorf("%s: items: %w", c.Kernel, err)
	}
	nitems, err := d.pivotAt(args[6])
	if err != nil {
		return fmt.Errorf("%s: nitems: %w", c.Kernel, err)
	}
	counts := rxU64s(args[7])
	queue, err := d.pivotAt(args[10])
	if err != nil {
		return fmt.Errorf("%s: queue: %w", c.Kernel, err)
	}
	if q := c.Params[ir.ParamQueue]; q > 0 {
		// The groups take QUEUE items at a time from a counter the count
		// kernel zeroed; the total does not depend on which group takes
		// which, so the items are walked as with the fixed stride below.
		if queue[0] != 0 {
			return fmt.Errorf("%s: queue counter %d at the start of the pass: the count kernel did not zero it", c.Kernel, queue[0])
		}
		queue[0] = nitems[0] + uint64(grid.X)*uint64(c.Block)/uint64(c.Width)*uint64(q) // where the atomics leave it
	}
	var spill []uint32 // the global tables of a spill-global class
	if c.Pivot.SpillWords > 0 {
		if _, ok := args[8].(uint64); ok {
			return fmt.Errorf("%s: spill global but no table buffer", c.Kernel)
		}
		spill = rxU32s(args[8])
	}
	lenBits := d.pv.lenBits
	width, table, unroll := uint64(c.Width), uint64(c.Params[ir.ParamTable]), uint64(c.Params[ir.ParamUnroll])
	team, groups := min(width, 32), uint64(c.Block)/width
	hub := uint64(c.Params[ir.ParamHubBits])
	n := args[9].(uint32)
	words := table + table/4 + hub/32 // GROUP_WORDS: the table, its filter, the hub bitmap
	if c.Pivot.SpillWords > 0 {
		words = table/4 + hub/32 // the filter and the hubs; the table is in global memory
		if uint64(c.Pivot.SpillWords) != table {
			return fmt.Errorf("%s: spill words %d for a table of %d", c.Kernel, c.Pivot.SpillWords, table)
		}
	}
	if sh := uint64(c.StaticSharedBytes + c.DynamicSharedBytes); sh < groups*words*4 {
		return fmt.Errorf("%s: %d bytes of shared memory for %d groups of %d words", c.Kernel, sh, groups, words)
	}
	total := nitems[0]
	sm := make([]uint32, words) // a group's part
	var st, ln, sl, incl, excl [32]uint64
	wv := make([]uint32, unroll)
	var cnt uint64
	var tb pvTable
	// probe is the loop over a lane's UNROLL loaded positions.
	probe := func(v uint64) error {
		for _, w := range wv {
			if w != pvEmpty {
				x, err := tb.has(adj, w)
				if err != nil {
					return fmt.Errorf("%s: pivot %d: %w", c.Kernel, v, err)
				}
				cnt += x
			}
		}
		return nil
	}
	stride := uint64(grid.X) * groups
	for g0 := range stride { // group g0 of the grid
		for i := g0; i < total; i += stride {
			it := items[i]
			v := it >> 32
			cs := uint64(csz[v])
			s := inoff[v] + (it&0xffffffff)*cs
			t := min(s+cs, inoff[v+1])
			b0, b1 := off[v], off[v+1]
			var gt []uint32
			if spill != nil {
				if (g0+1)*table > uint64(len(spill)) {
					return fmt.Errorf("%s: group %d's table lies past the %d words of global tables", c.Kernel, g0, len(spill))
				}
				gt = spill[g0*table : (g0+1)*table]
			}
			if tb, err = pivotTable(adj, b0, b1, table, hub, n, sm, gt); err != nil {
				return fmt.Errorf("%s: item %d (pivot %d, chunk %d): %w", c.Kernel, i, v, it&0xffffffff, err)
			}
			d.pv.seen.add(pivotSeen{items: 1, split: b2u(it&0xffffffff > 0), big: b2u(tb.big), teams: b2u(width > team), unrolled: b2u(unroll > 1)})
			for tm := range width / team { // the group's teams
				for k0 := s + tm*team; k0 < t; k0 += width {
					for l := range team {
						st[l], ln[l] = 0, 0
						if k := k0 + l; k < t {
							x := tails[k] // start << LEN_BITS | length
							st[l], ln[l] = x>>lenBits, x&(1<<lenBits-1)
						}
					}
					// Tails of TEAM entries or more, one by one in lane order.
					for j := range team {
						if ln[j] < team {
							continue
						}
						d.pv.seen.longs++
						for p0 := uint64(0); p0 < ln[j]; p0 += team * unroll {
							for l := range team {
								for r := range unroll {
									wv[r] = pvEmpty
									if p := p0 + r*team + l; p < ln[j] {
										wv[r] = adj[st[j]+p]
									}
								}
								if err := probe(v); err != nil {
									return err
								}
							}
						}
					}
					// The shorter ones, concatenated.
					var acc uint64
					for l := range team {
						sl[l] = 0
						if ln[l] < team {
							sl[l] = ln[l]
							d.pv.seen.shorts += b2u(ln[l] > 0)
						}
						acc += sl[l]
						incl[l], excl[l] = acc, acc-sl[l]
					}
					sum := incl[team-1]
					for p0 := uint64(0); p0 < sum; p0 += team * unroll {
						for l := range team {
							for r := range unroll {
								p := p0 + r*team + l // the lane's position in the concatenated tails
								var q uint64         // the lane whose tail holds p
								for step := team / 2; step > 0; step >>= 1 {
									if incl[q+step-1] <= p {
										q += step
									}
								}
								wv[r] = pvEmpty
								if p < sum {
									wv[r] = adj[st[q]+(p-excl[q])]
								}
							}
							if err := probe(v); err != nil {
								return err
							}
						}
					}
				}
			}
		}
	}
	counts[c.Slot] += cnt
	return nil
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// ---------------------------------------------------------------------------
// Tests.

type pivotGraph struct {
	name string
	g    *graph.Graph
}

func pivotGraphs(t *testing.T) []pivotGraph {
	t.Helper()
	var gs []pivotGraph
	for _, x := range []struct {
		name string
		gen  graph.Generator
	}{
		{"rmat9", graph.DefaultRMAT(9)},
		{"rmat12", graph.DefaultRMAT(12)}, // more vertices than pv::HUBS
		{"er", graph.ErdosRenyi{N: 200, M: 2500, Seed: 5}},
		{"k70", graph.Complete{N: 70}},
		{"wheel", graph.Wheel{Rim: 300}},
		{"grid", graph.Grid{Rows: 15, Cols: 17, Diagonals: true}},
		{"star", graph.Star{Leaves: 40}},
	} {
		g, _, err := graph.Generate(x.gen)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, pivotGraph{x.name, g})
	}
	for _, x := range []struct {
		name  string
		pairs [][2]uint64
	}{
		{"empty", nil},
		{"one-edge", [][2]uint64{{3, 9}}},
		{"triangle", [][2]uint64{{0, 1}, {1, 2}, {0, 2}}},
	} {
		g, _, err := graph.FromPairs(x.pairs)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, pivotGraph{x.name, g})
	}
	return gs
}

// pivotPlanAsserts checks the static_asserts of p's pivot class kernels.
func pivotPlanAsserts(t *testing.T, p ir.Plan) error {
	t.Helper()
	out, err := gen.Generate(p, gen.Target{Arch: "compute_90", MaxSharedPerBlock: 227 << 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range out.Manifest.Variants {
		for _, c := range v.Classes {
			if c.Kind == gen.KindPivot {
				if err := pivotAsserts(c); err != nil {
					return fmt.Errorf("class %s: %w", c.Name, err)
				}
			}
		}
	}
	return nil
}

func pivotOrient(t *testing.T, p ir.Plan, g *graph.Graph) *graph.Oriented {
	t.Helper()
	by := graph.ByDegree
	switch p.Orientation {
	case ir.OrientID:
		by = graph.ByID
	case ir.OrientTCBW:
		by = graph.ByTCBW
	case ir.OrientDegree, "":
	default:
		t.Fatalf("orientation %s", p.Orientation)
	}
	return graph.Orient(g, by, p.Relabel)
}

// middleCounts returns, per vertex v of o (ids in the order), the
// triangles u < v < w with v in the middle.
func middleCounts(o *graph.Oriented) []uint64 {
	at := make([]uint64, o.N())
	for u := range o.N() {
		nu := o.Neighbors(uint32(u))
		for i, v := range nu {
			nv := o.Neighbors(v)
			for _, w := range nu[i+1:] {
				if _, ok := slices.BinarySearch(nv, w); ok {
					at[v]++
				}
			}
		}
	}
	return at
}

// checkPivotRun runs p on g through the fake device, twice, and checks the
// count against the oracle, per class against the triangles whose middle
// vertex the class holds, the counters left at zero and the pass timing.
func checkPivotRun(t *testing.T, p ir.Plan, pg pivotGraph, seen *pivotSeen) *executor.Result {
	t.Helper()
	if err := gen.Check(p); err != nil {
		t.Fatalf("%s: %v", p.Prefix, err)
	}
	d := newFakeDevice(t, p, 1<<40)
	if d.pv == nil {
		t.Fatalf("%s: no pivot helpers in the manifest", p.Prefix)
	}
	const repeat = 2
	res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, pg.g, executor.RunOptions{Repeat: repeat})
	if err != nil {
		t.Errorf("%s on %s: %v", p.Prefix, pg.name, err)
		return nil
	}
	o := pivotOrient(t, p, pg.g)
	want := graph.CountTriangles(o)
	if res.Triangles != want {
		t.Errorf("%s on %s: %d triangles, want %d: %+v", p.Prefix, pg.name, res.Triangles, want, res.PerClass)
	}
	var sum uint64
	for _, c := range res.PerClass {
		sum += c.Triangles
	}
	if sum != res.Triangles {
		t.Errorf("%s on %s: classes sum to %d, total %d", p.Prefix, pg.name, sum, res.Triangles)
	}
	// Per class: the triangles of its pivots (the variant's classes by d+(v)).
	classes := p.Classes
	if p.Guard != nil {
		classes = p.Guard.Variants[res.Variant].Classes
	}
	if len(classes) != len(res.PerClass) {
		t.Fatalf("%s on %s: %d class results for %d classes", p.Prefix, pg.name, len(res.PerClass), len(classes))
	}
	if classes[0].Iterator == ir.IterPivot {
		// The core's pivots (the core highest ids) are counted by the core
		// kernel into the first class that has vertices.
		core := uint64(d.pv.h.VariantCore(res.Variant))
		top := uint64(o.N()) - min(uint64(o.N()), core)
		first := slices.IndexFunc(res.PerClass, func(c executor.ClassResult) bool { return c.Items > 0 })
		per := make([]uint64, len(classes))
		for v, x := range middleCounts(o) {
			if core > 0 && uint64(v) >= top {
				per[first] += x
				continue
			}
			dv := o.Degree(uint32(v))
			for i, c := range classes {
				if dv >= uint64(c.Select.Lo) && (c.Select.Hi == 0 || dv < uint64(c.Select.Hi)) {
					per[i] += x
					break
				}
			}
		}
		for i, c := range res.PerClass {
			if c.Triangles != per[i] {
				t.Errorf("%s on %s: class %s counted %d, its pivots hold %d", p.Prefix, pg.name, c.Name, c.Triangles, per[i])
			}
		}
	}
	if res.Runs != repeat || res.GPUMs.Median <= 0 || res.GPUMs.Min <= 0 {
		t.Errorf("%s on %s: runs %d, gpu %+v", p.Prefix, pg.name, res.Runs, res.GPUMs)
	}
	if pivotVariant := classes[0].Iterator == ir.IterPivot; pivotVariant != (res.PrepMs.Median > 0) {
		t.Errorf("%s on %s: pivot variant %v, preparation %+v", p.Prefix, pg.name, pivotVariant, res.PrepMs)
	}
	// Every pass prepares once, in order, before its class kernels; the
	// counters are zero after it.
	h := d.pv.h
	var prep []string
	for _, k := range d.launch {
		if d.isPivotKernel(k) {
			prep = append(prep, k)
		}
	}
	var wantPrep []string // none when the chosen variant has no pivot class
	perPass := h.Kernels()
	perPass = perPass[:5] // the preparation, then the variant's core kernel
	if k := h.VariantCore(res.Variant); k > 0 {
		perPass = append(perPass, h.CoreKernel(k))
	}
	if pg.g.N() > 0 && classes[0].Iterator == ir.IterPivot {
		for range repeat {
			wantPrep = append(wantPrep, perPass...)
		}
	}
	if !slices.Equal(prep, wantPrep) || d.pv.passes != len(wantPrep)/len(perPass) {
		t.Errorf("%s on %s: preparation launches %v (%d scatters), want %v", p.Prefix, pg.name, prep, d.pv.passes, wantPrep)
	}
	for _, b := range []*fakeBuf{d.pv.wrk} {
		if b != nil && slices.ContainsFunc(b.data, func(b byte) bool { return b != 0 }) {
			t.Errorf("%s on %s: counters not zero after the last pass", p.Prefix, pg.name)
		}
	}
	if len(d.live) != 0 || d.loaded != 0 || d.timers != 0 {
		t.Errorf("%s on %s: %d buffers, %d modules, %d timers left", p.Prefix, pg.name, len(d.live), d.loaded, d.timers)
	}
	if seen != nil {
		seen.add(d.pv.seen)
	}
	return res
}

func pivotClass(name string, lo, hi int64, width, block int, table, itemWork, unroll, ratio int64) ir.Class {
	return ir.Class{
		Name:   name,
		Select: ir.Selector{Key: ir.KeyOutDegree, Lo: lo, Hi: hi},
		Strategy: ir.Strategy{Iterator: ir.IterPivot, Intersection: ir.Hash, Width: width, Block: block,
			Params: map[string]int64{ir.ParamTable: table, ir.ParamItemWork: itemWork, ir.ParamUnroll: unroll, ir.ParamBuildRatio: ratio}},
	}
}

// pivotPlans are hand-made pivot plans: one class; three with item_work 32
// and build_ratio 1 (the least: many items per pivot), 100 and 1<<24 (one
// item per pivot), unroll 1, 3 and 8, widths 1 to 32 and whole blocks, a
// table too small for the highest class (the binary search of a big pivot);
// both orientations; guards.
// queued gives every class of cs a work queue of 1, 4, 16... items a take.
func queued(cs []ir.Class) []ir.Class {
	for i := range cs {
		cs[i].Params[ir.ParamQueue] = int64(1) << (2 * i)
	}
	return cs
}

func pivotPlans() []ir.Plan {
	// Hub bitmaps: none in low and high (the table and the big path see
	// every id), 256 ids in mid (both paths on the same pivot).
	three := func(w1, w2, w3, table int) []ir.Class {
		cs := []ir.Class{
			pivotClass("low", 0, 4, w1, max(w1, 32), 64, 32, 1, 1),
			pivotClass("mid", 4, 16, w2, max(w2, 64), int64(table), 100, 3, 2),
			pivotClass("high", 16, 0, w3, max(w3, 32), int64(max(w3, 64)), 1<<24, 8, 16), // d+ > table/2: the big path
		}
		cs[0].Params[ir.ParamHubBits] = 0
		cs[1].Params[ir.ParamHubBits] = 256
		cs[2].Params[ir.ParamHubBits] = 0
		return cs
	}
	return []ir.Plan{
		{Prefix: "pv_one", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{pivotClass("all", 0, 0, 32, 64, 2048, 4096, 4, 16)}},
		{Prefix: "pv_one_w1", Orientation: ir.OrientID,
			Classes: []ir.Class{pivotClass("all", 0, 0, 1, 32, 64, 32, 2, 1)}},
		{Prefix: "pv_one_block", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{pivotClass("all", 0, 0, 128, 128, 256, 64, 1, 1)}},
		{Prefix: "pv_three_id", Orientation: ir.OrientID, Classes: three(1, 8, 32, 256)},
		{Prefix: "pv_three_deg", Orientation: ir.OrientDegree, Relabel: true, Classes: three(1, 8, 32, 256)},
		{Prefix: "pv_three_w32", Orientation: ir.OrientDegree, Relabel: true, Classes: three(32, 32, 32, 1024)},
		{Prefix: "pv_three_w1", Orientation: ir.OrientID, Classes: three(1, 1, 1, 64)},
		{Prefix: "pv_three_block", Orientation: ir.OrientID, Classes: three(64, 64, 64, 128)},
		{Prefix: "pv_guard", Orientation: ir.OrientDegree, Relabel: true, Guard: &ir.Guard{
			Feature: ir.FeatureAvgOutDeg,
			Variants: []ir.Variant{
				{Lo: 0, Hi: 3, Classes: []ir.Class{pivotClass("a", 0, 2, 4, 64, 64, 40, 2, 1), pivotClass("b", 2, 0, 16, 64, 128, 50, 5, 3)}},
				{Lo: 3, Classes: three(2, 16, 32, 512)},
			},
		}},
		{Prefix: "pv_queue", Orientation: ir.OrientDegree, Relabel: true, Classes: queued(three(1, 8, 32, 256))},
		// A core of 1024 ids: the whole of rmat9 and the small graphs, part
		// of rmat12; the pivot classes take the rest.
		{Prefix: "pv_core", Orientation: ir.OrientDegree, Relabel: true, Core: 1024, Classes: queued(three(1, 8, 32, 256))},
		{Prefix: "pv_core_id", Orientation: ir.OrientID, Core: 1024, Classes: three(4, 32, 64, 128)},
		// A core in one guard variant only, and two sizes.
		{Prefix: "pv_guard_core", Orientation: ir.OrientDegree, Relabel: true, Guard: &ir.Guard{
			Feature: ir.FeatureAvgOutDeg,
			Variants: []ir.Variant{
				{Lo: 0, Hi: 2, Core: 2048, Classes: three(2, 16, 32, 512)},
				{Lo: 2, Hi: 12, Classes: three(1, 8, 32, 256)},
				{Lo: 12, Core: 1024, Classes: queued(three(1, 8, 32, 256))},
			},
		}},
		{Prefix: "pv_guard_mixed", Orientation: ir.OrientDegree, Relabel: true, Guard: &ir.Guard{
			Feature: ir.FeatureAvgOutDeg,
			Variants: []ir.Variant{
				{Lo: 0, Hi: 3, Classes: []ir.Class{{Name: "vh", Select: ir.Selector{Key: ir.KeyOutDegree},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Hash, Width: 32, Block: 128}}}},
				{Lo: 3, Classes: three(1, 4, 32, 64)},
			},
		}},
	}
}

func TestPivotFakeExample(t *testing.T) {
	p, err := ir.Load("../../examples/pivot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !p.HasPivot() {
		t.Fatal("examples/pivot.yaml has no pivot class")
	}
	var seen pivotSeen
	for _, pg := range pivotGraphs(t) {
		checkPivotRun(t, p, pg, &seen)
	}
	t.Logf("class kernels: %+v", seen)
}

func TestPivotFakePlans(t *testing.T) {
	graphs := pivotGraphs(t)
	variants := map[string]map[int]bool{}
	var seen pivotSeen
	for _, p := range pivotPlans() {
		variants[p.Prefix] = map[int]bool{}
		for _, pg := range graphs {
			if res := checkPivotRun(t, p, pg, &seen); res != nil {
				variants[p.Prefix][res.Variant] = true
			}
		}
	}
	// The plans reach every path of the class kernel.
	t.Logf("class kernels: %+v", seen)
	if seen.split == 0 || seen.big == 0 || seen.teams == 0 || seen.unrolled == 0 || seen.split == seen.items || seen.big == seen.items ||
		seen.longs == 0 || seen.shorts == 0 || seen.hubEdges == 0 || seen.globalEdges == 0 || seen.queued == 0 || seen.overflow == 0 || seen.coreLists == 0 {
		t.Errorf("the plans miss a path of the class kernel: %+v", seen)
	}
	// The guards chose each variant on some graph.
	for _, name := range []string{"pv_guard", "pv_guard_mixed"} {
		if len(variants[name]) != 2 {
			t.Errorf("%s ran variants %v, want both", name, variants[name])
		}
	}
	if len(variants["pv_guard_core"]) != 3 {
		t.Errorf("pv_guard_core ran variants %v, want all three", variants["pv_guard_core"])
	}
}

// TestPivotFakeRandom runs seeded random pivot plans that gen accepts.
func TestPivotFakeRandom(t *testing.T) {
	var graphs []pivotGraph
	for _, pg := range pivotGraphs(t) {
		if pg.name == "rmat9" || pg.name == "rmat12" || pg.name == "k70" || pg.name == "one-edge" {
			graphs = append(graphs, pg)
		}
	}
	rng := rand.New(rand.NewPCG(2024, 11))
	const want = 12
	got, draws := 0, 0
	var seen pivotSeen
	for got < want {
		if draws++; draws > 20000 {
			t.Fatalf("%d pivot plans in %d draws", got, draws)
		}
		p := ir.RandomPlan(rng)
		if !p.HasPivot() || gen.Check(p) != nil {
			continue
		}
		if err := pivotPlanAsserts(t, p); err != nil {
			// It would not compile: TestPivotRandomPlansCompile reports it.
			t.Logf("not run (TestPivotRandomPlansCompile): %v", err)
			continue
		}
		p.Prefix = fmt.Sprintf("pvrand%d", got)
		got++
		for _, pg := range graphs {
			checkPivotRun(t, p, pg, &seen)
		}
	}
	t.Logf("%d random pivot plans in %d draws; class kernels: %+v", got, draws, seen)
}

// TestPivotRandomPlansCompile: every random pivot plan that gen.Check
// accepts passes the static_asserts of its kernels.
func TestPivotRandomPlansCompile(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	got, bad := 0, 0
	for draws := 0; got < 200 && draws < 100000; draws++ {
		p := ir.RandomPlan(rng)
		if !p.HasPivot() || gen.Check(p) != nil {
			continue
		}
		got++
		if err := pivotPlanAsserts(t, p); err != nil {
			if bad++; bad <= 3 {
				t.Errorf("gen.Check accepts %s, whose kernel does not compile: %v; classes %+v", p.Name(), err, p.Classes)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d random pivot plans that gen.Check accepts do not compile", bad, got)
	}
}

// TestPivotFakeBounds: a buffer too small for what a kernel writes fails
// the launch instead of panicking, and so does an address outside every
// buffer.
func TestPivotFakeBounds(t *testing.T) {
	p := pivotPlans()[0]
	d := newFakeDevice(t, p, 1<<40)
	h := d.pv.h
	alloc := func(n uint64) *fakeBuf {
		b, _ := d.Alloc(n)
		return b.(*fakeBuf)
	}
	g, _, err := graph.Generate(graph.Complete{N: 5})
	if err != nil {
		t.Fatal(err)
	}
	o := graph.Orient(g, graph.ByID, false)
	n, m := uint64(o.N()), o.Arcs()
	off, adj := alloc((n+1)*8), alloc(m*4)
	if err := gpu.WriteSlice(off, 0, o.Offsets); err != nil {
		t.Fatal(err)
	}
	if err := gpu.WriteSlice(adj, 0, o.Adj); err != nil {
		t.Fatal(err)
	}
	launch := func(name string, grid uint32, args ...any) error {
		f := &fakeFunc{d: d, name: name}
		return f.Launch(gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(h.Block), Y: 1, Z: 1}, 0, args...)
	}
	end, wrk, nitems := alloc(n*8), alloc(n*8), alloc(16) // the item count and the queue counter
	shift := uint32(bits.Len64(n))
	if err := launch(h.Count, 1, off, adj, uint32(n), wrk, nitems, shift, uint64(0), uint32(n), uint32(0)); err != nil {
		t.Fatal(err)
	}
	sums, inoff, csz := alloc(16), alloc((n+1)*8), alloc(n*4)
	for _, k := range []struct {
		name string
		args []any
	}{{h.Sums, []any{wrk, uint32(n), shift, sums}}, {h.Scan, []any{sums, uint32(1)}}} {
		if err := launch(k.name, 1, k.args...); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", what, err, want)
		}
	}
	// Items for one class sized one short (pivots 1, 2 and 3 get an item
	// each).
	expect("bin past the item list's capacity",
		launch(h.Bin, 1, off, end, wrk, uint32(n), uint32(0), sums, uint32(1), inoff, csz, alloc(16), uint64(2), nitems, shift),
		"overflows its capacity")
	// Tails one short (K5 by id has 6 in-edges with a tail): scatter writes
	// past the buffer.
	expect("scatter past the tails", launch(h.Scatter, 1, off, adj, uint32(n), end, alloc(5*8), uint64(0), uint32(n), uint32(0)), "index out of range")
	// A class kernel given an items address outside every buffer.
	if len(d.pv.classes) != 1 {
		t.Fatalf("%d pivot classes", len(d.pv.classes))
	}
	for _, c := range d.pv.classes {
		d.pv.ready = true
		f := &fakeFunc{d: d, name: c.Kernel}
		expect("class kernel with items at address 1",
			f.Launch(gpu.Dim3{X: 4, Y: 1, Z: 1}, gpu.Dim3{X: uint32(c.Block), Y: 1, Z: 1}, uint32(c.DynamicSharedBytes),
				off, adj, inoff, csz, alloc(6*8), uint64(1), nitems.Ptr(), alloc(8), uint64(0), uint32(n), nitems.Ptr()+8),
			"lies in no live buffer")
	}
}

// TestPivotFakePassOnly: with PassOnly a pass records only its own two
// events, counts the same, and reports no class or preparation times.
func TestPivotFakePassOnly(t *testing.T) {
	p, err := ir.Load("../../examples/pivot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pg := pivotGraphs(t)[0]
	d := newFakeDevice(t, p, 1<<40)
	res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, pg.g, executor.RunOptions{Repeat: 3, PassOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := graph.CountTriangles(pivotOrient(t, p, pg.g)); res.Triangles != want {
		t.Errorf("%d triangles, want %d", res.Triangles, want)
	}
	if res.PrepKernels != nil || res.PrepMs.Median != 0 {
		t.Errorf("preparation timed: %+v, %+v", res.PrepMs, res.PrepKernels)
	}
	for _, c := range res.PerClass {
		if c.Ms.Median != 0 {
			t.Errorf("class %s timed: %+v", c.Name, c.Ms)
		}
	}
	if res.GPUMs.Median <= 0 || res.KernelMs != res.GPUMs {
		t.Errorf("kernel %+v, pass %+v: want the pass alone", res.KernelMs, res.GPUMs)
	}
}
