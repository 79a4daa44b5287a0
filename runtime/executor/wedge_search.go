package executor

import (
	"context"
	"fmt"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// wedgeSearch runs the wedge iterator with binary search, WeTriC's
// wedge-parallel count (gen/wedge_search.go): one launch per class per
// pass over the class's wedges, whose offsets the host computes once.
type wedgeSearch struct {
	noStats
	classes []*searchClass // by class position; nil for the other classes
	idOrderE
}

// searchClass is one wedge/binary-search class.
type searchClass struct {
	wpre   []uint64 // wedgePrefix of the class's items
	nitems uint64
	total  uint64
	tile   uint64 // wedges a block takes at once
	buf    gpu.Buffer
	// The bit matrix of E's edges among the ids from top on (gen.WedgeLaunch):
	// nil and top = n without one.
	mat    []uint32
	top    uint32
	matBuf gpu.Buffer
}

// newWedgeSearch builds the wedge offsets and bit matrices of the classes in
// slots and, when the plan's order is not the id order, E in id order.
func newWedgeSearch(pl *planning, slots []int) (family, error) {
	ws := &wedgeSearch{classes: make([]*searchClass, len(pl.classes))}
	active := false
	for _, i := range slots {
		c := pl.classes[i]
		if c.Wedge == nil || c.Wedge.Tile < 1 {
			return nil, fmt.Errorf("class %s: a wedge class without its tile in the manifest", c.Name)
		}
		sc := &searchClass{nitems: pl.lists[i].Count, tile: uint64(c.Wedge.Tile)}
		sc.wpre = wedgePrefix(pl.o, &pl.lists[i])
		sc.total = sc.wpre[sc.nitems]
		ws.classes[i] = sc
		active = active || sc.total > 0
	}
	if err := ws.make(pl, active, "wedge/binary-search"); err != nil {
		return nil, err
	}
	off, adj := pl.o.Offsets, pl.o.Adj
	if ws.eOff != nil {
		off, adj = ws.eOff, ws.eAdj
	}
	if active {
		for v := range len(off) - 1 {
			if d := off[v+1] - off[v]; d >= maxSearchList {
				return nil, fmt.Errorf("wedge/binary-search classes search lists of fewer than 2^31 entries in 32-bit steps; vertex %d has %d", v, d)
			}
		}
	}
	for _, i := range slots {
		sc, size := ws.classes[i], uint32(pl.classes[i].Wedge.Matrix)
		if sc.total == 0 {
			size = 0 // nothing to check (and E may not be in id order)
		}
		sc.top, sc.mat = wedgeMatrix(off, adj, uint32(pl.o.N()), size, pl.classes[i].Wedge.Upper)
	}
	return ws, nil
}

// maxSearchList bounds a list of E the kernel searches: its midpoint,
// (lo + hi) / 2 in 32 bits as WeTriC computes it, must not wrap.
const maxSearchList = 1 << 31

// wedgeMatrix returns the first id of the matrix, top = n - min(n, size),
// and the matrix: row v - top holds bit w - top for each edge (v, w) of E
// from v >= top on (so w > v >= top), size bits a row, in the square or
// the upper layout (gen.MatrixWord). Without a size, top is n and the
// matrix nil.
func wedgeMatrix(off []uint64, adj []uint32, n, size uint32, upper bool) (uint32, []uint32) {
	if size == 0 {
		return n, nil
	}
	top, rw := n-min(n, size), uint64(size/32)
	words := uint64(1)
	if rows := uint64(n - top); rows > 0 { // one past the last row's last word
		words = gen.MatrixWord(rows-1, uint64(size)-1, rw, upper) + 1
	}
	mat := make([]uint32, words)
	for v := top; v < n; v++ {
		r := uint64(v - top)
		for _, w := range adj[off[v]:off[v+1]] {
			c := uint64(w - top)
			mat[gen.MatrixWord(r, c, rw, upper)] |= 1 << (c % 32)
		}
	}
	return top, mat
}

// buffers lists E in id order when the plan has its own and the classes'
// buffers.
func (ws *wedgeSearch) buffers() []bufferSpec {
	return append(ws.idOrderE.buffers(), ws.classBuffers()...)
}

// classBuffers lists each class's wedge offsets and bit matrix.
func (ws *wedgeSearch) classBuffers() []bufferSpec {
	var b []bufferSpec
	for _, sc := range ws.classes {
		if sc != nil {
			b = append(b, bufferSpec{name: "wedge offsets", bytes: (sc.nitems + 1) * 8, dst: &sc.buf})
		}
		if sc != nil && sc.mat != nil {
			b = append(b, bufferSpec{name: "wedge bit matrix", bytes: uint64(len(sc.mat)) * 4, dst: &sc.matBuf})
		}
	}
	return b
}

// setup allocates the buffers and uploads E, the wedge offsets and the bit
// matrices.
func (ws *wedgeSearch) setup(pr *Prepared) error {
	if err := ws.idOrderE.setup(pr); err != nil {
		return err
	}
	if err := pr.allocate(ws.classBuffers()); err != nil {
		return fmt.Errorf("plan %s: %w", pr.name, err)
	}
	for _, sc := range ws.classes {
		if sc == nil {
			continue
		}
		if err := gpu.WriteSlice(sc.buf, 0, sc.wpre); err != nil {
			return fmt.Errorf("plan %s: uploading wedge offsets: %w", pr.name, err)
		}
		if sc.mat != nil {
			if err := gpu.WriteSlice(sc.matBuf, 0, sc.mat); err != nil {
				return fmt.Errorf("plan %s: uploading the wedge bit matrix: %w", pr.name, err)
			}
		}
	}
	return nil
}

// launch counts the class's wedges in one launch of a block per tile (at
// least one block, whose finish_count leaves the class's count, 0, in
// place).
func (ws *wedgeSearch) launch(_ context.Context, pr *Prepared, pc *prepClass) error {
	sc := ws.classes[pc.c.Slot]
	if sc == nil {
		return fmt.Errorf("plan %s: class %s is a wedge class but was not prepared", pr.name, pc.c.Name)
	}
	grid := max(1, gridFor(sc.total, sc.tile))
	pc.grid = grid // of tiles, not of the class's vertices (what results and errors report)
	args := []any{pr.off, pr.adj, pc.listArg(), sc.buf, sc.nitems, sc.total, ws.offE, ws.adjE, bufArg(sc.matBuf), sc.top, pr.counts}
	if pr.local != nil {
		args = append(args, pr.localArg()) // gen.LocalArg
	}
	if err := pc.fn.Launch(gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(pc.c.Block), Y: 1, Z: 1}, pc.shared, args...); err != nil {
		return pr.kernelErr(pc, err)
	}
	return nil
}
