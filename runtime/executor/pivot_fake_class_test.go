package executor_test

import (
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"math/bits"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
)

// The fake pivot class kernel and the core kernel (pivot_fake_test.go runs
// the preparation kernels).

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
	nargs := len(gen.PivotArgs)
	if d.outputs[c.Kernel] != "" {
		nargs += len(gen.PivotLocalArgs) // local_pivot_fake_test.go
	}
	if len(args) != nargs || block.X != uint32(c.Block) || shared != uint32(c.DynamicSharedBytes) {
		return fmt.Errorf("%s: block %d, %d shared bytes, %d args; want block %d, %d shared bytes, %d args",
			c.Kernel, block.X, shared, len(args), c.Block, c.DynamicSharedBytes, nargs)
	}
	if !d.pv.ready {
		return fmt.Errorf("%s: launched before the preparation kernels built the pass's lists", c.Kernel)
	}
	if err := pivotAsserts(c); err != nil {
		return fmt.Errorf("%s: %w", c.Kernel, err)
	}
	off, _, _, err := d.pivotOffsets(args[0]) // a count in partitions gives the targets' from their first on
	if err != nil {
		return fmt.Errorf("%s: %w", c.Kernel, err)
	}
	adj, inoff, csz := rxU32s(args[1]), rxU64s(args[2]), rxU32s(args[3])
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
	wp, ws := make([]uint64, unroll), make([]uint64, unroll) // each loaded position's adj position, and its tail's start
	var cnt uint64
	var tb pvTable
	loc, err := d.pivotLocal(c, args) // local_pivot_fake_test.go; nil for the total
	if err != nil {
		return fmt.Errorf("%s: %w", c.Kernel, err)
	}
	// probe is the loop over a lane's UNROLL loaded positions.
	probe := func(v uint64) error {
		for r, w := range wv {
			if w != pvEmpty {
				x, err := tb.has(adj, w)
				if err != nil {
					return fmt.Errorf("%s: pivot %d: %w", c.Kernel, v, err)
				}
				cnt += x
				if x != 0 && loc != nil {
					if err := loc.pivotHit(v, w, wp[r], ws[r]); err != nil {
						return fmt.Errorf("%s: pivot %d: %w", c.Kernel, v, err)
					}
				}
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
										wv[r], wp[r], ws[r] = adj[st[j]+p], st[j]+p, st[j]
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
									wv[r], wp[r], ws[r] = adj[st[q]+(p-excl[q])], st[q]+(p-excl[q]), st[q]
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
