package executor_test

import (
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"math/bits"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
)

// The fake device runs the pivot kernels (gen/pivot_hash.go) as Go functions that
// do what each CUDA kernel of templates/pivot_prep.cu.tmpl and
// iter_pivot.cu.tmpl does, on the executor's real buffers sized by
// runtime/executor/pivot.go and with the arguments in the order it passes them:
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

	splits int      // count launches on a device's range (multi_fake_test.go)
	ready  bool     // a scatter ran since the last count: the lists are built
	passes int      // scatter launches
	wrk    *fakeBuf // the work counters, as the last pass left them
	inoff  *fakeBuf // the in-edge offsets bin wrote
	seen   pivotSeen

	// local is the plan's local output (local_pivot_fake_test.go).
	local ir.Output

	// walked and entries are what the last count walked: its vertices,
	// and their entries and tail entries (a split device's cost,
	// multi_fake_test.go).
	walked, entries uint64

	// partitioned: a count in partitions runs (partition_pivot_fake_test.go),
	// whose core kernel runs at a block's arrival, before any pair's lists.
	partitioned bool
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
	p := &fakePivot{h: h, classes: map[string]gen.Class{}, rng: rand.New(rand.NewPCG(uint64(len(h.Classes)), 7)), local: out.Manifest.Output}
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
	wantShared := 0
	if kernelCore > 0 {
		nargs = 6
		if p.local != "" { // local_pivot_fake_test.go
			nargs, wantShared = 7, h.CoreShared(int(kernelCore))
		}
	}
	if block.X != uint32(p.block) || shared != uint32(wantShared) || len(args) != nargs {
		return fmt.Errorf("%s: block %d, %d shared bytes, %d args; want block %d, %d shared bytes, %d args", name, block.X, shared, len(args), p.block, wantShared, nargs)
	}
	blk, per, tile, nclasses := p.block, p.perThread, p.tile, p.nclasses
	gx := uint64(grid.X)
	switch name {
	case h.Count: // (off, adj, n, wrk, nitems, shift, mat, top, cw)
		off, nv, split, err := d.pivotOffsets(args[0]) // n is the vertices walked, nv the graph's
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		adj, n, wrk, nitems := rxU32s(args[1]), uint64(args[2].(uint32)), rxU64s(args[3]), rxU64s(args[4])
		shift := uint64(args[5].(uint32))
		top, cw, err := p.matrixArgs(name, nv, split, args[6], args[7], args[8])
		if err != nil {
			return err
		}
		p.splits += b2i(split)
		p.walked, p.entries = n, off[n]-off[0]
		if cw > 0 {
			clear(rxU32s(args[6])[:32*cw*cw]) // the matrix, filled by scatter
		}
		if warps := blk / 32; gx > max(1, (n+warps-1)/warps) { // sized for the vertices walked
			return fmt.Errorf("%s: %d blocks for %d vertices, a warp each: blocks without a vertex", name, gx, n)
		}
		if shift >= 64 || n >= 1<<shift {
			return fmt.Errorf("%s: shift %d leaves no room for the in-edges of %d vertices", name, shift, n)
		}
		p.ready = false
		for v := range nv {
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
					p.entries += a1 - e - 1
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
		off, _, _, err := d.pivotOffsets(args[0]) // a count in partitions gives the targets' from their first on
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		end, wrk, n, vi := rxU64s(args[1]), rxU64s(args[2]), uint64(args[3].(uint32)), args[4].(uint32)
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
						return fmt.Errorf("%s: class %d's item list overflows its capacity %d (runtime/executor/pivot.go sizes it)", name, cl, capacity)
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
		off, nv, split, err := d.pivotOffsets(args[0])
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		adj, n, end := rxU32s(args[1]), uint64(args[2].(uint32)), rxU64s(args[3])
		tails := rxU64s(args[4])
		if p.inoff == nil {
			return fmt.Errorf("%s: no bin ran before it", name)
		}
		top, words, err := p.matrixArgs(name, nv, split, args[5], args[6], args[7])
		if err != nil {
			return err
		}
		if err := p.scatterRows(name, off, adj, n, top, words, args[5]); err != nil {
			return err
		}
		inoff := rxU64s(p.inoff)
		h0 := top - min(top, p.hubs)
		hc := make([]uint64, p.hubs) // shared memory
		written := make([]bool, inoff[nv])
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
		for v := range nv {
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
		if !p.ready && !p.partitioned {
			return fmt.Errorf("%s: launched before the preparation finished", name)
		}
		off, nv, _, err := d.pivotOffsets(args[0])
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		adj, n := rxU32s(args[1]), uint64(args[2].(uint32))
		// The kernel's own core, from its name: top must match it.
		top, words, err := p.coreArgs(name, nv, args[4], args[3], uint32(kernelCore/32))
		if err != nil {
			return err
		}
		slot, err := d.pivotAt(args[5])
		if err != nil {
			return fmt.Errorf("%s: slot: %w", name, err)
		}
		// From the matrix, as the kernel: for each u, each core entry v of
		// N+(u) but the last adds |row(v) & S(u)| above v.
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
				v := uint64(x) - top
				for k := v / 32; k < words; k++ {
					above := ^uint32(0) // a per-edge plan's rows hold the in-edges too: w > v only
					if k == v/32 {
						above = ^uint32(1) << (v % 32)
					}
					c += uint64(bits.OnesCount32(row[k] & su[k] & above))
				}
			}
		}
		slot[0] += c
		if p.local != "" {
			return coreLocal(p.local, off, adj, n, top, mat, words, args[6]) // local_pivot_fake_test.go
		}
	}
	return nil
}
