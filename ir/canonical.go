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
// Relabel dropped under id order (renumbering by id changes nothing); a
// class list's core kept at the list (0, none, left out, so plans without
// a core hash as before the core moved there); the
// strategy of skip classes cleared (it is never generated). Two plans that
// generate the same kernels for every graph have the same canonical form.
// Canonical does not validate: call Validate for that.
func (p Plan) Canonical() Plan {
	q := Plan{
		Prefix:      normName(p.Prefix),
		Orientation: p.Orientation,
		Relabel:     p.Relabel,
		Core:        p.Core,
	}
	if p.Output != OutputTotal {
		q.Output = p.Output // total is left out: its plans keep their names
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
			var when []Cond
			for _, c := range v.When {
				when = append(when, Cond{Feature: strings.ToLower(strings.TrimSpace(c.Feature)), Lo: c.Lo, Hi: c.Hi})
			}
			o := v.Orientation
			if o == q.Orientation {
				o = "" // the plan's: plans without variant orientations keep their names
			}
			g.Variants = append(g.Variants, Variant{Lo: v.Lo, Hi: v.Hi, When: when, Core: v.Core, Orientation: o, Classes: canonClasses(v.Classes)})
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
	if v, ok := t.Params[ParamChunk]; ok && v == int64(t.Block) {
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
			g.Variants[i].When = slices.Clone(g.Variants[i].When)
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
