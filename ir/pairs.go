package ir

import (
	"fmt"
	"strings"
)

// Pair is the kind of a strategy: its iterator and its intersection.
type Pair struct {
	Iterator     Iterator
	Intersection Intersection
}

// String is "iterator/intersection", as messages and `tcgen list` write it.
func (p Pair) String() string { return string(p.Iterator) + "/" + string(p.Intersection) }

// Pair returns the strategy's (iterator, intersection) pair.
func (s Strategy) Pair() Pair { return Pair{s.Iterator, s.Intersection} }

// pairTable lists every pair the IR accepts, with the parameters that apply
// to it; a pair missing here is not a valid strategy. Its order (Iterators,
// then Intersections) is the order of Pairs, which RandomPlan draws from, so
// it fixes the plans a seed gives.
var pairTable = []struct {
	pair   Pair
	params []ParamSpec
}{
	{Pair{IterVertex, Merge}, []ParamSpec{specTile}},
	{Pair{IterVertex, MergePath}, nil},
	{Pair{IterVertex, BinarySearch}, []ParamSpec{specCache}},
	{Pair{IterVertex, Hash}, []ParamSpec{specBuckets, specSlots, specOverflow, specScheme, specHop, specCTA}},
	{Pair{IterVertex, Bitmap}, []ParamSpec{specBitmapBits, specBitmapShared, specWalkUnroll}},

	{Pair{IterEdge, Merge}, []ParamSpec{specTile, specReverse}},
	{Pair{IterEdge, MergePath}, nil},
	{Pair{IterEdge, BinarySearch}, []ParamSpec{specLevels}},
	{Pair{IterEdge, Hash}, []ParamSpec{specBuckets, specSlots, specOverflow, specScheme, specHop}},
	{Pair{IterEdge, Bitmap}, []ParamSpec{specReverse, specDenseUnroll}}, // dense rows of n bits (gen/edge_bitmap.go)
	{Pair{IterEdge, Bitwise}, []ParamSpec{specP1, specP2, specSliceBits}},

	{Pair{IterEdgeChunk, Merge}, []ParamSpec{specChunk}},
	{Pair{IterEdgeChunk, BinarySearch}, []ParamSpec{specChunk}},

	{Pair{IterWedge, BinarySearch}, nil},
	{Pair{IterWedge, Radix}, []ParamSpec{specRadixBits, specThreshold, specBudget}},

	{Pair{IterPivot, Hash}, []ParamSpec{specTable, specItemWork, specBuildRatio, specUnroll, specSpill, specHubBits, specQueue, specCore}}, // ir/params_pivot_hash.go
}

// pairRow maps each pair of pairTable to its row.
var pairRow = func() map[Pair]int {
	m := make(map[Pair]int, len(pairTable))
	for i, r := range pairTable {
		m[r.pair] = i
	}
	return m
}()

// Pairs returns every pair the IR accepts, in the table's order.
func Pairs() []Pair {
	out := make([]Pair, len(pairTable))
	for i, r := range pairTable {
		out[i] = r.pair
	}
	return out
}

// Valid reports whether the IR accepts the pair.
func (p Pair) Valid() bool {
	_, ok := pairRow[p]
	return ok
}

// params returns the pair's parameters in the table (nil for an invalid
// pair); callers must not modify the slice.
func (p Pair) params() []ParamSpec {
	if i, ok := pairRow[p]; ok {
		return pairTable[i].params
	}
	return nil
}

// generated holds the pairs the code generator registered.
var generated = map[Pair]bool{}

// RegisterGenerated records that the code generator implements the pair;
// package gen calls it from its init for every pair it has a lowerer for
// (ir cannot import gen). It panics on a pair the IR does not accept or one
// registered twice.
func RegisterGenerated(p Pair) {
	if !p.Valid() {
		panic(fmt.Sprintf("ir.RegisterGenerated: %s is not a pair the IR accepts", p))
	}
	if generated[p] {
		panic(fmt.Sprintf("ir.RegisterGenerated: %s registered twice", p))
	}
	generated[p] = true
}

// Generated reports whether the generator implements the pair: Validate
// refuses the others and RandomPlan draws only these. Until a generator has
// registered (ir without gen, as in ir's own tests) every valid pair counts.
func (p Pair) Generated() bool {
	return p.Valid() && (len(generated) == 0 || generated[p])
}

// GeneratedPairs returns the pairs Generated holds, in the table's order.
func GeneratedPairs() []Pair {
	var out []Pair
	for _, p := range Pairs() {
		if p.Generated() {
			out = append(out, p)
		}
	}
	return out
}

// CheckGeneratable returns an error naming every class whose pair the
// generator does not implement (nil when all are). Validate refuses such
// classes too, among its other checks; this reports them alone.
func (p Plan) CheckGeneratable() error {
	var bad []string
	check := func(cs []Class, ctx string) {
		for i, c := range cs {
			if !c.Skip && !c.Pair().Generated() {
				bad = append(bad, fmt.Sprintf("%s%s: %s", ctx, className(c, i), c.Pair()))
			}
		}
	}
	check(p.Classes, "")
	if p.Guard != nil {
		for i, v := range p.Guard.Variants {
			check(v.Classes, fmt.Sprintf("guard variant %d: ", i))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("plan %s: the generator does not implement %s yet", p.Prefix, strings.Join(bad, "; "))
}
