package executor

import (
	"fmt"

	"github.com/tcgen/tcgen/gen"
)

// scratchPlan is how a variant's classes get their per-group global scratch
// (gen.Scratch): one buffer, shared by the classes because they run one
// after the other, sized for the largest; each class's grid is capped so
// that its groups' slices fit the memory left after the graph and the work
// lists.
type scratchPlan struct {
	bytes uint64 // size of the shared buffer; 0: no class needs scratch
	// square: size of the n x n bit matrix of the dense classes
	// (gen.Scratch.Square), a buffer of its own so that the classes whose
	// scratch must be zero never need it cleared; 0: none.
	square uint64
	// Per class, in class order: the grid to launch (0 for skipped or empty
	// classes), the u64 words per group passed as scratch_words (0: the
	// class gets a null scratch pointer), and whether to zero the buffer
	// before its launch (a Zeroed class sharing it with one that is not).
	grids     []uint32
	words     []uint64
	zeroFirst []bool
}

// planScratch sizes the scratch of classes whose item counts are items, on
// a graph of n vertices and a device with sms multiprocessors, within
// budget bytes. It fails with the bytes one block of a class would need
// when not even that fits.
func planScratch(classes []gen.Class, items []uint64, n uint64, sms int, budget uint64) (scratchPlan, error) {
	sp := scratchPlan{
		grids:     make([]uint32, len(classes)),
		words:     make([]uint64, len(classes)),
		zeroFirst: make([]bool, len(classes)),
	}
	// The dense classes share one matrix (gen/dense.go), taken from the
	// budget first.
	for i, c := range classes {
		if c.Skip || items[i] == 0 || c.Scratch == nil || !c.Scratch.Square {
			continue
		}
		sp.square = gen.SquareBytes(n)
		if sp.square > budget {
			return sp, &scratchError{class: c.Name, kernel: c.Kernel, perBlock: sp.square} // the whole matrix
		}
	}
	budget -= sp.square
	mixed := false // some class with scratch does not promise to leave it zeroed
	for i, c := range classes {
		if c.Skip || items[i] == 0 {
			continue
		}
		grid := c.Grid.Blocks(items[i], sms)
		if c.Scratch != nil && c.Scratch.Square {
			sp.words[i] = gen.SquareWords(n)
			sp.grids[i] = grid
			continue
		}
		if c.Scratch != nil {
			s := *c.Scratch
			words := s.WordsPerGroup(n)
			perBlock := words * 8 * uint64(max(s.Groups, 1))
			if perBlock > budget {
				return sp, &scratchError{class: c.Name, kernel: c.Kernel, perBlock: perBlock}
			}
			grid = uint32(min(uint64(grid), budget/perBlock))
			sp.words[i] = words
			sp.bytes = max(sp.bytes, uint64(grid)*perBlock)
			mixed = mixed || !s.Zeroed
		}
		sp.grids[i] = grid
	}
	if mixed {
		for i, c := range classes {
			sp.zeroFirst[i] = sp.words[i] > 0 && c.Scratch.Zeroed
		}
	}
	return sp, nil
}

// scratchError: one block's scratch does not fit the memory left.
type scratchError struct {
	class, kernel string
	perBlock      uint64
}

func (e *scratchError) Error() string {
	return fmt.Sprintf("class %s (kernel %s) needs %d MiB of scratch per block", e.class, e.kernel, e.perBlock>>20)
}
