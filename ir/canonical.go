package ir

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DefaultOrientation is taken when a plan leaves the orientation out.
const DefaultOrientation = OrientDegree

// Canonical returns the plan in the form Name hashes: Doc cleared; prefix
// and class names lowercased with other characters folded to '_' and empty
// class names filled by position ("c0", "c1", ...); orientation, width and
// block defaults spelled out; every applicable parameter present with its
// default where left out (except those marked OmitDefault, left out at
// their default); chunk equal to the block folded to its default 0;
// Relabel dropped under id order (renumbering by id changes nothing); the
// strategy of skip classes cleared (it is never generated). Two plans that
// generate the same kernels for every graph have the same canonical form.
// Canonical does not validate: call Validate for that.
func (p Plan) Canonical() Plan {
	q := Plan{
		Prefix:      normName(p.Prefix),
		Orientation: p.Orientation,
		Relabel:     p.Relabel,
	}
	if q.Prefix == "" {
		q.Prefix = "plan"
	}
	if q.Orientation == "" {
		q.Orientation = DefaultOrientation
	}
	if q.Orientation == OrientID {
		q.Relabel = false
	}
	q.Classes = canonClasses(p.Classes)
	if p.Guard != nil {
		g := &Guard{Feature: strings.ToLower(strings.TrimSpace(p.Guard.Feature))}
		for _, v := range p.Guard.Variants {
			g.Variants = append(g.Variants, Variant{Lo: v.Lo, Hi: v.Hi, Classes: canonClasses(v.Classes)})
		}
		q.Guard = g
	}
	return q
}

func canonClasses(cs []Class) []Class {
	if len(cs) == 0 {
		return nil
	}
	out := make([]Class, len(cs))
	for i, c := range cs {
		d := Class{Name: normName(c.Name), Select: c.Select, Skip: c.Skip}
		if d.Name == "" {
			d.Name = fmt.Sprintf("c%d", i)
		}
		if !c.Skip {
			d.Strategy = canonStrategy(c.Strategy)
		}
		out[i] = d
	}
	return out
}

func canonStrategy(s Strategy) Strategy {
	t := Strategy{
		Iterator:     s.Iterator,
		Intersection: s.Intersection,
		Width:        s.EffectiveWidth(),
		Block:        s.EffectiveBlock(),
	}
	specs := ParamsFor(s)
	if len(specs) == 0 && len(s.Params) == 0 {
		return t
	}
	// Unknown names are kept so that an invalid plan still hashes apart
	// from a valid one; Validate reports them.
	t.Params = maps.Clone(s.Params)
	if t.Params == nil {
		t.Params = map[string]int64{}
	}
	for _, ps := range specs {
		v, set := t.Params[ps.Name]
		switch {
		case ps.OmitDefault && (!set || v == ps.Default):
			delete(t.Params, ps.Name)
		case !set:
			t.Params[ps.Name] = ps.Default
		}
	}
	if v, ok := t.Params[ParamChunk]; ok && v == int64(t.Block) && Valid(s.Iterator, s.Intersection) {
		if _, applies := Spec(s, ParamChunk); applies {
			t.Params[ParamChunk] = 0
		}
	}
	if len(t.Params) == 0 {
		t.Params = nil
	}
	return t
}

// Clone returns a deep copy of the plan (classes, parameter maps, guard).
func (p Plan) Clone() Plan {
	q := p
	q.Classes = cloneClasses(p.Classes)
	if p.Guard != nil {
		g := *p.Guard
		g.Variants = slices.Clone(p.Guard.Variants)
		for i := range g.Variants {
			g.Variants[i].Classes = cloneClasses(g.Variants[i].Classes)
		}
		q.Guard = &g
	}
	return q
}

func cloneClasses(cs []Class) []Class {
	out := slices.Clone(cs)
	for i := range out {
		out[i].Params = maps.Clone(out[i].Params)
	}
	return out
}

// normName lowercases and folds everything outside [a-z0-9_] to '_'.
func normName(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// Hash returns the hex SHA-256 of the canonical plan's JSON encoding
// (encoding/json writes map keys sorted, so the encoding is deterministic).
func (p Plan) Hash() string {
	data, err := json.Marshal(p.Canonical())
	if err != nil {
		// Plan holds only strings, numbers, bools, slices and maps of them;
		// the only failure is a NaN or Inf guard bound, which Validate
		// rejects. Hash its printed form so Name still works.
		data = fmt.Appendf(nil, "%#v", p.Canonical())
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Name is the plan's readable prefix and the first 8 hex digits of its
// canonical hash, e.g. "trust_1a2b3c4d": a file name, a CUDA symbol stem and
// a cache key.
func (p Plan) Name() string {
	return p.Canonical().Prefix + "_" + p.Hash()[:8]
}

// Supported lists the (iterator, intersection) pairs the code generator
// implements; package gen keeps it current. RandomPlan draws only these, and
// CheckGeneratable refuses the others with a reason.
var Supported = map[[2]string]bool{
	{string(IterEdge), string(Merge)}:             true,
	{string(IterVertex), string(Merge)}:           true,
	{string(IterVertex), string(Hash)}:            true,
	{string(IterEdge), string(Hash)}:              true,
	{string(IterEdgeChunk), string(BinarySearch)}: true,
	{string(IterEdge), string(BinarySearch)}:      true,
	{string(IterVertex), string(BinarySearch)}:    true,
	{string(IterEdge), string(MergePath)}:         true, // gen/mergepath.go
	{string(IterVertex), string(MergePath)}:       true, // gen/mergepath.go
	{string(IterVertex), string(Bitmap)}:          true, // gen/vertex_bitmap.go
	{string(IterWedge), string(Radix)}:            true, // gen/wedge_radix.go
	{string(IterEdge), string(Bitwise)}:           true, // gen/edge_bitwise.go
	{string(IterEdge), string(Bitmap)}:            true, // gen/edge_bitmap.go
	{string(IterPivot), string(Hash)}:             true, // gen/pivot_hash.go
}

// Generatable reports whether the generator implements the strategy's pair.
// Every value of the hash pairs' parameters is generated (scheme
// hopscotch and the CTA organisations: gen/hash.go).
func Generatable(s Strategy) bool {
	return Supported[[2]string{string(s.Iterator), string(s.Intersection)}]
}

// CheckGeneratable returns an error naming every class whose strategy the
// generator does not implement yet (nil when all are). It assumes a valid
// plan.
func (p Plan) CheckGeneratable() error {
	var bad []string
	check := func(cs []Class, ctx string) {
		for i, c := range cs {
			if !c.Skip && !Generatable(c.Strategy) {
				bad = append(bad, fmt.Sprintf("%s%s: %s/%s", ctx, className(c, i), c.Iterator, c.Intersection))
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
