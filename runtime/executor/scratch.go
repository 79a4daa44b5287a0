package executor

import (
	"fmt"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
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
	// The dense classes share one matrix (gen/edge_bitmap.go), taken from the
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

// scratchForDegrees returns the variant's classes with the out-degree term
// of their scratch (gen.Scratch.BitsPerOutDeg: Skiff's tries, gen/hash.go)
// folded into Words for the largest out-degree D of the first vertex of the
// class's items on o, so planScratch sizes every group for the largest
// table it can build. The classes are shared with the manifest: the ones
// changed are copies. D per class: under the out-degree key the exact
// maximum over the class's vertices; under the work key (edge items) a
// table holds the shorter of two lists, whose length is at most the work
// min * ceil(log2(max+1)) < hi, so min(hi - 1, the graph's largest d+).
func scratchForDegrees(o *graph.Oriented, classes []gen.Class) []gen.Class {
	need := false
	for _, c := range classes {
		need = need || (c.Scratch != nil && c.Scratch.BitsPerOutDeg > 0)
	}
	if !need {
		return classes
	}
	maxDeg := make([]uint64, len(classes))
	off := o.Offsets
	var graphMax uint64
	for u := range o.N() {
		d := off[u+1] - off[u]
		graphMax = max(graphMax, d)
		for i, c := range classes {
			if c.Key == ir.KeyOutDegree && d >= uint64(c.Lo) && (c.Hi == 0 || d < uint64(c.Hi)) {
				maxDeg[i] = max(maxDeg[i], d)
				break
			}
		}
	}
	out := make([]gen.Class, len(classes))
	copy(out, classes)
	for i, c := range out {
		if c.Scratch == nil || c.Scratch.BitsPerOutDeg == 0 {
			continue
		}
		d := maxDeg[i]
		if c.Key != ir.KeyOutDegree {
			d = graphMax
			if c.Hi > 0 {
				d = min(d, uint64(c.Hi-1))
			}
		}
		s := *c.Scratch
		// WordsFor(n, d) = WordsPerGroup(n) of the copy, rounded up to 16 words
		// (128 bytes) so that every group's slice, and so its trie nodes,
		// start on a cache line.
		s.Words = (s.Words + (d*s.BitsPerOutDeg+63)/64 + 15) &^ 15
		s.BitsPerOutDeg = 0
		out[i].Scratch = &s
	}
	return out
}
