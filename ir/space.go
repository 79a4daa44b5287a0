package ir

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Dimension is one axis of the design space, for `tcgen list` and the tuner.
type Dimension struct {
	Name string
	// Values is the allowed set of an enumerated dimension; empty for a range.
	Values []string
	// Range describes the allowed values in words ("a power of two in
	// 16..4096"); for enumerations it repeats Values.
	Range   string
	Default string
	// AppliesTo lists the iterator/intersection pairs that take a
	// parameter; empty for dimensions every strategy has.
	AppliesTo []string
	Source    string
	Doc       string
}

// Dimensions describes the whole design space: iterators, intersections,
// the valid pairs, widths, block sizes, selector keys, orientations, guard
// features, and every parameter with its range, default and source.
func Dimensions() []Dimension {
	var ds []Dimension
	ds = append(ds,
		Dimension{Name: "iterator", Values: enumStrings(Iterators),
			Doc: "unit of work: vertex u (N+(u) against each N+(v)), edge (u,v), edge-chunk (n consecutive edges per block, GroupTC), wedge (v,w in N+(u), closed if (v,w) is an edge), pivot (v as the middle vertex: N+(v) in shared memory probed by the tails of N+(u) after v for each in-edge (u,v); ir/params_pivot_hash.go)"},
		Dimension{Name: "intersection", Values: enumStrings(Intersections),
			Doc: "how two sorted lists are intersected; merge/merge-path/bitwise cost d+u + d+v, the index probes (binary-search, hash, bitmap, radix) min * log(max)"},
		Dimension{Name: "pair", Values: pairStrings(Pairs()),
			Doc: "iterator/intersection pairs the IR accepts (the generator registers those it implements)"},
		Dimension{Name: "width", Values: []string{"1", "2", "4", "8", "16", "32", "block"}, Default: strconv.Itoa(DefaultWidth),
			Source: WidthSpec.Source, Doc: WidthSpec.Doc},
		Dimension{Name: "block", Range: "a multiple of 32 in 32..1024", Default: strconv.Itoa(DefaultBlock),
			Source: BlockSpec.Source, Doc: BlockSpec.Doc},
		Dimension{Name: "key", Values: enumStrings(Keys), Default: string(KeyOutDegree),
			Doc: "what class selectors range over: outdeg = d+ of the item's first vertex (every iterator); work = estimated cost of an edge item (edge, edge-chunk)"},
		Dimension{Name: "orientation", Values: enumStrings(Orientations), Default: string(DefaultOrientation),
			Doc: "total order keeping each undirected edge once: degree (then id), id, tcbw (non-center before center, then id)"},
		Dimension{Name: "relabel", Values: []string{"false", "true"}, Default: "false",
			Doc: "renumber vertices by the orientation's order, for locality (no-op under id)"},
		Dimension{Name: "core", Range: CoreSpec.Range(), Default: strconv.FormatInt(CoreSpec.Default, 10),
			AppliesTo: []string{Pair{IterPivot, Hash}.String()}, Source: CoreSpec.Source, Doc: CoreSpec.Doc},
		Dimension{Name: "output", Values: enumStrings(Outputs), Default: string(OutputTotal),
			AppliesTo: pairStrings(LocalPairs(OutputVertex)), Doc: OutputDoc},
	)
	feats := make([]string, len(Features))
	var fdoc []string
	for i, f := range Features {
		feats[i] = f.Name
		fdoc = append(fdoc, f.Name+": "+f.Doc)
	}
	ds = append(ds, Dimension{Name: "guard.feature", Values: feats,
		Doc: "graph (or GPU) feature a guard switches class lists on; " + strings.Join(fdoc, "; ")})
	for i := range ds {
		if ds[i].Range == "" && len(ds[i].Values) > 0 {
			ds[i].Range = "one of " + strings.Join(ds[i].Values, ", ")
		}
	}

	// Parameters, once per name, with the pairs that take them.
	seen := map[string]int{}
	for _, pr := range Pairs() {
		for _, ps := range pr.params() {
			name := "param." + ps.Name
			if i, ok := seen[name]; ok {
				ds[i].AppliesTo = append(ds[i].AppliesTo, pr.String())
				if def := strconv.FormatInt(ps.Default, 10); !strings.HasPrefix(ds[i].Default, def) {
					ds[i].Default += "; " + def + " for " + pr.String()
				}
				continue
			}
			seen[name] = len(ds)
			d := Dimension{Name: name, Range: ps.Range(), Default: strconv.FormatInt(ps.Default, 10),
				AppliesTo: []string{pr.String()}, Source: ps.Source, Doc: ps.Doc}
			if len(ps.Enum) > 0 {
				d.Default += " (" + ps.EnumName(ps.Default) + ")"
			}
			d.Values = append(d.Values, ps.Enum...)
			ds = append(ds, d)
		}
	}
	return ds
}

func enumStrings[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func pairStrings(ps []Pair) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

// RandomPlan draws a valid plan from the pairs the generator implements
// (GeneratedPairs): 1 to 3 classes over one key
// with random boundaries, sometimes preceded by a skip class for
// d+(u) < 2, each with a random pair, width, block and parameters, and a
// random orientation. The same rng state gives the same plan.
func RandomPlan(rng *rand.Rand) Plan {
	pairs := GeneratedPairs()
	for attempt := 0; ; attempt++ {
		p := randomPlan(rng, pairs)
		if p.Validate() == nil {
			return p
		}
		if attempt > 1000 {
			panic(fmt.Sprintf("ir.RandomPlan: no valid plan after %d draws; last: %v", attempt, p.Validate()))
		}
	}
}

func randomPlan(rng *rand.Rand, pairs []Pair) Plan {
	p := Plan{
		Prefix:      "rand",
		Orientation: Orientations[rng.IntN(len(Orientations))],
		Relabel:     rng.IntN(2) == 0,
	}
	if p.Orientation == OrientID {
		p.Relabel = false // a no-op under id; keep the plan canonical
	}
	n := 1 + rng.IntN(3)

	// Pivot classes count at the middle vertex and cannot share a list with
	// the others (ir/params_pivot_hash.go): a pivot plan is all pivot,
	// relabelled, as often as any one pair is drawn.
	var rest []Pair
	pivot := false
	for _, pr := range pairs {
		if pr.Iterator == IterPivot {
			pivot = true
		} else {
			rest = append(rest, pr)
		}
	}
	if pivot && (len(rest) == 0 || rng.IntN(len(pairs)) == 0) {
		pairs = []Pair{{IterPivot, Hash}}
		p.Relabel = p.Orientation != OrientID
	} else {
		pairs, pivot = rest, false
	}

	// Work keys need edge items with one work model throughout.
	key := KeyOutDegree
	var edgePairs []Pair
	for _, pr := range pairs {
		if pr.Iterator == IterEdge || pr.Iterator == IterEdgeChunk {
			edgePairs = append(edgePairs, pr)
		}
	}
	if len(edgePairs) > 0 && rng.IntN(4) == 0 {
		key = KeyWork
		first := edgePairs[rng.IntN(len(edgePairs))]
		model := WorkOf(first.Intersection)
		pairs = nil
		for _, pr := range edgePairs {
			if WorkOf(pr.Intersection) == model {
				pairs = append(pairs, pr)
			}
		}
	}

	skip := key == KeyOutDegree && !pivot && rng.IntN(4) == 0
	// Boundaries: n-1 distinct values, above 2 when a skip class takes [0,2).
	lo := int64(1)
	if skip {
		lo = 3
	}
	cuts := map[int64]bool{}
	for len(cuts) < n-1 {
		cuts[randBoundary(rng, lo)] = true
	}
	bounds := make([]int64, 0, n+1)
	for c := range cuts {
		bounds = append(bounds, c)
	}
	slices.Sort(bounds)

	start := int64(0)
	if skip {
		p.Classes = append(p.Classes, Class{Name: "skip", Select: Selector{Key: key, Lo: 0, Hi: 2}, Skip: true})
		start = 2
	}
	for i := range n {
		hi := int64(0)
		if i < len(bounds) {
			hi = bounds[i]
		}
		pr := pairs[rng.IntN(len(pairs))]
		p.Classes = append(p.Classes, Class{
			Name:     "c" + strconv.Itoa(i),
			Select:   Selector{Key: key, Lo: start, Hi: hi},
			Strategy: randomStrategy(rng, pr.Iterator, pr.Intersection),
		})
		start = hi
	}
	if pivot && rng.IntN(10) >= 3 { // the list's core (CoreSpec), drawn as a parameter is
		p.Core = int(randomValue(rng, CoreSpec))
	}
	// The output, drawn last; a local output the classes cannot count
	// leaves the total.
	if o := Outputs[rng.IntN(len(Outputs))]; o != OutputTotal && p.SupportsOutput(o) {
		p.Output = o
	}
	return p
}

func randBoundary(rng *rand.Rand, lo int64) int64 {
	// Log-uniform over lo..2^14 so small and hub-sized cuts both occur.
	e := rng.IntN(14)
	v := int64(1)<<e + rng.Int64N(int64(1)<<e)
	return max(v, lo)
}

var blockChoices = []int{32, 64, 128, 256, 512, 1024}

func randomStrategy(rng *rand.Rand, it Iterator, is Intersection) Strategy {
	for range 100 {
		s := Strategy{Iterator: it, Intersection: is}
		s.Block = blockChoices[rng.IntN(len(blockChoices))]
		switch {
		case it == IterEdgeChunk:
			s.Width = s.Block
		case it == IterEdge && is == Merge, it == IterWedge:
			s.Width = 1
		default:
			// 1..32 by powers of two, or the whole block.
			k := rng.IntN(7)
			if k == 6 {
				s.Width = s.Block
			} else {
				s.Width = min(1<<k, s.Block)
			}
		}
		for _, ps := range ParamsFor(s) {
			if rng.IntN(10) < 3 {
				continue // left to its default
			}
			if s.Params == nil {
				s.Params = map[string]int64{}
			}
			s.Params[ps.Name] = randomValue(rng, ps)
		}
		if w, ok := CTAWidth(s); ok { // the CTA organisation fixes the width (ir/params_vertex_hash.go)
			s.Width = w
		}
		if fitsShared(s) {
			return s
		}
		// Keep the drawn parameters, so large tables are drawn as often as
		// small ones, and make room: one group per block, then smaller
		// blocks.
		if it != IterEdgeChunk && !(it == IterEdge && is == Merge) && it != IterWedge {
			for b := s.Block; b >= blockChoices[0]; b /= 2 {
				t := s
				t.Block, t.Width = b, b
				if w, ok := CTAWidth(t); ok {
					t.Width = w
				}
				if fitsShared(t) {
					return t
				}
			}
		}
	}
	// Defaults with one item per block always fit.
	s := Strategy{Iterator: it, Intersection: is, Width: 32, Block: 32}
	if it == IterEdge && is == Merge || it == IterWedge {
		s.Width = 1
	}
	return s
}

// fitsShared: the strategy's shared memory fits the static limit and its
// radix parameters are consistent (ir/params_wedge_radix.go).
func fitsShared(s Strategy) bool {
	return s.SharedBytes() <= SharedLimit-ReduceSharedBytes && radixProblem(s) == ""
}

func randomValue(rng *rand.Rand, ps ParamSpec) int64 {
	switch {
	case len(ps.Values) > 0:
		return ps.Values[rng.IntN(len(ps.Values))]
	case len(ps.Enum) > 0:
		return ps.Min + rng.Int64N(ps.Max-ps.Min+1)
	case ps.Pow2:
		lo := bits.Len64(uint64(ps.Min)) - 1
		hi := bits.Len64(uint64(ps.Max)) - 1
		return int64(1) << (lo + rng.IntN(hi-lo+1))
	}
	switch rng.IntN(4) {
	case 0:
		return ps.Min
	case 1:
		return ps.Max
	case 2:
		return ps.Default
	}
	// Log-uniform inside the range.
	span := ps.Max - ps.Min
	if span <= 0 {
		return ps.Min
	}
	e := rng.IntN(bits.Len64(uint64(span)))
	return ps.Min + min(span, int64(1)<<e+rng.Int64N(int64(1)<<e))
}
