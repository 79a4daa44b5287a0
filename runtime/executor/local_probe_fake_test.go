package executor_test

import (
	"fmt"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
)

// tcbwCredit credits the triangles of one pass of a bitwise class as its
// local kernel does: the edges items(i), i in [ibeg, iend), and the
// common neighbours w whose slice index w >> shift is in [klo, khi).
type tcbwCredit func(adj, src []uint32, items func(uint64) uint64, ibeg, iend uint64, klo, khi uint32, shift uint)

// tcbwLocalArgs splits a bitwise kernel's arguments into gen.BitwiseArgs
// and, under a local output, gen.BitwiseLocalArgs (the offsets, raised by
// any index base, and the counters), returned as the pass's credits; nil
// credits for the total.
func (d *fakeDevice) tcbwLocalArgs(c gen.Class, args []any) ([]any, tcbwCredit, error) {
	out := d.outputs[c.Kernel]
	want := len(gen.BitwiseArgs)
	if out != "" {
		want += len(gen.BitwiseLocalArgs)
	}
	if len(args) != want || len(c.Bitwise.Args) != want {
		return nil, nil, fmt.Errorf("%s: %d args, manifest %d, want %d", c.Kernel, len(args), len(c.Bitwise.Args), want)
	}
	if out == "" {
		return args, nil, nil
	}
	n := len(gen.BitwiseArgs)
	offBuf, ok1 := args[n].(*fakeBuf)
	local, ok2 := args[n+1].(*fakeBuf)
	if !ok1 || !ok2 {
		return nil, nil, fmt.Errorf("%s: local arguments %T, %T", c.Kernel, args[n], args[n+1])
	}
	off := make([]uint64, len(offBuf.data)/8)
	for i := range off {
		off[i] = offBuf.u64(uint64(i)) - d.base
	}
	loc := u64s(local)
	credit := func(adj, src []uint32, items func(uint64) uint64, ibeg, iend uint64, klo, khi uint32, shift uint) {
		for i := ibeg; i < iend; i++ {
			e := items(i)
			u, v := src[e], adj[e]
			a, ae, b, be := off[u], off[u+1], off[v], off[v+1]
			for a < ae && b < be {
				switch x, y := adj[a], adj[b]; {
				case x < y:
					a++
				case y < x:
					b++
				default:
					if s := x >> shift; s >= klo && s < khi {
						if out == ir.OutputVertex {
							loc[u]++
							loc[v]++
							loc[x]++
						} else {
							loc[e]++
							loc[a]++
							loc[b]++
						}
					}
					a++
					b++
				}
			}
		}
	}
	return args[:n], credit, nil
}
