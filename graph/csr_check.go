package graph

import (
	"fmt"
	"slices"
)

// neighbour id is a vertex. It returns a description of the first violation.
func (c *CSR) CheckStructure() error {
	if err := c.checkOffsets(); err != nil || len(c.Offsets) == 0 {
		return err
	}
	return c.checkIDs()
}

// checkOffsets checks the offsets alone: from 0, never decreasing, ending
// at the number of neighbours.
func (c *CSR) checkOffsets() error {
	if len(c.Offsets) == 0 {
		if len(c.Adj) != 0 {
			return fmt.Errorf("graph: %d neighbours but no offsets", len(c.Adj))
		}
		return nil
	}
	if c.Offsets[0] != 0 {
		return fmt.Errorf("graph: offsets start at %d, not 0", c.Offsets[0])
	}
	// On all cores (RMAT-24: 16.7 M offsets, mapped: their page faults too).
	if v := firstBad(len(c.Offsets)-1, 1<<18, func(lo, hi int) int {
		for v := lo; v < hi; v++ {
			if c.Offsets[v+1] < c.Offsets[v] {
				return v
			}
		}
		return -1
	}); v >= 0 {
		return fmt.Errorf("graph: offsets decrease at vertex %d", v)
	}
	if last := c.Offsets[len(c.Offsets)-1]; last != uint64(len(c.Adj)) {
		return fmt.Errorf("graph: offsets end at %d but there are %d neighbours", last, len(c.Adj))
	}
	return nil
}

// checkIDs checks that every neighbour is a vertex.
func (c *CSR) checkIDs() error {
	// Every neighbour a vertex, on all cores (RMAT-24 has 520M entries); the
	// error names the first bad position.
	n := uint64(c.N())
	if i := firstBad(len(c.Adj), 1<<20, func(lo, hi int) int {
		for i := lo; i < hi; i++ {
			if uint64(c.Adj[i]) >= n {
				return i
			}
		}
		return -1
	}); i >= 0 {
		return fmt.Errorf("graph: neighbour %d at position %d is not a vertex (n = %d)", c.Adj[i], i, n)
	}
	return nil
}

// firstBad returns the lowest bad index in [0, n), or -1: scan(lo, hi)
// returns the first bad one in [lo, hi) or -1, run on chunks of chunk
// indices on all cores (a chunk after a bad one already found is skipped).
func firstBad(n, chunk int, scan func(lo, hi int) int) int {
	firsts := parReduce(n, chunk, func() int { return -1 }, func(first *int, lo, hi int) {
		if *first >= 0 && *first < lo {
			return
		}
		if i := scan(lo, hi); i >= 0 {
			*first = i
		}
	})
	first := -1
	for _, f := range firsts {
		if f >= 0 && (first < 0 || f < first) {
			first = f
		}
	}
	return first
}

// CheckCanonical verifies every invariant of a canonical graph: a sound
// CSR, neighbour lists strictly increasing, no self loops, every edge
// present in both directions, no isolated vertex, and OrigIDs (when set)
// strictly increasing with one id per vertex. Meant for tests and for
// checking graphs that did not come from Build; it costs O(m log d).
func (g *Graph) CheckCanonical() error {
	if err := g.CheckStructure(); err != nil {
		return err
	}
	n := g.N()
	for v := 0; v < n; v++ {
		nb := g.Neighbors(uint32(v))
		if len(nb) == 0 {
			return fmt.Errorf("graph: vertex %d is isolated", v)
		}
		for i, u := range nb {
			if i > 0 && nb[i-1] >= u {
				return fmt.Errorf("graph: neighbours of %d not strictly increasing at %d", v, i)
			}
			if u == uint32(v) {
				return fmt.Errorf("graph: self loop at %d", v)
			}
			if _, ok := slices.BinarySearch(g.Neighbors(u), uint32(v)); !ok {
				return fmt.Errorf("graph: edge %d-%d stored in one direction only", v, u)
			}
		}
	}
	if g.OrigIDs != nil {
		if len(g.OrigIDs) != n {
			return fmt.Errorf("graph: %d original ids for %d vertices", len(g.OrigIDs), n)
		}
		for i := 1; i < n; i++ {
			if g.OrigIDs[i] <= g.OrigIDs[i-1] {
				return fmt.Errorf("graph: original ids not increasing at %d", i)
			}
		}
	}
	return nil
}
