package ir

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The core moved from a pivot class parameter to the class list: specs
// written the old way load as the new form, and plans without a core keep
// the names they had before the move.

const oldPivotOne = `prefix: pivot_one
doc: one pivot class with 512-slot tables, a 16384-id hub bitmap, items of 4096 probes and a core of the 4096 highest ids
orientation: degree
relabel: true
classes:
  - name: all
    select: {key: outdeg, lo: 0}
    iterator: pivot
    intersection: hash
    width: 32
    block: 256
    params: {table: 512, item_work: 4096, hub_bits: 16384, queue: 1, core: 4096}
`

func TestCoreLiftedFromClasses(t *testing.T) {
	old, err := Parse([]byte(oldPivotOne), "old.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := old.Validate(); err != nil {
		t.Fatal(err)
	}
	cur, err := Load("../examples/pivot-one.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if old.Core != 4096 || old.Classes[0].Params[ParamCore] != 0 {
		t.Errorf("old spec: core %d, class params %v; want the core on the list", old.Core, old.Classes[0].Params)
	}
	if old.Name() != cur.Name() {
		t.Errorf("old spec names %s, the example %s", old.Name(), cur.Name())
	}
	// JSON specs too, and in guard variants; a class's core 0 counts.
	js := `{"prefix":"g","orientation":"degree","relabel":true,"guard":{"feature":"edges","variants":[
	 {"lo":0,"hi":5,"classes":[{"select":{"key":"outdeg","lo":0},"iterator":"pivot","intersection":"hash","width":32,"block":256,"params":{"table":512,"core":0}}]},
	 {"lo":5,"classes":[{"select":{"key":"outdeg","lo":0,"hi":8},"iterator":"pivot","intersection":"hash","width":32,"block":256,"params":{"table":512,"core":2048}},
	                    {"select":{"key":"outdeg","lo":8},"iterator":"pivot","intersection":"hash","width":32,"block":256,"params":{"table":512,"core":2048}}]}]}}`
	g, err := Parse([]byte(js), "old.json")
	if err != nil {
		t.Fatal(err)
	}
	if v := g.Guard.Variants; v[0].Core != 0 || v[1].Core != 2048 || len(v[1].Classes[1].Params) != 1 {
		t.Errorf("variants %+v", v)
	}
	if err := g.Validate(); err != nil {
		t.Error(err)
	}
}

func TestCoreLiftDisagrees(t *testing.T) {
	two := `prefix: p
relabel: true
core: %s
classes:
  - {select: {key: outdeg, lo: 0, hi: 8}, iterator: pivot, intersection: hash, params: {core: 1024}}
  - {select: {key: outdeg, lo: 8}, iterator: pivot, intersection: hash, params: {core: %s}}
`
	for _, c := range []struct{ list, second, want string }{
		{"0", "2048", `class 1: core 2048 differs from class 0's 1024`},
		{"4096", "1024", `class 0: core 1024 differs from the list's 4096`},
		{"0", "0", `class 1: core 0 differs from class 0's 1024`},
	} {
		_, err := Parse([]byte(strings.Replace(strings.Replace(two, "%s", c.list, 1), "%s", c.second, 1)), "p.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "p.yaml: ") {
			t.Errorf("list %s, second %s: error %v, want %q", c.list, c.second, err, c.want)
		}
	}
	// Agreeing with the list's core is no error.
	p, err := Parse([]byte(strings.Replace(strings.Replace(two, "%s", "1024", 1), "%s", "1024", 1)), "p.yaml")
	if err != nil || p.Core != 1024 {
		t.Errorf("agreeing cores: core %d, %v", p.Core, err)
	}
}

// TestNamesWithoutCoreKept: names of plans without a core, computed before
// the core moved to the class list, are unchanged.
func TestNamesWithoutCoreKept(t *testing.T) {
	presets := map[string]string{
		"polak": "polak_10f01137", "green": "green_8413c987", "bisson": "bisson_7486a327",
		"tricore": "tricore_b5de2cb4", "fox": "fox_5e170386", "hu": "hu_83650158",
		"hindex": "hindex_2553db92", "trust": "trust_b234132e", "grouptc": "grouptc_18378fcb",
		"skiff": "skiff_882ec28e", "tcbw": "tcbw_928b78ae", "radixbin": "radixbin_3d1a3b86",
	}
	for n, want := range presets {
		p, ok := Preset(n)
		if !ok {
			t.Errorf("preset %s missing", n)
			continue
		}
		if got := p.Name(); got != want {
			t.Errorf("preset %s: name %s, want %s", n, got, want)
		}
	}
	// Examples; those with a core without it (the names they had without
	// their class parameter core).
	specs := map[string]string{
		"dense.yaml": "dense_4dc9db95", "pivot.yaml": "pivot_b28b736a", "small-bitmap.yaml": "small_bitmap_ccf194e1",
		"small.yaml": "small_11294583", "two-class.yaml": "twoclass_35cd1e62",
		"pivot-one.yaml": "pivot_one_24da49da", "hybrid.yaml": "hybrid_b9923cb3",
	}
	for f, want := range specs {
		p, err := Load(filepath.Join("../examples", f))
		if err != nil {
			t.Fatal(err)
		}
		p.Core = 0
		if p.Guard != nil {
			for i := range p.Guard.Variants {
				p.Guard.Variants[i].Core = 0
			}
		}
		if got := p.Name(); got != want {
			t.Errorf("%s: name %s, want %s", f, got, want)
		}
	}
}

func TestCoreCanonical(t *testing.T) {
	p, err := Load("../examples/hybrid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := p.Canonical()
	var cores []int
	for _, v := range c.Guard.Variants {
		cores = append(cores, v.Core)
		for _, cl := range v.Classes {
			if _, ok := cl.Params[ParamCore]; ok {
				t.Errorf("canonical class %s holds a core", cl.Name)
			}
		}
	}
	if !reflect.DeepEqual(cores, []int{0, 4096, 8192}) {
		t.Errorf("canonical cores %v", cores)
	}
	// Guarded plans take no plan-level core.
	p.Core = 4096
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "set it on the guard's variants") {
		t.Errorf("plan core with a guard: %v", err)
	}
}
