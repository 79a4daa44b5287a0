package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Road is a road-like sparse graph: the Rows x Cols grid of Grid
// (optionally with one diagonal per cell), each edge deleted with
// probability Delete, plus Links long-range links between random vertices.
// Vertex (r, c) is labelled r*Cols + c; vertices that lose all their edges
// are dropped by Build like any isolated label.
//
// Definition: the grid edge of kind k (0 right, 1 down, 2 diagonal) at
// vertex x is deleted when the top 53 bits * 2^-53 of the splitmix64
// stream at (Seed XOR roadKey)*0x100000001B3 + (3x+k)*0xD1B54A32D192ED03
// fall below Delete, so a deletion does not depend on Diagonals. Link l
// draws, from the stream at (Seed XOR roadLinksKey)*0x100000001B3 +
// l*0xD1B54A32D192ED03, u < Rows*Cols and w among the other vertices
// (Lemire's bounded draws: w < Rows*Cols-1, then w+1 if w >= u). The
// records are the kept grid edges row by row, then the links; a link that
// repeats an edge is merged by Build. Without diagonals and links the graph
// has no triangle; with diagonals each cell's two triangles survive with
// probability (1-Delete)^3.
type Road struct {
	Rows, Cols uint64
	Diagonals  bool    // one diagonal per cell, as in Grid
	Delete     float64 // probability that a grid edge is deleted, in [0, 1]
	Links      uint64  // long-range links added
	Seed       uint64
}

// roadMaxLinks keeps the record count, and its bytes, within 64 bits.
const roadMaxLinks = 1 << 58

// Validate reports parameters that cannot describe a graph.
func (p Road) Validate() error {
	if p.Rows == 0 || p.Cols == 0 {
		return errors.New("road: rows and cols must be positive")
	}
	if hi, lo := bits.Mul64(p.Rows, p.Cols); hi != 0 || lo > MaxVertices {
		return fmt.Errorf("road: %d x %d vertices exceed the %d a graph can have", p.Rows, p.Cols, uint64(MaxVertices))
	}
	if !validProb(p.Delete) {
		return fmt.Errorf("road: delete fraction %g must lie in [0, 1]", p.Delete)
	}
	if p.Links > 0 && p.Rows*p.Cols < 2 {
		return errors.New("road: links need at least 2 vertices")
	}
	if p.Links > roadMaxLinks {
		return fmt.Errorf("road: %d links exceed %d", p.Links, uint64(roadMaxLinks))
	}
	return nil
}

// gridEdges is the number of grid edges before deletion.
func (p Road) gridEdges() uint64 {
	return Grid{Rows: p.Rows, Cols: p.Cols, Diagonals: p.Diagonals}.records()
}

// EdgeList returns the kept grid edges, then the links, in parallel.
func (p Road) EdgeList() (*EdgeList, error) { return p.EdgeListContext(context.Background()) }

// EdgeListContext implements ContextGenerator: ctx is checked at every
// task of rows and of links.
func (p Road) EdgeListContext(ctx context.Context) (*EdgeList, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	// A grid task takes whole rows, about genTask vertices.
	perTask := max(1, genTask/p.Cols)
	gridTasks := (p.Rows + perTask - 1) / perTask
	linkTasks := (p.Links + genTask - 1) / genTask
	thresh := rmatThreshold(p.Delete) // x < Delete iff top 53 bits < thresh
	v := p.Rows * p.Cols
	// A grid task keeps 1-Delete of its 2 or 3 edges a vertex (5% more
	// for the binomial spread), a link task has genTask links.
	perVertex := 2 + float64(b2u(p.Diagonals))
	hint := max(float64(perTask*p.Cols)*perVertex*(1-p.Delete)*1.05+64, float64(min(p.Links, genTask)))
	return collect(ctx, int(gridTasks+linkTasks), hint, func(t int, buf []uint32) []uint32 {
		if uint64(t) >= gridTasks {
			first := (uint64(t) - gridTasks) * genTask
			for l := first; l < min(first+genTask, p.Links); l++ {
				st := genStream(p.Seed, roadLinksKey, l)
				u := boundedDraw(&st, v)
				w := boundedDraw(&st, v-1)
				buf = append(buf, uint32(u), uint32(w+b2u(w >= u)))
			}
			return buf
		}
		keep := func(x, kind uint64) bool {
			st := genStream(p.Seed, roadKey, 3*x+kind)
			return splitmix64(&st)>>11 >= thresh
		}
		for r := uint64(t) * perTask; r < min(uint64(t+1)*perTask, p.Rows); r++ {
			for c := range p.Cols {
				x := r*p.Cols + c
				if c+1 < p.Cols && keep(x, 0) {
					buf = append(buf, uint32(x), uint32(x+1))
				}
				if r+1 < p.Rows && keep(x, 1) {
					buf = append(buf, uint32(x), uint32(x+p.Cols))
				}
				if p.Diagonals && r+1 < p.Rows && c+1 < p.Cols && keep(x, 2) {
					buf = append(buf, uint32(x), uint32(x+p.Cols+1))
				}
			}
		}
		return buf
	})
}

// EstimateBytes is the peak of the records (all grid edges kept, at
// worst) and of Build on them.
func (p Road) EstimateBytes() uint64 {
	if p.Validate() != nil {
		return math.MaxUint64
	}
	m := p.gridEdges() + p.Links
	return peakBytes(satMul(m, recordBytes+collectBytes), m, p.Rows*p.Cols)
}
