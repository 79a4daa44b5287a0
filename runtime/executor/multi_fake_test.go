package executor_test

import (
	"fmt"
)

// The fake pivot kernels' half of a split run (runtime/executor/multi_pivot.go):
// count, scatter and the core kernel may get an address inside the offsets
// buffer and the number of vertices from it, and a split device's count
// and scatter get cw 0.

// pivotOffsets resolves the offsets argument of count, scatter and the
// core kernel: the offsets buffer, or an address inside it (split). It
// returns the offsets from the first vertex walked on and the graph's
// vertex count.
func (d *fakeDevice) pivotOffsets(a any) (off []uint64, n uint64, split bool, err error) {
	if b, ok := a.(*fakeBuf); ok {
		return rxU64s(b), uint64(len(b.data))/8 - 1, false, nil
	}
	addr, ok := a.(uint64)
	if !ok {
		return nil, 0, false, fmt.Errorf("offsets argument %T", a)
	}
	for b := range d.live {
		if addr >= b.addr && addr-b.addr < uint64(len(b.data)) {
			if (addr-b.addr)%8 != 0 {
				return nil, 0, false, fmt.Errorf("offsets address %#x not u64-aligned", addr)
			}
			return rxU64s(b)[(addr-b.addr)/8:], uint64(len(b.data))/8 - 1, true, nil
		}
	}
	return nil, 0, false, fmt.Errorf("offsets address %#x lies in no live buffer", addr)
}

// matrixArgs checks the matrix arguments of count and scatter (mat, top,
// cw) on a graph of n vertices; split, those of a device's range, whose
// passes leave the matrix alone: cw 0 with the top of one of the plan's
// cores (or n), and for scatter a sink of a row or a null matrix.
func (p *fakePivot) matrixArgs(name string, n uint64, split bool, mat, top, cw any) (uint64, uint64, error) {
	if !split || cw.(uint32) != 0 {
		return p.coreArgs(name, n, mat, top, cw)
	}
	t := uint64(top.(uint32))
	ok := t == n
	for _, k := range p.h.Cores {
		ok = ok || t == n-min(n, uint64(k))
	}
	if !ok {
		return 0, 0, fmt.Errorf("%s: split: top %d is no core's of %d vertices (cores %v)", name, t, n, p.h.Cores)
	}
	if b, isBuf := mat.(*fakeBuf); isBuf && uint64(len(b.data)) < (n-t)/8 {
		return 0, 0, fmt.Errorf("%s: split: a sink of %d bytes for a core of %d", name, len(b.data), n-t)
	}
	return t, 0, nil
}

// scatterRows is scatter's row loop where the plan has a core (CORE > 0):
// for x in [top, n) of the vertices walked, N+(x) into row x - top of mat
// (cw words a row, 0: every row into the first). Writes past mat, through
// a null one or of an entry below top fail, as they would corrupt memory
// on the GPU.
func (p *fakePivot) scatterRows(name string, off []uint64, adj []uint32, n, top, words uint64, mat any) error {
	if p.core == 0 {
		return nil
	}
	var m []uint32
	if b, ok := mat.(*fakeBuf); ok {
		m = rxU32s(b)
	}
	for x := top; x < n; x++ {
		for e := off[x]; e < off[x+1]; e++ {
			if uint64(adj[e]) < top {
				return fmt.Errorf("%s: row %d: entry %d below top %d", name, x, adj[e], top)
			}
			y := uint64(adj[e]) - top
			i := (x-top)*words + y/32
			if i >= uint64(len(m)) {
				return fmt.Errorf("%s: row %d: word %d past a matrix of %d", name, x, i, len(m))
			}
			m[i] |= 1 << (y % 32)
		}
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
