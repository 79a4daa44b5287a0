package executor_test

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
)

// The fake device's local counts of the pivot family (the class kernel of
// templates/iter_pivot_local.cu.tmpl and the core kernel of
// pivot_core_local.cu.tmpl) and of the radix leaf (radix_local.cu.tmpl):
// each triangle the emulated kernels find is credited from what the kernel
// is given (src, the tails' starts, the candidates' wedge indices), and
// the positions those must name are checked, so a wrong argument or a lost
// wedge index fails the launch instead of miscounting.

// fakeLocal credits triangles into a launch's local counters.
type fakeLocal struct {
	out   ir.Output
	local []uint64 // nil: the graph has no counters (no edges)
	src   []uint32 // output vertex, pivot classes: src[e] = u of the edge at e
	off   []uint64
	adj   []uint32
}

// newFakeLocal reads the local counters argument (a buffer, or 0 when the
// graph has none) of a kernel of a plan with output out.
func newFakeLocal(out ir.Output, arg any, off []uint64, adj []uint32) (*fakeLocal, error) {
	fl := &fakeLocal{out: out, off: off, adj: adj}
	switch a := arg.(type) {
	case *fakeBuf:
		fl.local = rxU64s(a)
	case uint64:
		if a != 0 {
			return nil, fmt.Errorf("local counters %#x: not a buffer", a)
		}
	default:
		return nil, fmt.Errorf("local counters %T", arg)
	}
	return fl, nil
}

func (fl *fakeLocal) add(i uint64) error {
	if i >= uint64(len(fl.local)) {
		return fmt.Errorf("credit at %d, past the %d local counters", i, len(fl.local))
	}
	fl.local[i]++
	return nil
}

// position returns the adj position of x in N+(v).
func (fl *fakeLocal) position(v uint64, x uint32) (uint64, error) {
	lo, hi := fl.off[v], fl.off[v+1]
	if p := rxLowerBound(fl.adj, lo, hi, x); p < hi && fl.adj[p] == x {
		return p, nil
	}
	return 0, fmt.Errorf("%d is not in N+(%d)", x, v)
}

// triangle credits the triangle u, v, w: to its vertices, or to its edges,
// (u, v) at puv, (u, w) at puw and (v, w) found in the oriented lists.
func (fl *fakeLocal) triangle(u, v, w uint64, puv, puw uint64) error {
	if fl.out == ir.OutputVertex {
		for _, x := range []uint64{u, v, w} {
			if err := fl.add(x); err != nil {
				return err
			}
		}
		return nil
	}
	pvw, err := fl.position(v, uint32(w))
	if err != nil { // stored the other way round (an unrelabelled degree order)
		if pvw, err = fl.position(w, uint32(v)); err != nil {
			return fmt.Errorf("no edge between %d and %d", v, w)
		}
	}
	for _, p := range []uint64{puv, puw, pvw} {
		if err := fl.add(p); err != nil {
			return err
		}
	}
	return nil
}

// pivotLocal reads the local arguments of pivot class kernel c
// (gen.PivotLocalArgs after gen.PivotArgs); nil for the total.
func (d *fakeDevice) pivotLocal(c gen.Class, args []any) (*fakeLocal, error) {
	out := d.outputs[c.Kernel]
	if out == "" {
		return nil, nil
	}
	base := len(gen.PivotArgs)
	fl, err := newFakeLocal(out, args[base+1], rxU64s(args[0]), rxU32s(args[1]))
	if err != nil {
		return nil, err
	}
	if out == ir.OutputVertex {
		b, ok := args[base].(*fakeBuf)
		if !ok {
			return nil, fmt.Errorf("src %v under output vertex: the in-edges' u are unknown", args[base])
		}
		fl.src = rxU32s(b)
	}
	return fl, nil
}

// pivotHit credits a hit of the class kernel: w, at adj position pw, in
// the tail starting at st of the in-edge (u, v) at st - 1.
func (fl *fakeLocal) pivotHit(v uint64, w uint32, pw, st uint64) error {
	e := st - 1
	if st == 0 || fl.adj[e] != uint32(v) {
		return fmt.Errorf("tail start %d: not after an in-edge of %d", st, v)
	}
	var u uint64
	if fl.out == ir.OutputVertex {
		u = uint64(fl.src[e])
		if u+1 >= uint64(len(fl.off)) || e < fl.off[u] || e >= fl.off[u+1] {
			return fmt.Errorf("src[%d] = %d, whose list does not hold position %d", e, u, e)
		}
	}
	return fl.triangle(u, v, uint64(w), e, pw)
}

// coreLocal credits the core kernel's triangles, each set bit of
// row(v) & S(u) on its own, from the matrix as the kernel reads it.
func coreLocal(out ir.Output, off []uint64, adj []uint32, n, top uint64, mat []uint32, words uint64, arg any) error {
	fl, err := newFakeLocal(out, arg, off, adj)
	if err != nil {
		return err
	}
	su := make([]uint32, words)
	for u := range n {
		a0, a1 := off[u], off[u+1]
		if a1-a0 < 2 || uint64(adj[a1-2]) < top {
			continue
		}
		clear(su)
		k0 := a0 + uint64(slices.IndexFunc(adj[a0:a1], func(x uint32) bool { return uint64(x) >= top }))
		for _, x := range adj[k0:a1] {
			y := uint64(x) - top
			su[y/32] |= 1 << (y % 32)
		}
		for j := k0; j+1 < a1; j++ {
			v := uint64(adj[j]) - top
			row := mat[v*words:][:words]
			for k := v / 32; k < words; k++ {
				above := ^uint32(0) // a per-edge plan's rows are whole neighbourhoods: w > v only
				if k == v/32 {
					above = ^uint32(1) << (v % 32)
				}
				for x := row[k] & su[k] & above; x != 0; x &= x - 1 {
					w := top + 32*k + uint64(bits.TrailingZeros32(x))
					var puw uint64
					if out == ir.OutputEdge {
						if puw, err = fl.position(u, uint32(w)); err != nil {
							return err
						}
					}
					if err := fl.triangle(u, top+v, w, j, puw); err != nil {
						return fmt.Errorf("core: %w", err)
					}
				}
			}
		}
	}
	return nil
}

// radixLocal reads the local arguments of a radix leaf kernel
// (gen.radixLocalArgs: idx, off, adj, items, wpre, nitems, local after the
// total's ten); nil for the total.
func (d *fakeDevice) radixLocal(ph fakePhase, args []any) (*radixLeafLocal, error) {
	out := d.outputs[ph.c.Kernel]
	if out == "" {
		return nil, nil
	}
	off := rxU64s(args[11])
	// Raised with adj's shift (highindex.go). unshift undid the launch's
	// first offsets only: E's when E is the plan's CSR (shifted), else these
	// (E's copy in id order, made when the ids are not in order, is not
	// shifted), which then start below the base.
	if d.base != 0 && len(off) > 0 && off[0] >= d.base {
		off = slices.Clone(off)
		for i := range off {
			off[i] -= d.base
		}
	}
	fl, err := newFakeLocal(out, args[16], off, rxU32s(args[12]))
	if err != nil {
		return nil, err
	}
	rl := &radixLeafLocal{fakeLocal: fl, idx: rxU64s(args[10]), wpre: rxU64s(args[14]), nitems: args[15].(uint64)}
	if b, ok := args[13].(*fakeBuf); ok {
		rl.items = rxU32s(b)
	}
	return rl, nil
}

// radixLeafLocal is a leaf launch's local counts.
type radixLeafLocal struct {
	*fakeLocal
	idx, wpre []uint64
	items     []uint32 // nil: item j is vertex j
	nitems    uint64
}

// hit credits candidate i, (v, w), found in E: the triangle of its wedge
// idx[i], whose pair must be (v, w).
func (rl *radixLeafLocal) hit(i uint64, v, w uint32) error {
	q := rl.idx[i]
	j := rxItemOf(rl.wpre, rl.nitems, q)
	u := uint64(j)
	if rl.items != nil {
		u = uint64(rl.items[j])
	}
	a0 := rl.off[u]
	a, b := rxUnrankPair(rl.off[u+1]-a0, q-rl.wpre[j])
	if rl.adj[a0+a] != v || rl.adj[a0+b] != w {
		return fmt.Errorf("candidate %d (%d, %d) carries wedge %d, the pair (%d, %d) of %d", i, v, w, q, rl.adj[a0+a], rl.adj[a0+b], u)
	}
	return rl.triangle(u, uint64(v), uint64(w), a0+a, a0+b)
}
