package gen

import "github.com/tcgen/tcgen/ir"

// Dense rows (iterator edge, intersection bitmap): every vertex v gets a
// row of n bits, bit w set for each w in N+(v), and an edge (u,v) counts
// popcount(row u AND row v) over the words both lists span
// (templates/iter_dense.cu.tmpl). On a dense graph of few vertices that is
// far fewer steps than a merge: BlogCatalog3 (10312 vertices, 65 neighbours
// on average) ANDs 13 words per edge where a merge walks 127 list entries
// (docs/performance.md). The rows are an n x n bit matrix (n^2 / 8 bytes:
// 13 MB for BlogCatalog3, 1.25 GB at 100000 vertices), so a plan guards
// this class by the vertex count; a graph whose matrix does not fit the
// device gets the executor's error naming the bytes.
//
// The rows are written in every pass, inside the timed region, by the
// class's Rows kernel, a warp per vertex: it zeroes the words its list spans
// and sets its bits (the words outside the span are never read, so the
// matrix needs no clearing). The class kernel is a thread per edge. The
// matrix is a buffer of its own (runtime/executor/scratch.go), written once per pass
// for all the dense classes of a plan, whatever their share of the edges.

// lowerEdgeBitmap fills an edge/bitmap class (width 1: Validate).
func lowerEdgeBitmap(cd *classData, mc *Class, s ir.Strategy, _ Target) {
	cd.isectPartial, cd.iterPartial = "dense", "dense"
	cd.Reverse = ir.Get(s, ir.ParamReverse) == 1
	cd.Dense.Unroll = int(ir.Get(s, ir.ParamUnroll)) // quads of each row in flight
	mc.Scratch = &Scratch{Groups: 1, Square: true}
	mc.Kind = KindDense
	mc.Dense = &DenseLaunch{Rows: Helper{
		Kernel: cd.Kernel + "_rows", Block: cd.Block,
		Grid: Grid{ItemsPerBlock: cd.Block / 32}, // a warp per vertex
		Args: RowsArgs,
	}}
}
