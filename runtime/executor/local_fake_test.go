package executor_test

import (
	"encoding/binary"

	"github.com/tcgen/tcgen/ir"
)

// creditEdge stands for a local-output kernel's work on the oriented edge
// at adj position e = (u, v): it counts the triangles u, v, w (w in N+(u)
// and N+(v)) and credits each to local as templates/local.cu.tmpl does,
// to u, v and w (output vertex) or to the edges at positions e, pa (u, w)
// and pb (v, w) (output edge).
func creditEdge(off, adj, local *fakeBuf, out ir.Output, u uint32, e uint64) uint64 {
	v := adj.u32(e)
	add := func(i uint64) {
		binary.LittleEndian.PutUint64(local.data[8*i:], local.u64(i)+1)
	}
	var c uint64
	i, ie := off.u64(uint64(u)), off.u64(uint64(u)+1)
	j, je := off.u64(uint64(v)), off.u64(uint64(v)+1)
	for i < ie && j < je {
		x, y := adj.u32(i), adj.u32(j)
		switch {
		case x < y:
			i++
		case y < x:
			j++
		default:
			c++
			if out == ir.OutputVertex {
				add(uint64(u))
				add(uint64(v))
				add(uint64(x))
			} else {
				add(e)
				add(i)
				add(j)
			}
			i++
			j++
		}
	}
	return c
}
