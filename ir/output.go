package ir

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Output is what a plan's kernels count: the total alone, or besides it
// each triangle credited to its three vertices or its three edges (local
// counts, in 64-bit counters the executor reads back).
type Output string

const (
	// OutputTotal: the number of triangles. A plan's default; left out of
	// the canonical form, so plans written before outputs keep their names.
	OutputTotal Output = "total"
	// OutputVertex: the triangles each vertex is in, indexed by the
	// oriented graph's vertex ids.
	OutputVertex Output = "vertex"
	// OutputEdge: the triangles each oriented edge is in, indexed by the
	// edge's position in the oriented adjacency.
	OutputEdge Output = "edge"
)

// Outputs lists the output values in a stable order (RandomPlan draws from it).
var Outputs = []Output{OutputTotal, OutputVertex, OutputEdge}

// OutputDoc says what the output dimension is, for `tcgen list` and the schema.
const OutputDoc = "what the kernels count: total (the triangles), vertex (each triangle also credited to its three vertices) or edge (to its three edges); vertex and edge are generated for the pairs listed under applies_to"

// localPairs lists the local outputs each pair's kernels can credit. A
// pair missing here counts the total only: its intersection does not know
// the positions of the matched entries cheaply, or its kernels were not
// written with the credits yet.
var localPairs = map[Pair][]Output{
	{IterVertex, Merge}:       {OutputVertex, OutputEdge},
	{IterEdge, Merge}:         {OutputVertex, OutputEdge},
	{IterEdge, BinarySearch}:  {OutputVertex, OutputEdge},
	{IterWedge, Radix}:        {OutputVertex, OutputEdge}, // templates/isect_radix.cu.tmpl, iter_wedge.cu.tmpl
	{IterWedge, BinarySearch}: {OutputVertex, OutputEdge}, // templates/iter_wedge_search.cu.tmpl: a hit finds its wedge again
	{IterPivot, Hash}:         {OutputVertex, OutputEdge}, // templates/iter_pivot_local.cu.tmpl, pivot_prep.cu.tmpl
	// The lookups (tables, bitmaps, bit slices) find a closing w's adj
	// positions by a binary search (templates/local.cu.tmpl, local_probe).
	{IterVertex, Hash}:   {OutputVertex, OutputEdge},
	{IterEdge, Hash}:     {OutputVertex, OutputEdge},
	{IterVertex, Bitmap}: {OutputVertex, OutputEdge},
	{IterEdge, Bitmap}:   {OutputVertex, OutputEdge},
	{IterEdge, Bitwise}:  {OutputVertex, OutputEdge},

	// The merge path and the searches know both positions of each match
	// (templates/isect_mergepath.cu.tmpl, iter_edgechunk.cu.tmpl; the
	// vertex iterator's walk takes a found w's position from probe_at).
	{IterVertex, MergePath}:       {OutputVertex, OutputEdge},
	{IterVertex, BinarySearch}:    {OutputVertex, OutputEdge},
	{IterEdge, MergePath}:         {OutputVertex, OutputEdge},
	{IterEdgeChunk, BinarySearch}: {OutputVertex, OutputEdge},
}

// Supports reports whether the pair's kernels can count output o.
func (pr Pair) Supports(o Output) bool {
	return o == "" || o == OutputTotal || slices.Contains(localPairs[pr], o)
}

// LocalPairs returns the pairs that count output o, in the pair table's order.
func LocalPairs(o Output) []Pair {
	var out []Pair
	for _, pr := range Pairs() {
		if o != OutputTotal && pr.Supports(o) {
			out = append(out, pr)
		}
	}
	return out
}

// EffectiveOutput is the output with the default spelled out.
func (p Plan) EffectiveOutput() Output {
	if p.Output == "" {
		return OutputTotal
	}
	return p.Output
}

// Local reports whether the plan counts more than the total.
func (p Plan) Local() bool { return p.EffectiveOutput() != OutputTotal }

// outputProblems checks the output's value and that every class of every
// list can count it; each message names the class and its pair.
func (p Plan) outputProblems() []error {
	o := p.EffectiveOutput()
	if !slices.Contains(Outputs, o) {
		return []error{fmt.Errorf("output %q unknown; known: %s", p.Output, joinEnum(Outputs))}
	}
	if o == OutputTotal {
		return nil
	}
	var errs []error
	check := func(cs []Class, where string) {
		for i, c := range cs {
			if !c.Skip && !c.Pair().Supports(o) {
				errs = append(errs, fmt.Errorf("%s%s: output %s is not generated for %s; pairs with it: %s",
					where, className(c, i), o, c.Pair(), pairList(LocalPairs(o))))
			}
		}
	}
	check(p.Classes, "")
	if p.Guard != nil {
		for vi, v := range p.Guard.Variants {
			check(v.Classes, fmt.Sprintf("guard variant %d: ", vi))
		}
	}
	return errs
}

func pairList(ps []Pair) string {
	s := make([]string, len(ps))
	for i, pr := range ps {
		s[i] = pr.String()
	}
	return strings.Join(s, ", ")
}

// SupportsOutput reports whether every class of every list of p can count o.
func (p Plan) SupportsOutput(o Output) bool {
	q := p
	q.Output = o
	return len(q.outputProblems()) == 0
}

// WithOutput returns a copy of p counting output o. A list (the plan's, or
// a guard variant's) with a class that cannot count o takes the class list
// of the last list that can, without a core: a guarded plan such as the
// default keeps its choice by shape where it can and falls back to its
// catch-all list elsewhere. It fails when no list can count o.
func (p Plan) WithOutput(o Output) (Plan, error) {
	q := p.Clone()
	q.Output = o
	if o == OutputTotal || q.Guard == nil {
		return q, errors.Join(q.outputProblems()...)
	}
	ok := func(cs []Class) bool {
		for _, c := range cs {
			if !c.Skip && !c.Pair().Supports(o) {
				return false
			}
		}
		return true
	}
	fallback := -1
	for i, v := range q.Guard.Variants {
		if ok(v.Classes) {
			fallback = i
		}
	}
	if fallback < 0 {
		return q, fmt.Errorf("plan %s: no class list can count output %s; pairs with it: %s", p.Prefix, o, pairList(LocalPairs(o)))
	}
	fb := q.Guard.Variants[fallback].Classes
	for i := range q.Guard.Variants {
		if v := &q.Guard.Variants[i]; !ok(v.Classes) {
			v.Classes, v.Core = cloneClasses(fb), 0
		}
	}
	return q, errors.Join(q.outputProblems()...)
}
