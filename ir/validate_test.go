package ir

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestPresetsValid(t *testing.T) {
	names := map[string]string{}
	for _, p := range Presets() {
		if err := p.Validate(); err != nil {
			t.Errorf("preset %s: %v", p.Prefix, err)
		}
		if p.Doc == "" {
			t.Errorf("preset %s: Doc must cite its source", p.Prefix)
		}
		if other, dup := names[p.Name()]; dup {
			t.Errorf("presets %s and %s share the name %s", p.Prefix, other, p.Name())
		}
		names[p.Name()] = p.Prefix
		q, ok := Preset(p.Prefix)
		if !ok || q.Name() != p.Name() {
			t.Errorf("Preset(%q) does not give the preset back", p.Prefix)
		}
	}
	if len(names) != 13 {
		t.Errorf("%d presets, want the 12 of DESIGN.md and WeTriC", len(names))
	}
	if _, ok := Preset("nope"); ok {
		t.Error("Preset(nope) found something")
	}
}

// The presets carry the papers' numbers.
func TestPresetNumbers(t *testing.T) {
	trust, _ := Preset("trust")
	want := []struct {
		lo, hi      int64
		skip        bool
		width       int
		buckets     int64
		blockThread int
	}{
		{0, 2, true, 0, 0, 0},
		{2, 101, false, 32, 32, 0},
		{101, 0, false, 1024, 1024, 1024},
	}
	for i, w := range want {
		c := trust.Classes[i]
		if c.Select.Lo != w.lo || c.Select.Hi != w.hi || c.Skip != w.skip {
			t.Errorf("trust class %d: [%d,%d) skip=%v", i, c.Select.Lo, c.Select.Hi, c.Skip)
		}
		if !c.Skip && (c.Width != w.width || Get(c.Strategy, ParamBuckets) != w.buckets) {
			t.Errorf("trust class %d: width %d buckets %d", i, c.Width, Get(c.Strategy, ParamBuckets))
		}
		if w.blockThread != 0 && c.Block != w.blockThread {
			t.Errorf("trust class %d: block %d", i, c.Block)
		}
	}
	bisson, _ := Preset("bisson")
	g := bisson.Guard
	if g == nil || g.Feature != FeatureAvgOutDeg || len(g.Variants) != 3 ||
		g.Variants[0].Hi != 3.8 || g.Variants[1].Lo != 3.8 || g.Variants[1].Hi != 38 || g.Variants[2].Lo != 38 {
		t.Errorf("bisson guard: %+v", g)
	} else {
		ws := []int{1, 32, g.Variants[2].Classes[0].Block}
		for i, v := range g.Variants {
			if v.Classes[0].Width != ws[i] {
				t.Errorf("bisson variant %d: width %d, want %d", i, v.Classes[0].Width, ws[i])
			}
		}
	}
	fox, _ := Preset("fox")
	if len(fox.Classes) != 6 {
		t.Fatalf("fox: %d bins, want 6", len(fox.Classes))
	}
	for n, c := range fox.Classes {
		if c.Width != 1<<n || c.Select.Key != KeyWork {
			t.Errorf("fox bin %d: width %d key %s", n, c.Width, c.Select.Key)
		}
	}
	hindex, _ := Preset("hindex")
	if c := hindex.Classes[0]; c.Width != 32 || Get(c.Strategy, ParamBuckets) != 32 {
		t.Errorf("hindex: width %d buckets %d", c.Width, Get(c.Strategy, ParamBuckets))
	}
	green, _ := Preset("green")
	if c := green.Classes[0]; c.Width != 32 || c.Block != 512 {
		t.Errorf("green: width %d block %d", c.Width, c.Block)
	}
	radix, _ := Preset("radixbin")
	if Get(radix.Classes[0].Strategy, ParamThreshold) != 1024 {
		t.Error("radixbin: threshold must be the paper's 1024")
	}
	skiff, _ := Preset("skiff")
	if s := skiff.Classes[0].Strategy; Get(s, ParamCTA) != CTAWarpIndex || Get(s, ParamScheme) != SchemeHopscotch || Get(s, ParamHop) != 32 {
		t.Errorf("skiff params: %v", s.Params)
	}
}

func hashClass(name string, lo, hi int64, buckets int64) Class {
	return Class{Name: name, Select: Selector{Key: KeyOutDegree, Lo: lo, Hi: hi}, Strategy: Strategy{
		Iterator: IterVertex, Intersection: Hash, Width: 32, Block: 256,
		Params: map[string]int64{ParamBuckets: buckets},
	}}
}

func TestValidateMessages(t *testing.T) {
	base := func() Plan {
		return Plan{Prefix: "t", Orientation: OrientDegree, Classes: []Class{
			hashClass("small", 0, 16, 32), hashClass("hubs", 16, 0, 64),
		}}
	}
	cases := []struct {
		name string
		mod  func(*Plan)
		want string
	}{
		{"buckets pow2", func(p *Plan) { p.Classes[1].Params[ParamBuckets] = 100 },
			`class "hubs": buckets must be a power of two in 16..4096, got 100`},
		{"unknown param", func(p *Plan) { p.Classes[0].Params["bukets"] = 32 },
			`class "small": unknown parameter "bukets" for vertex/hash; known: buckets, slots, overflow, scheme, hop, cta`},
		{"no params", func(p *Plan) {
			p.Classes[0].Strategy = Strategy{Iterator: IterEdge, Intersection: MergePath, Width: 4, Block: 256, Params: map[string]int64{"x": 1}}
		}, `class "small": unknown parameter "x": edge/merge-path takes no parameters`},
		{"enum", func(p *Plan) { p.Classes[0].Params[ParamCTA] = 7 },
			`class "small": cta must be one of 0 (fixed), 1 (block-degree), 2 (block-index), 3 (warp-index), got 7`},
		{"gap", func(p *Plan) { p.Classes[1].Select.Lo = 20 },
			`class "hubs": selector [20, inf) leaves a gap [16, 20) after the previous class`},
		{"overlap", func(p *Plan) { p.Classes[1].Select.Lo = 10 },
			`class "hubs": selector [10, inf) overlaps the previous class, which ends at 16`},
		{"first lo", func(p *Plan) { p.Classes[0].Select.Lo = 1 },
			`class "small": selector [1, 16) must start at 0`},
		{"last bounded", func(p *Plan) { p.Classes[1].Select.Hi = 100 },
			`class "hubs": selector [16, 100) must be unbounded`},
		{"unreachable", func(p *Plan) { p.Classes[0].Select.Hi = 0 },
			`class "hubs": selector [16, inf) is unreachable`},
		{"mixed keys", func(p *Plan) { p.Classes[1].Select.Key = KeyWork },
			`class "hubs": selector key "work" differs from the first class's "outdeg"`},
		{"work on vertex", func(p *Plan) { p.Classes[0].Select.Key = KeyWork; p.Classes[1].Select.Key = KeyWork },
			`class "small": selector key work estimates the cost of an edge; the vertex iterator needs key outdeg`},
		{"unknown key", func(p *Plan) { p.Classes[0].Select.Key = "deg" },
			`class "small": selector key "deg" unknown; known: outdeg, work`},
		{"skip too wide", func(p *Plan) {
			p.Classes[0] = Class{Name: "small", Select: Selector{Key: KeyOutDegree, Lo: 0, Hi: 16}, Skip: true}
		}, `class "small": skip is allowed only on out-degree ranges ending at or below 2`},
		{"skip with strategy", func(p *Plan) {
			p.Classes = append([]Class{{Name: "none", Select: Selector{Key: KeyOutDegree, Hi: 2}, Skip: true,
				Strategy: Strategy{Iterator: IterVertex}}}, p.Classes...)
			p.Classes[1].Select.Lo = 2
		}, `class "none": a skip class runs no kernel`},
		{"width", func(p *Plan) { p.Classes[0].Width = 48 },
			`class "small": width must be a power of two in 1..32 or equal to block (256), got 48`},
		{"width > 32 not block", func(p *Plan) { p.Classes[0].Width = 64 },
			`width must be a power of two in 1..32 or equal to block (256), got 64`},
		{"block", func(p *Plan) { p.Classes[0].Block = 100 },
			`class "small": block must be a multiple of 32 in 32..1024, got 100`},
		{"width == block is fine", func(p *Plan) { p.Classes[1].Block = 64; p.Classes[1].Width = 64 }, ``},
		{"iterator", func(p *Plan) { p.Classes[0].Iterator = "node" },
			`class "small": iterator "node" unknown; known: vertex, edge, edge-chunk, wedge`},
		{"intersection", func(p *Plan) { p.Classes[0].Intersection = "sort" },
			`class "small": intersection "sort" unknown; known: merge, merge-path, binary-search, hash, bitmap, bitwise, radix`},
		{"pair", func(p *Plan) { p.Classes[0].Intersection = Radix; p.Classes[0].Params = nil },
			`class "small": intersection radix does not apply to the vertex iterator; it takes merge, merge-path, binary-search, hash, bitmap`},
		{"shared", func(p *Plan) { p.Classes[1].Params[ParamSlots] = 32; p.Classes[1].Params[ParamBuckets] = 4096 },
			`class "hubs": parameters need 4194304 bytes of shared memory per block (8 items per block), more than the 48896`},
		{"orientation", func(p *Plan) { p.Orientation = "random" },
			`orientation "random" unknown; known: degree, id, tcbw`},
		{"prefix", func(p *Plan) { p.Prefix = "My Plan" },
			`prefix "My Plan" must start with a lowercase letter`},
		{"dup name", func(p *Plan) { p.Classes[1].Name = "small" },
			`class "small": name already used by class 0`},
		{"no classes", func(p *Plan) { p.Classes = nil }, `plan has no classes`},
		{"both", func(p *Plan) { p.Guard = &Guard{Feature: FeatureAvgOutDeg} }, `plan has both classes and a guard`},
		{"chunk width", func(p *Plan) {
			p.Classes[0].Strategy = Strategy{Iterator: IterEdgeChunk, Intersection: BinarySearch, Width: 32, Block: 256}
		}, `class "small": the edge-chunk iterator gives a whole block to a chunk: width must equal block (256), got 32`},
		{"edge merge width", func(p *Plan) {
			p.Classes[0].Strategy = Strategy{Iterator: IterEdge, Intersection: Merge, Width: 4, Block: 256}
		}, `a merge of one edge is sequential: width must be 1, got 4`},
		{"work models", func(p *Plan) {
			p.Classes[0] = Class{Name: "small", Select: Selector{Key: KeyWork, Hi: 16}, Strategy: Strategy{Iterator: IterEdge, Intersection: Merge, Width: 1}}
			p.Classes[1] = Class{Name: "hubs", Select: Selector{Key: KeyWork, Lo: 16}, Strategy: Strategy{Iterator: IterEdge, Intersection: BinarySearch, Width: 32}}
		}, `class "hubs": intersection binary-search estimates work as search, but the list's first class uses merge`},
		{"pivot core in a class", func(p *Plan) {
			p.Relabel = true
			for i := range p.Classes {
				p.Classes[i].Strategy = Strategy{Iterator: IterPivot, Intersection: Hash, Width: 32, Block: 256,
					Params: map[string]int64{ParamTable: 256, ParamHubBits: 1024, ParamCore: 4096}}
			}
		}, `class "small": core is set on the class list (the plan, or a guard variant), not on a class`},
		{"pivot core", func(p *Plan) {
			p.Relabel, p.Core = true, 4096
			for i := range p.Classes {
				p.Classes[i].Strategy = Strategy{Iterator: IterPivot, Intersection: Hash, Width: 32, Block: 256,
					Params: map[string]int64{ParamTable: 256, ParamHubBits: 1024}}
			}
		}, ``},
		{"pivot core value", func(p *Plan) {
			p.Relabel, p.Core = true, 3000
			for i := range p.Classes {
				p.Classes[i].Strategy = Strategy{Iterator: IterPivot, Intersection: Hash, Width: 32, Block: 256}
			}
		}, `core must be one of 0, 1024, 2048, 4096, 8192, got 3000`},
		{"core without pivot", func(p *Plan) { p.Core = 4096 }, `core 4096 needs a pivot class in the list`},
	}
	for _, c := range cases {
		p := base()
		c.mod(&p)
		err := p.Validate()
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: unexpected error %v", c.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error, want %q", c.name, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, err, c.want)
		}
	}
	if err := base().Validate(); err != nil {
		t.Errorf("base plan: %v", err)
	}
}

func TestValidateGuard(t *testing.T) {
	cls := func() []Class { return []Class{hashClass("all", 0, 0, 32)} }
	base := func() Plan {
		return Plan{Prefix: "g", Guard: &Guard{Feature: FeatureAvgOutDeg, Variants: []Variant{
			{Lo: 0, Hi: 3.8, Classes: cls()}, {Lo: 3.8, Hi: 38, Classes: cls()}, {Lo: 38, Classes: cls()},
		}}}
	}
	cases := []struct {
		mod  func(*Plan)
		want string
	}{
		{func(p *Plan) { p.Guard.Feature = "density" }, `guard feature "density" unknown; known: avg_outdeg, avg_degree`},
		{func(p *Plan) { p.Guard.Variants[1].Lo = 4 }, `guard variant 1 [4, 38): gap [3.8, 4) of avg_outdeg is not covered`},
		{func(p *Plan) { p.Guard.Variants[1].Lo = 3 }, `guard variant 1 [3, 38): overlaps the previous variant`},
		{func(p *Plan) { p.Guard.Variants[0].Lo = 1 }, `guard variant 0 [1, 3.8): the first variant must start at 0`},
		{func(p *Plan) { p.Guard.Variants[2].Hi = 100 }, `guard variant 2 [38, 100): the last variant must be unbounded`},
		{func(p *Plan) { p.Guard.Variants[2].Classes = nil }, `guard variant 2 [38, inf): no classes`},
		{func(p *Plan) { p.Guard.Variants[1].Classes[0].Params[ParamBuckets] = 3 },
			`guard variant 1 [3.8, 38): class "all": buckets must be a power of two in 16..4096, got 3`},
		{func(p *Plan) { p.Guard.Variants = nil }, `guard has no variants`},
		// Conditions (when): a variant with them shares its range with the next.
		{func(p *Plan) { p.Guard.Variants[0].When = []Cond{{Feature: FeatureDegreeCV, Hi: 1}} },
			`guard variant 1 [3.8, 38): variant 0 before it has conditions (when), so this one must cover the same range [0, 3.8)`},
		{func(p *Plan) { p.Guard.Variants[2].When = []Cond{{Feature: FeatureDegreeCV, Hi: 1}} },
			`guard variant 2 [38, inf): the last variant must have no conditions`},
		{func(p *Plan) { p.Guard.Variants[1].When = []Cond{{Feature: "density", Hi: 1}} }, `when[0] density: unknown feature; known: avg_outdeg`},
		{func(p *Plan) { p.Guard.Variants[1].When = []Cond{{Feature: FeatureEdges, Lo: math.NaN()}} }, `when[0] edges: lo and hi must be finite`},
		{func(p *Plan) { p.Guard.Variants[2].Lo = math.Inf(1) }, `lo and hi must be finite numbers`},
		{func(p *Plan) { p.Guard.Variants[1].When = []Cond{{Feature: FeatureEdges}} }, `when[0] edges: holds for every graph`},
		{func(p *Plan) { p.Guard.Variants[1].When = []Cond{{Feature: FeatureEdges, Lo: 5, Hi: 2}} }, `when[0] edges: hi must be greater than lo`},
		// A variant's own orientation: a known one, in a relabelling plan.
		{func(p *Plan) { p.Relabel, p.Guard.Variants[1].Orientation = true, "random" }, `guard variant 1: orientation "random" unknown; known: degree`},
		{func(p *Plan) { p.Guard.Variants[1].Orientation = OrientTCBW }, `guard variant 1: an orientation of its own (tcbw) needs relabel: true`},
		{func(p *Plan) {
			p.Orientation, p.Relabel, p.Guard.Variants[1].Orientation = OrientID, true, OrientDegree // id drops relabel
		}, `guard variant 1: an orientation of its own (degree) needs a relabelling plan; a plan oriented by id takes ids as they are`},
	}
	for _, c := range cases {
		p := base()
		c.mod(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v\nwant %q", err, c.want)
		}
	}
	if err := base().Validate(); err != nil {
		t.Errorf("base: %v", err)
	}
	// A conditional variant followed by the catch-all of the same range.
	p := base()
	v := p.Guard.Variants[1]
	v.When = []Cond{{Feature: FeatureDegreeCV, Hi: 1}, {Feature: FeatureAvgDegree, Lo: 2}}
	p.Guard.Variants = slices.Insert(p.Guard.Variants, 1, v)
	if err := p.Validate(); err != nil {
		t.Errorf("conditional variant: %v", err)
	}
	if base().Name() == p.Name() {
		t.Error("the conditions do not change the plan's name")
	}
	// A variant's orientation: the plan's changes nothing, another one the name.
	q := base()
	q.Relabel = true
	named := q.Name()
	q.Guard.Variants[1].Orientation = OrientDegree
	if q.Name() != named {
		t.Error("a variant's orientation equal to the plan's changes the name")
	}
	q.Guard.Variants[1].Orientation = OrientTCBW
	if err := q.Validate(); err != nil || q.Name() == named {
		t.Errorf("variant oriented by tcbw: %v, name %s (without: %s)", err, q.Name(), named)
	}
}

// Validate reports every problem, not only the first.
func TestValidateJoins(t *testing.T) {
	p := Plan{Prefix: "t", Classes: []Class{hashClass("a", 1, 0, 100)}}
	err := p.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{"must start at 0", "buckets must be"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q in %v", w, err)
		}
	}
}

func TestCheckGeneratable(t *testing.T) {
	p, _ := Preset("polak")
	if err := p.CheckGeneratable(); err != nil {
		t.Errorf("polak: %v", err)
	}
	// A guarded plan with a pair the generator does not implement is
	// refused, naming the variant, the class and the pair.
	withGenerated(t, Pair{IterEdge, Merge})
	q := Plan{Prefix: "q", Guard: &Guard{Feature: FeatureAvgOutDeg, Variants: []Variant{{Classes: []Class{{
		Name: "thread", Select: Selector{Key: KeyOutDegree},
		Strategy: Strategy{Iterator: IterWedge, Intersection: Radix}}}}}}}
	want := `guard variant 0: class "thread": wedge/radix`
	if err := q.CheckGeneratable(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("wedge/radix: %v", err)
	}
}

// TestValidateMinBlocks: a second launch bound the SM cannot hold is
// refused (the compiler would ignore it silently).
func TestValidateMinBlocks(t *testing.T) {
	mk := func(block int, mb int64) Plan {
		return Plan{Prefix: "m", Classes: []Class{{Name: "all", Select: Selector{Key: KeyOutDegree},
			Strategy: Strategy{Iterator: IterVertex, Intersection: Merge, Width: 1, Block: block, Params: map[string]int64{ParamMinBlocks: mb}}}}}
	}
	if err := mk(256, 8).Validate(); err != nil {
		t.Errorf("8 blocks of 256: %v", err)
	}
	want := "min_blocks 8 of 512 threads is 4096 threads per SM, more than the 2048 an SM holds"
	if err := mk(512, 8).Validate(); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("8 blocks of 512: %v", err)
	}
}

// TestValidateAlign: the aligned copy is laid out for one thread's tiles,
// so align needs a tile above 1 and width 1.
func TestValidateAlign(t *testing.T) {
	mk := func(width int, tile, align int64) Plan {
		it := IterEdge
		if width > 1 {
			it = IterVertex // an edge merge has width 1
		}
		return Plan{Prefix: "a", Classes: []Class{{Name: "all", Select: Selector{Key: KeyOutDegree},
			Strategy: Strategy{Iterator: it, Intersection: Merge, Width: width, Block: 128, Params: map[string]int64{ParamTile: tile, ParamAlign: align}}}}}
	}
	for _, ok := range []Plan{mk(1, 8, 1), mk(1, 4, 2), mk(4, 1, 0)} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%+v: %v", ok.Classes[0].Strategy, err)
		}
	}
	for _, bad := range []Plan{mk(1, 1, 1), mk(4, 8, 2)} {
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "align needs tile 4 or 8 and width 1") {
			t.Errorf("%+v: %v", bad.Classes[0].Strategy, err)
		}
	}
}

// TestValidateTarget: target items carry no u, which align both needs;
// bands order target items, and prefetch reads them ahead.
func TestValidateTarget(t *testing.T) {
	mk := func(align int64) Plan {
		return Plan{Prefix: "t", Classes: []Class{{Name: "all", Select: Selector{Key: KeyOutDegree},
			Strategy: Strategy{Iterator: IterEdge, Intersection: Merge, Width: 1, Block: 128, Params: map[string]int64{ParamTile: 8, ParamAlign: align, ParamTarget: 1}}}}}
	}
	for _, a := range []int64{0, 1} {
		if err := mk(a).Validate(); err != nil {
			t.Errorf("target with align %d: %v", a, err)
		}
	}
	if err := mk(2).Validate(); err == nil || !strings.Contains(err.Error(), "target with align both") {
		t.Errorf("target with align both: %v", err)
	}
	// bands order target items: not without target, not of a few positions.
	band := func(target, b int64) error {
		p := mk(1)
		p.Classes[0].Strategy.Params[ParamTarget], p.Classes[0].Strategy.Params[ParamBand] = target, b
		return p.Validate()
	}
	if err := band(1, 22); err != nil {
		t.Errorf("target with band 22: %v", err)
	}
	for _, c := range [][2]int64{{0, 22}, {1, 5}, {1, 41}} {
		if err := band(c[0], c[1]); err == nil || !strings.Contains(err.Error(), "band") {
			t.Errorf("target %d, band %d: %v; want refused", c[0], c[1], err)
		}
	}
	// carry writes N+(v)'s word of the aligned copy into target items: not
	// without either, not with prefetch, which reads the word itself.
	carry := func(target, align, p int64) error {
		pl := mk(align)
		pl.Classes[0].Strategy.Params[ParamTarget], pl.Classes[0].Strategy.Params[ParamPrefetch] = target, p
		pl.Classes[0].Strategy.Params[ParamCarry] = 1
		return pl.Validate()
	}
	if err := carry(1, 1, 0); err != nil {
		t.Errorf("carry with target and align on: %v", err)
	}
	for _, c := range [][3]int64{{0, 1, 0}, {1, 0, 0}, {1, 1, 1}} {
		if err := carry(c[0], c[1], c[2]); err == nil || !strings.Contains(err.Error(), "carry 1") {
			t.Errorf("carry with target %d, align %d, prefetch %d: %v; want refused", c[0], c[1], c[2], err)
		}
	}
	// prefetch reads target items ahead; its second step reads the aligned copy's words.
	prefetch := func(target, align, p int64) error {
		pl := mk(align)
		pl.Classes[0].Strategy.Params[ParamTarget], pl.Classes[0].Strategy.Params[ParamPrefetch] = target, p
		return pl.Validate()
	}
	for _, c := range [][3]int64{{1, 0, 1}, {1, 1, 1}, {1, 1, 2}} {
		if err := prefetch(c[0], c[1], c[2]); err != nil {
			t.Errorf("target %d, align %d, prefetch %d: %v", c[0], c[1], c[2], err)
		}
	}
	for _, c := range [][3]int64{{0, 1, 1}, {1, 0, 2}, {1, 1, 3}} {
		if err := prefetch(c[0], c[1], c[2]); err == nil || !strings.Contains(err.Error(), "prefetch") {
			t.Errorf("target %d, align %d, prefetch %d: %v; want refused", c[0], c[1], c[2], err)
		}
	}
}

// TestValidateVertexPrefetch: the vertex merge reads its next vertices'
// bounds from the offsets, so prefetch takes no aligned copy.
func TestValidateVertexPrefetch(t *testing.T) {
	check := func(tile, align, p int64) error {
		return Plan{Prefix: "t", Classes: []Class{{Name: "all", Select: Selector{Key: KeyOutDegree},
			Strategy: Strategy{Iterator: IterVertex, Intersection: Merge, Width: 1, Block: 256,
				Params: map[string]int64{ParamTile: tile, ParamAlign: align, ParamResident: 1, ParamPrefetch: p}}}}}.Validate()
	}
	for _, c := range [][3]int64{{1, 0, 1}, {1, 0, 2}, {4, 0, 2}, {4, 2, 0}} {
		if err := check(c[0], c[1], c[2]); err != nil {
			t.Errorf("tile %d, align %d, prefetch %d: %v", c[0], c[1], c[2], err)
		}
	}
	for _, c := range [][3]int64{{4, 1, 1}, {4, 2, 2}, {1, 0, 3}} {
		if err := check(c[0], c[1], c[2]); err == nil || !strings.Contains(err.Error(), "prefetch") {
			t.Errorf("tile %d, align %d, prefetch %d: %v; want refused", c[0], c[1], c[2], err)
		}
	}
}

// A wedge search's shared memory is its tile of wedges, block x spread,
// spaced one word in 32: block 1024 with spread 5 fits, with spread 32 it
// is refused by block and spread.
func TestValidateWedgeShared(t *testing.T) {
	plan := func(block int, spread int64) Plan {
		return Plan{Prefix: "w", Orientation: OrientDegree, Relabel: true, Classes: []Class{{Name: "all", Select: Selector{Key: KeyOutDegree},
			Strategy: Strategy{Iterator: IterWedge, Intersection: BinarySearch, Width: 1, Block: block, Params: map[string]int64{ParamSpread: spread}}}}}
	}
	if err := plan(1024, 5).Validate(); err != nil {
		t.Errorf("block 1024, spread 5: %v", err)
	}
	if err := plan(1024, 32).Validate(); err == nil || !strings.Contains(err.Error(), "block 1024 x spread 32 wedges need 270336 bytes of shared memory") {
		t.Errorf("block 1024, spread 32: %v", err)
	}
}

// TestValidateMatrixUpper: the upper-triangle layout needs a matrix, a
// matrix above 16384 ids needs it, and left at its default it stays out of
// the plan's name.
func TestValidateMatrixUpper(t *testing.T) {
	plan := func(params map[string]int64) Plan {
		return Plan{Prefix: "w", Orientation: OrientDegree, Relabel: true, Classes: []Class{{Name: "all", Select: Selector{Key: KeyOutDegree},
			Strategy: Strategy{Iterator: IterWedge, Intersection: BinarySearch, Width: 1, Block: 128, Params: params}}}}
	}
	if err := plan(map[string]int64{ParamMatrix: 1024, ParamMatrixUpper: 1}).Validate(); err != nil {
		t.Errorf("matrix 1024, upper: %v", err)
	}
	if err := plan(map[string]int64{ParamMatrixUpper: 1}).Validate(); err == nil || !strings.Contains(err.Error(), "matrix_upper lays out the bit matrix, and matrix is 0") {
		t.Errorf("upper without a matrix: %v", err)
	}
	if err := plan(map[string]int64{ParamMatrix: 32768, ParamMatrixUpper: 1}).Validate(); err != nil {
		t.Errorf("matrix 32768, upper: %v", err)
	}
	if err := plan(map[string]int64{ParamMatrix: 24576}).Validate(); err == nil || !strings.Contains(err.Error(), "a square matrix of 24576 ids takes 72 MiB; above 16384 ids the matrix needs matrix_upper") {
		t.Errorf("square 24576: %v", err)
	}
	if a, b := plan(map[string]int64{ParamMatrix: 1024}).Name(), plan(map[string]int64{ParamMatrix: 1024, ParamMatrixUpper: 0}).Name(); a != b {
		t.Errorf("matrix_upper 0 changes the name: %s, %s", a, b)
	}
}
