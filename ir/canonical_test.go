package ir

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"testing"
)

// mutations returns copies of p, each differing from it in one field.
func mutations(p Plan) []Plan {
	var out []Plan
	mut := func(f func(*Plan)) {
		q := p.Clone()
		f(&q)
		out = append(out, q)
	}
	mut(func(q *Plan) { q.Prefix += "x" })
	for _, o := range Orientations {
		if o != p.Canonical().Orientation {
			mut(func(q *Plan) { q.Orientation = o })
		}
	}
	if p.Canonical().Orientation != OrientID {
		mut(func(q *Plan) { q.Relabel = !q.Relabel })
	}
	// classes returns the class list the mutation edits: the plan's, or
	// one guard variant's.
	lists := []func(*Plan) *[]Class{func(q *Plan) *[]Class { return &q.Classes }}
	if p.Guard != nil {
		mut(func(q *Plan) { q.Guard.Feature = FeatureMaxDegree })
		for vi := range p.Guard.Variants {
			mut(func(q *Plan) { q.Guard.Variants[vi].Lo += 0.5 })
			mut(func(q *Plan) { q.Guard.Variants[vi].Hi += 0.5 })
			lists = append(lists, func(q *Plan) *[]Class { return &q.Guard.Variants[vi].Classes })
		}
	}
	for _, list := range lists {
		n := len(*list(&p))
		for i := range n {
			cls := func(q *Plan) *Class { return &(*list(q))[i] }
			c := *cls(&p)
			mut(func(q *Plan) { cls(q).Name = "renamed" })
			mut(func(q *Plan) { cls(q).Select.Lo++ })
			mut(func(q *Plan) { cls(q).Select.Hi += 1000 })
			mut(func(q *Plan) {
				if cls(q).Select.Key == KeyWork {
					cls(q).Select.Key = KeyOutDegree
				} else {
					cls(q).Select.Key = KeyWork
				}
			})
			mut(func(q *Plan) { cls(q).Skip = !cls(q).Skip })
			if c.Skip {
				continue
			}
			for _, it := range Iterators {
				if it != c.Iterator {
					mut(func(q *Plan) { cls(q).Iterator = it })
				}
			}
			for _, is := range Intersections {
				if is != c.Intersection {
					mut(func(q *Plan) { cls(q).Intersection = is })
				}
			}
			for _, w := range []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024} {
				if w != c.EffectiveWidth() {
					mut(func(q *Plan) { cls(q).Width = w })
				}
			}
			for _, b := range []int{32, 64, 128, 256, 512, 1024} {
				if b != c.EffectiveBlock() {
					mut(func(q *Plan) { cls(q).Block = b })
				}
			}
			for _, ps := range ParamsFor(c.Strategy) {
				cur := Get(c.Strategy, ps.Name)
				for _, v := range []int64{ps.Min, ps.Max, ps.Default, ps.Default + 1} {
					if v == cur || (ps.Name == ParamChunk && v == int64(c.EffectiveBlock())) {
						continue // chunk == block is chunk 0 by definition
					}
					if ps.Name == ParamChunk && cur == int64(c.EffectiveBlock()) && v == 0 {
						continue
					}
					mut(func(q *Plan) {
						if cls(q).Params == nil {
							cls(q).Params = map[string]int64{}
						}
						cls(q).Params[ps.Name] = v
					})
				}
			}
			mut(func(q *Plan) {
				if cls(q).Params == nil {
					cls(q).Params = map[string]int64{}
				}
				cls(q).Params["zzz"] = 1
			})
		}
		mut(func(q *Plan) { *list(q) = append(*list(q), hashClass("extra", 0, 0, 32)) })
		if n > 1 {
			mut(func(q *Plan) { *list(q) = (*list(q))[:n-1] })
		}
	}
	return out
}

func canonJSON(t *testing.T, p Plan) string {
	t.Helper()
	b, err := json.Marshal(p.Canonical())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*_[0-9a-f]{8}$`)

// Two plans that differ in any field that reaches the code never share a
// name; each one-field change of every preset gives a new name.
func TestNamesDistinct(t *testing.T) {
	byName := map[string]string{} // name -> canonical JSON
	record := func(p Plan) {
		n, cj := p.Name(), canonJSON(t, p)
		if !nameRE.MatchString(n) {
			t.Errorf("name %q has not the form prefix_8hex", n)
		}
		if prev, ok := byName[n]; ok && prev != cj {
			t.Errorf("name %s shared by different plans:\n%s\n%s", n, prev, cj)
		}
		byName[n] = cj
	}
	total := 0
	for _, p := range Presets() {
		record(p)
		base := p.Name()
		for _, q := range mutations(p) {
			total++
			if q.Name() == base {
				t.Errorf("%s: a one-field change kept the name %s:\n%s", p.Prefix, base, canonJSON(t, q))
			}
			record(q)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		record(RandomPlan(rng))
	}
	if total < 500 {
		t.Errorf("only %d mutations tried", total)
	}
}

// A plan that spells its defaults out and one that relies on them share a
// name; so do plans differing only in Doc or in name spelling.
func TestNameDefaults(t *testing.T) {
	for _, p := range Presets() {
		spelled := p.Canonical()
		spelled.Doc = "other words"
		if spelled.Name() != p.Name() {
			t.Errorf("%s: spelling defaults out changed the name", p.Prefix)
		}
		bare := p.Clone()
		bare.Doc = ""
		strip := func(cs []Class) {
			for i := range cs {
				for _, ps := range ParamsFor(cs[i].Strategy) {
					if v, ok := cs[i].Params[ps.Name]; ok && v == ps.Default {
						delete(cs[i].Params, ps.Name)
					}
				}
				if cs[i].Width == DefaultWidth {
					cs[i].Width = 0
				}
				if cs[i].Block == DefaultBlock {
					cs[i].Block = 0
				}
			}
		}
		strip(bare.Classes)
		if bare.Guard != nil {
			for _, v := range bare.Guard.Variants {
				strip(v.Classes)
			}
		}
		if bare.Orientation == DefaultOrientation {
			bare.Orientation = ""
		}
		if bare.Name() != p.Name() {
			t.Errorf("%s: leaving defaults out changed the name", p.Prefix)
		}
		if err := bare.Validate(); err != nil {
			t.Errorf("%s without defaults: %v", p.Prefix, err)
		}
		upper := p.Clone()
		upper.Prefix = "  " + upper.Prefix + " "
		if upper.Name() != p.Name() {
			t.Errorf("%s: surrounding spaces changed the name", p.Prefix)
		}
		c := p.Canonical()
		if cc := c.Canonical(); canonJSON(t, cc) != canonJSON(t, c) {
			t.Errorf("%s: Canonical is not idempotent", p.Prefix)
		}
	}
	g, _ := Preset("grouptc")
	spelled := g.Clone()
	spelled.Classes[0].Params[ParamChunk] = int64(spelled.Classes[0].Block)
	if spelled.Name() != g.Name() {
		t.Error("grouptc: chunk spelled as the block size changed the name")
	}
	// A parameter added later (OmitDefault) keeps earlier names at its
	// default, spelled or not, and changes them at any other value.
	pol, _ := Preset("polak")
	if _, ok := pol.Classes[0].Params[ParamTile]; ok {
		t.Fatal("polak spells the tile")
	}
	const polakName = "polak_10f01137" // docs/results name it
	if pol.Name() != polakName {
		t.Errorf("polak is named %s, was %s before the tile existed", pol.Name(), polakName)
	}
	tiled := pol.Clone()
	tiled.Classes[0].Params = map[string]int64{ParamTile: 1}
	if tiled.Name() != pol.Name() {
		t.Error("polak: tile 1 spelled out changed the name")
	}
	tiled.Classes[0].Params[ParamTile] = 4
	if tiled.Name() == pol.Name() {
		t.Error("polak: tile 4 kept the name of tile 1")
	}
	unnamed := g.Clone()
	unnamed.Classes[0].Name = ""
	named := g.Clone()
	named.Classes[0].Name = "c0"
	if unnamed.Name() != named.Name() {
		t.Error("an unnamed class should take the name c<i>")
	}
	idp := g.Clone()
	idp.Relabel = true
	if idp.Name() != g.Name() {
		t.Error("relabel under id order is a no-op and must not change the name")
	}
}

func TestCloneIsDeep(t *testing.T) {
	p, _ := Preset("bisson")
	q := p.Clone()
	q.Guard.Variants[2].Classes[0].Params[ParamBitmapBits] = 1024
	q.Guard.Variants[0].Lo = 1
	if p.Guard.Variants[2].Classes[0].Params[ParamBitmapBits] == 1024 || p.Guard.Variants[0].Lo == 1 {
		t.Error("Clone shares memory with the original")
	}
}
