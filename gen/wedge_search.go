package gen

import (
	"slices"

	"github.com/tcgen/tcgen/ir"
)

// The wedge iterator with binary search is WeTriC's wedge-parallel count
// (templates/iter_wedge_search.cu.tmpl): the wedges of the class's items,
// C(d+(u), 2) of them per vertex u at offsets wpre the host computes, are
// split evenly over the threads, spread each, so a hub's wedges spread over
// many blocks. A block generates TILE = BLOCK * spread consecutive wedges
// into shared memory, then checks them transposed, consecutive threads on
// consecutive wedges (which share v), each by a binary search of N+(v).
// The executor launches it once per pass (runtime/executor/wedge_search.go).

// WedgeLaunch is a wedge/binary-search class's part: its kernel takes
// WedgeArgs and a block takes Tile wedges at a time; Matrix is the highest
// ids whose edges the host writes into the class's bit matrix (0: none),
// Upper its upper-triangle layout (MatrixWord).
type WedgeLaunch struct {
	Spread int      `json:"spread"`
	Tile   int      `json:"tile"`
	Matrix int      `json:"matrix,omitempty"`
	Upper  bool     `json:"matrix_upper,omitempty"`
	Args   []string `json:"args"` // WedgeArgs, and LocalArg under a local output
}

// MatrixWord is the index of the u32 word that holds column c of row r of
// a wedge bit matrix of rowWords words a row. The square layout keeps
// every word; the upper one (ir.ParamMatrixUpper) keeps, in each band of 32
// rows k = r/32, the words from k on, as a wedge (v, w) has w > v: the rows
// before r lack 16k(k-1) + (r%32)k words. The kernel computes the same.
func MatrixWord(r, c, rowWords uint64, upper bool) uint64 {
	if !upper {
		return r*rowWords + c/32
	}
	k := r / 32
	return r*rowWords - 16*k*k + 16*k - r%32*k + c/32 - k
}

// WedgeArgs are the arguments of a wedge/binary-search kernel: the oriented
// graph; the class's items (null: item i is vertex i), their wedge offsets
// wpre (nitems + 1 entries, the last the total); E, the graph in id order
// that closes a wedge (v, w), v < w by id (the plan's own CSR when its ids
// follow the orientation); the bit matrix of E's edges among the ids from
// top = n - min(n, matrix) on, a row of matrix bits per id (null without a
// matrix); the counts; under a local output, LocalArg after them.
var WedgeArgs = []string{
	"off u64*", "adj u32*", "items u32*", "wpre u64*", "nitems u64", "total u64",
	"offE u64*", "adjE u32*", "mat u32*", "top u32", "counts u64*",
}

// wedgeSearchData feeds the wedge search's partials.
type wedgeSearchData struct {
	Spread, Tile, Matrix int
	Upper                bool
}

// lowerWedgeSearch sets the class's spread and its shared memory: two u32
// arrays of a tile's wedges, one word in 32 spared against bank conflicts.
// Validate keeps width 1 and spread <= ir.MaxSpread.
func lowerWedgeSearch(cd *classData, mc *Class, s ir.Strategy, _ Target) {
	mc.Items, cd.iterPartial, cd.isectPartial = ItemsVertices, "wedge_search", "wedge_search"
	spread := int(ir.Get(s, ir.ParamSpread))
	w := &wedgeSearchData{Spread: spread, Tile: cd.Block * spread, Matrix: int(ir.Get(s, ir.ParamMatrix)), Upper: ir.Get(s, ir.ParamMatrixUpper) == 1}
	cd.Wedge = w
	cd.SharedBytes = 2 * 4 * (w.Tile + w.Tile/32)
	mc.Kind, mc.Wedge = KindWedge, &WedgeLaunch{Spread: spread, Tile: w.Tile, Matrix: w.Matrix, Upper: w.Upper, Args: WedgeArgs}
	if cd.Local != "" {
		mc.Wedge.Args = append(slices.Clone(WedgeArgs), LocalArg)
	}

	mc.Grid = Grid{ItemsPerBlock: w.Tile} // of wedges: the executor sizes the grid by the class's total
}
