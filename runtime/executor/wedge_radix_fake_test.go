package executor_test

import (
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"math"
	"unsafe"

	"github.com/tcgen/tcgen/gen"
)

// The fake device runs the wedge/radix phase kernels as Go functions that
// do what each CUDA kernel of templates/isect_radix.cu.tmpl and
// iter_wedge.cu.tmpl does, on the executor's real buffers, sized by
// runtime/executor/wedge_radix.go. A run through the fake device is so the CPU reference of
// the whole design: the same batching of wedges, the same exact output
// offsets and pair unranking, the same MSD levels, digit layout, histogram
// scans, child classification, stable moves and leaf searches, driven by the
// same host loop. Writes past a buffer fail the launch (the GPU would
// corrupt memory silently), which checks the buffer bounds of radix.go.

type fakePhase struct {
	c              gen.Class
	h              gen.Helper
	digits         uint64
	thr            uint64
	tile, scanTile uint64
}

func (d *fakeDevice) addPhases(c gen.Class) {
	if c.Kind != gen.KindRadix {
		return
	}
	if d.phases == nil {
		d.phases = map[string]fakePhase{}
	}
	var tile, scanTile uint64
	for _, h := range c.Radix.Phases {
		switch h.Phase {
		case gen.PhaseHist:
			tile = uint64(h.Tile)
		case gen.PhaseScanUp:
			scanTile = uint64(h.Tile)
		}
	}
	for _, h := range c.Radix.Phases {
		d.kernels[h.Kernel] = c
		d.phases[h.Kernel] = fakePhase{c: c, h: h, digits: 1 << c.Params["radix_bits"], thr: uint64(c.Params["threshold"]), tile: tile, scanTile: scanTile}
	}
}

func rxU64s(a any) []uint64 {
	b := a.(*fakeBuf)
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b.data))), len(b.data)/8)
}

func rxU32s(a any) []uint32 {
	b := a.(*fakeBuf)
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b.data))), len(b.data)/4)
}

// rxBucket is struct Bucket of the template (gen.RadixBucketBytes).
type rxBucket struct{ start, len, key, e0, e1, tile0 uint64 }

func rxGetBucket(bk []uint64, i uint64) rxBucket {
	s := bk[6*i : 6*i+6]
	return rxBucket{s[0], s[1], s[2], s[3], s[4], s[5]}
}

func rxPutBucket(bk []uint64, i uint64, b rxBucket) {
	copy(bk[6*i:6*i+6], []uint64{b.start, b.len, b.key, b.e0, b.e1, b.tile0})
}

// rxItemOf is the item of a wedge class's list that holds wedge q: the
// last j < nitems with wpre[j] <= q (wpre[0] = 0), found by binary search
// as the kernels find it.
func rxItemOf(wpre []uint64, nitems, q uint64) uint64 {
	lo, hi := uint64(1), nitems // the first j in [1, nitems] with wpre[j] > q
	for lo < hi {
		mid := lo + (hi-lo)/2
		if wpre[mid] <= q {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

// rxPairsBefore and rxUnrankPair mirror the template's functions.
func rxPairsBefore(a, d uint64) uint64 {
	r := 2*d - a - 1
	if a&1 == 1 {
		return a * (r >> 1)
	}
	return (a >> 1) * r
}

func rxUnrankPair(d, k uint64) (a, b uint64) {
	t := 2*float64(d) - 1
	disc := t*t - 8*float64(k)
	x := 0.5 * (t - math.Sqrt(math.Max(disc, 0)))
	if x > 0 {
		a = uint64(x)
	}
	if a > d-2 {
		a = d - 2
	}
	for a > 0 && rxPairsBefore(a, d) > k {
		a--
	}
	for a+2 < d && rxPairsBefore(a+1, d) <= k {
		a++
	}
	return a, a + 1 + (k - rxPairsBefore(a, d))
}

func rxLowerBound(a []uint32, lo, hi uint64, x uint32) uint64 {
	for lo < hi {
		mid := lo + (hi-lo)/2
		if a[mid] < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

func rxUpperBound(a []uint32, lo, hi uint64, x uint32) uint64 {
	for lo < hi {
		mid := lo + (hi-lo)/2
		if a[mid] <= x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

func rxBucketOf(bk []uint64, b0, b1, t uint64) uint64 {
	lo, hi := b0+1, b1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if rxGetBucket(bk, mid).tile0 <= t {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

type rxChild struct {
	len, start, key, e0, e1 uint64
	kind                    int
}

func (ph fakePhase) ntiles(n uint64) uint64 { return (n + ph.tile - 1) / ph.tile }

func (ph fakePhase) childOf(bk []uint64, c uint64, P []uint64, lo, bits uint32, offE []uint64, adjE []uint32, n uint32, m uint64, idbits uint32) rxChild {
	var ch rxChild
	b, d := c/ph.digits, c%ph.digits
	if d>>bits != 0 {
		return ch
	}
	s := rxGetBucket(bk, b)
	nt := ph.ntiles(s.len)
	h := ph.digits * s.tile0
	p0, p1 := P[h+d*nt], P[h+(d+1)*nt]
	ch.len = p1 - p0
	if ch.len == 0 {
		return ch
	}
	ch.start = s.start + (p0 - P[h])
	ch.key = s.key | d<<lo
	kmax := ch.key | (uint64(1)<<lo - 1)
	wmask := uint64(1)<<idbits - 1
	pos := func(k uint64, upto bool) uint64 {
		v := k >> idbits
		if v >= uint64(n) {
			return m
		}
		if upto {
			return rxUpperBound(adjE, offE[v], offE[v+1], uint32(k&wmask))
		}
		return rxLowerBound(adjE, offE[v], offE[v+1], uint32(k&wmask))
	}
	ch.e0, ch.e1 = pos(ch.key, false), pos(kmax, true)
	if ch.e1 == ch.e0 {
		return ch
	}
	if lo == 0 || ch.len <= ph.thr || ch.e1-ch.e0 <= ph.thr {
		ch.kind = 2
	} else {
		ch.kind = 1
	}
	return ch
}

func (d *fakeDevice) launchPhase(ph fakePhase, grid, block gpu.Dim3, shared uint32, args []any) (err error) {
	if grid.X == 0 || block.X != uint32(ph.h.Block) || shared != 0 || len(args) != len(ph.h.Args) {
		return fmt.Errorf("%s: launch %v x %v, %d shared bytes, %d args; want block %d, no shared memory, args %v", ph.h.Kernel, grid, block, shared, len(args), ph.h.Block, ph.h.Args)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s (%s): %v", ph.h.Kernel, ph.h.Phase, r)
		}
	}()
	D := ph.digits
	switch ph.h.Phase {
	case gen.PhaseGenerate:
		off, adj, wpre := rxU64s(args[0]), rxU32s(args[1]), rxU64s(args[3])
		var items []uint32
		if b, ok := args[2].(*fakeBuf); ok {
			items = rxU32s(b)
		} else if args[2] != any(uint64(0)) {
			return fmt.Errorf("items %v", args[2])
		}
		nitems, q0, cnt, idbits, keys := args[4].(uint64), args[5].(uint64), args[6].(uint64), args[7].(uint32), rxU64s(args[8])
		var idx []uint64 // a local plan's wedge per candidate (local_pivot_fake_test.go)
		if len(args) > 9 {
			idx = rxU64s(args[9])
		}
		for i := range cnt {
			q := q0 + i
			j := rxItemOf(wpre, nitems, q)
			u := uint32(j)
			if items != nil {
				u = items[j]
			}
			a0 := off[u]
			a, b := rxUnrankPair(off[u+1]-a0, q-wpre[j])
			if b >= off[u+1]-a0 || a >= b {
				return fmt.Errorf("unrank: pair (%d, %d) of d %d", a, b, off[u+1]-a0)
			}
			keys[i] = uint64(adj[a0+a])<<idbits | uint64(adj[a0+b])
			if idx != nil {
				idx[i] = q
			}
		}
	case gen.PhaseHist:
		keys, bk, nseg, ntile := rxU64s(args[0]), rxU64s(args[1]), args[2].(uint64), args[3].(uint64)
		lo, bits, hist := args[4].(uint32), args[5].(uint32), rxU64s(args[6])
		dmask := uint64(1)<<bits - 1
		cnt := make([]uint64, D)
		for t := range ntile {
			s := rxGetBucket(bk, rxBucketOf(bk, 0, nseg, t))
			nt := ph.ntiles(s.len)
			i0 := s.start + (t-s.tile0)*ph.tile
			i1 := min(i0+ph.tile, s.start+s.len)
			clear(cnt)
			for i := i0; i < i1; i++ {
				cnt[(keys[i]>>lo)&dmask]++
			}
			for dg := range D {
				hist[D*s.tile0+dg*nt+(t-s.tile0)] = cnt[dg]
			}
		}
	case gen.PhaseScanUp:
		data, n, part := rxU64s(args[0]), args[1].(uint64), rxU64s(args[2])
		nb := (n + ph.scanTile - 1) / ph.scanTile
		for j := range nb {
			var x uint64
			for i := j * ph.scanTile; i < min((j+1)*ph.scanTile, n); i++ {
				x += data[i]
			}
			part[j] = x
		}
	case gen.PhaseScanMid:
		if grid.X != 1 {
			return fmt.Errorf("%s: grid %d, want one block", ph.h.Kernel, grid.X)
		}
		part, nb, data, n := rxU64s(args[0]), args[1].(uint64), rxU64s(args[2]), args[3].(uint64)
		var carry uint64
		for j := range nb {
			x := part[j]
			part[j] = carry
			carry += x
		}
		data[n] = carry
	case gen.PhaseScanDown:
		data, n, part := rxU64s(args[0]), args[1].(uint64), rxU64s(args[2])
		nb := (n + ph.scanTile - 1) / ph.scanTile
		for j := range nb {
			base := part[j]
			for i := j * ph.scanTile; i < min((j+1)*ph.scanTile, n); i++ {
				x := data[i]
				data[i] = base
				base += x
			}
		}
	case gen.PhaseClassify, gen.PhaseEmit:
		bk, nseg, P := rxU64s(args[0]), args[1].(uint64), rxU64s(args[2])
		lo, bits := args[3].(uint32), args[4].(uint32)
		offE, adjE, n, idbits := rxU64s(args[5]), rxU32s(args[6]), args[7].(uint32), args[9].(uint32)
		m := args[8].(uint64) - d.base // E's end, raised with the offsets (unshift)
		flags := rxU64s(args[10])
		N := nseg * D
		if ph.h.Phase == gen.PhaseClassify {
			for c := range N {
				ch := ph.childOf(bk, c, P, lo, bits, offE, adjE, n, m, idbits)
				nt := ph.ntiles(ch.len)
				flags[c], flags[N+c], flags[2*N+c], flags[3*N+c] = 0, 0, 0, 0
				switch ch.kind {
				case 1:
					flags[c], flags[N+c] = 1, nt
				case 2:
					flags[2*N+c], flags[3*N+c] = 1, nt
				}
			}
			return nil
		}
		next, stat := rxU64s(args[11]), rxU64s(args[12])
		nsplit, splitTiles := flags[N], flags[2*N]-flags[N]
		copy(stat[:4], []uint64{nsplit, splitTiles, flags[3*N] - flags[2*N], flags[4*N] - flags[3*N]})
		for c := range N {
			ch := ph.childOf(bk, c, P, lo, bits, offE, adjE, n, m, idbits)
			var at, tile0 uint64
			switch ch.kind {
			case 0:
				continue
			case 1:
				at, tile0 = flags[c], flags[N+c]-flags[N]
			case 2:
				at, tile0 = nsplit+flags[2*N+c]-flags[2*N], splitTiles+flags[3*N+c]-flags[3*N]
			}
			rxPutBucket(next, at, rxBucket{ch.start, ch.len, ch.key, ch.e0, ch.e1, tile0})
		}
	case gen.PhaseScatter:
		keys, bk, nseg, ntile := rxU64s(args[0]), rxU64s(args[1]), args[2].(uint64), args[3].(uint64)
		lo, bits, P, out := args[4].(uint32), args[5].(uint32), rxU64s(args[6]), rxU64s(args[7])
		var idx, idxOut []uint64 // a local plan's wedges, moved with their keys
		if len(args) > 8 {
			idx, idxOut = rxU64s(args[8]), rxU64s(args[9])
		}
		dmask := uint64(1)<<bits - 1
		cursor := make([]uint64, D)
		for t := range ntile {
			s := rxGetBucket(bk, rxBucketOf(bk, 0, nseg, t))
			nt := ph.ntiles(s.len)
			h := D * s.tile0
			for dg := range D {
				cursor[dg] = s.start + P[h+dg*nt+(t-s.tile0)] - P[h]
			}
			i0 := s.start + (t-s.tile0)*ph.tile
			i1 := min(i0+ph.tile, s.start+s.len)
			for i := i0; i < i1; i++ { // stable: in index order
				dg := (keys[i] >> lo) & dmask
				out[cursor[dg]] = keys[i]
				if idx != nil {
					idxOut[cursor[dg]] = idx[i]
				}
				cursor[dg]++
			}
		}
	case gen.PhaseLeaf:
		keys, bk := rxU64s(args[0]), rxU64s(args[1])
		b0, b1, t0, t1 := args[2].(uint64), args[3].(uint64), args[4].(uint64), args[5].(uint64)
		offE, adjE, idbits, counts := rxU64s(args[6]), rxU32s(args[7]), args[8].(uint32), rxU64s(args[9])
		wmask := uint64(1)<<idbits - 1
		loc, err := d.radixLocal(ph, args) // local_pivot_fake_test.go; nil for the total
		if err != nil {
			return fmt.Errorf("%s: %w", ph.h.Kernel, err)
		}
		var c uint64
		for t := t0; t < t1; t++ {
			s := rxGetBucket(bk, rxBucketOf(bk, b0, b1, t))
			i0 := s.start + (t-s.tile0)*ph.tile
			i1 := min(i0+ph.tile, s.start+s.len)
			for i := i0; i < i1; i++ {
				k := keys[i]
				v := k >> idbits
				lo, hi := max(offE[v], s.e0), min(offE[v+1], s.e1)
				if lo < hi {
					if p := rxLowerBound(adjE, lo, hi, uint32(k&wmask)); p < hi && adjE[p] == uint32(k&wmask) {
						c++
						if loc != nil {
							if err := loc.hit(i, uint32(v), uint32(k&wmask)); err != nil {
								return fmt.Errorf("%s: %w", ph.h.Kernel, err)
							}
						}
					}
				}
			}
		}
		counts[ph.c.Slot] += c
	default:
		return fmt.Errorf("unknown phase %q of %s", ph.h.Phase, ph.h.Kernel)
	}
	return nil
}
