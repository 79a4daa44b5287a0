package executor_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
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
			if p.local == ir.OutputEdge { // a per-edge plan's rows hold the in-edges from the core too
				m[y*words+(x-top)/32] |= 1 << ((x - top) % 32)
			}
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

// fakeSplitCost is a pivot device's pass time as its timers read it: a
// thousandth of a ms per entry and tail entry of the range its last count
// walked and perVertex ms per vertex (the model's pivotItemWork is 2048
// entries a vertex: 10 ms is five times that); 0.5 ms for a timer without
// count.
func fakeSplitCost(d *fakeDevice, perVertex float64) func([]string) float64 {
	return func(launched []string) float64 {
		if d.pv == nil || !slices.Contains(launched, d.pv.h.Count) {
			return 0.5
		}
		return float64(d.pv.entries)*1e-3 + float64(d.pv.walked)*perVertex
	}
}

// uploaded is what the fake devices were given: allocations and writes.
type uploaded struct{ allocs, writes, fills int }

func uploads(fakes []*fakeDevice) uploaded {
	var u uploaded
	for _, d := range fakes {
		u.allocs, u.writes, u.fills = u.allocs+d.allocs, u.writes+d.writes, u.fills+d.fills
	}
	return u
}

// checkRebalance checks a rebalance between two runs of p on nd devices:
// the same count; a split pivot variant recut into ranges that tile the
// vertices, which the later run's devices count, with a prediction each;
// any other run left as it was, saying why.
func checkRebalance(t *testing.T, p ir.Plan, nd int, first, res *executor.Result, r executor.RebalanceRound) {
	t.Helper()
	if res.Triangles != first.Triangles {
		t.Errorf("%s on %d devices: %d triangles before the rebalance, %d after", p.Prefix, nd, first.Triangles, res.Triangles)
	}
	_, pivot := res.PrepKernels["count"]
	switch {
	case nd == 1:
		if r.Why != "one device" || r.After != nil {
			t.Errorf("%s on one device: rebalance %+v", p.Prefix, r)
		}
		return
	case !pivot:
		if !strings.Contains(r.Why, "lists are cut once") || r.After != nil {
			t.Errorf("%s on %d devices: lists rebalanced: %+v", p.Prefix, nd, r)
		}
		return
	}
	if r.Why != "" || len(r.After) != nd+1 || len(r.PredictedMs) != nd || len(res.Rebalance) != 1 {
		t.Fatalf("%s on %d devices: rebalance %+v; result carries %d rounds", p.Prefix, nd, r, len(res.Rebalance))
	}
	if r.After[0] != 0 || r.After[nd] != res.Vertices || !slices.IsSorted(r.After) {
		t.Errorf("%s on %d devices: cuts %v do not tile [0, %d)", p.Prefix, nd, r.After, res.Vertices)
	}
	for k, d := range res.Devices {
		if d.Items != r.After[k+1]-r.After[k] || d.PredictedMs != r.PredictedMs[k] {
			t.Errorf("%s on %d devices: device %d has %d items, predicted %g ms; cuts %v, predictions %v", p.Prefix, nd, k, d.Items, d.PredictedMs, r.After, r.PredictedMs)
		}
	}
}
