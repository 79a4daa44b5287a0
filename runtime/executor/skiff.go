package executor

import (
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// scratchForDegrees returns the variant's classes with the out-degree term
// of their scratch (gen.Scratch.BitsPerOutDeg: Skiff's tries, gen/skiff.go)
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
