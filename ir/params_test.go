package ir

import (
	"slices"
	"strings"
	"testing"
)

func TestPairTable(t *testing.T) {
	// One row per pair, in the order of Iterators then Intersections (the
	// order RandomPlan draws in).
	var want []Pair
	for _, it := range Iterators {
		for _, is := range Intersections {
			if (Pair{it, is}).Valid() {
				want = append(want, Pair{it, is})
			}
		}
	}
	if got := Pairs(); !slices.Equal(got, want) || len(pairRow) != len(pairTable) {
		t.Errorf("pair table out of order or with a duplicate or unknown pair:\n%v\nwant\n%v", got, want)
	}
	for _, r := range pairTable {
		p, specs := r.pair, r.params
		seen := map[string]bool{}
		for _, ps := range specs {
			where := p.String() + " " + ps.Name
			if seen[ps.Name] {
				t.Errorf("%s: declared twice", where)
			}
			seen[ps.Name] = true
			if ps.Source == "" || ps.Doc == "" {
				t.Errorf("%s: needs a Source and a Doc", where)
			}
			if !ps.Allowed(ps.Default) {
				t.Errorf("%s: default %d not allowed (%s)", where, ps.Default, ps.Range())
			}
			if ps.Min > ps.Max {
				t.Errorf("%s: min %d > max %d", where, ps.Min, ps.Max)
			}
			if ps.Pow2 && (!isPow2(ps.Min) || !isPow2(ps.Max)) {
				t.Errorf("%s: power-of-two range must have power-of-two bounds", where)
			}
			if len(ps.Enum) > 0 && (ps.Min != 0 || ps.Max != int64(len(ps.Enum)-1)) {
				t.Errorf("%s: enum range must be 0..%d", where, len(ps.Enum)-1)
			}
		}
	}
	for _, s := range []ParamSpec{WidthSpec, BlockSpec} {
		if s.Source == "" || s.Doc == "" || !s.Allowed(s.Default) {
			t.Errorf("%s: incomplete spec", s.Name)
		}
	}
}

func TestParamsForPairs(t *testing.T) {
	names := func(it Iterator, is Intersection) []string {
		var out []string
		for _, ps := range ParamsFor(Strategy{Iterator: it, Intersection: is}) {
			out = append(out, ps.Name)
		}
		return out
	}
	cases := []struct {
		it   Iterator
		is   Intersection
		want []string
	}{
		{IterEdge, Merge, []string{"tile", "reverse", "min_blocks", "resident", "align", "target", "band", "carry", "prefetch"}},
		{IterVertex, Merge, []string{"tile", "min_blocks", "resident", "align", "prefetch"}},
		{IterEdge, MergePath, nil},
		{IterEdge, BinarySearch, []string{"levels"}},
		{IterVertex, BinarySearch, []string{"cache"}},
		{IterEdge, Hash, []string{"buckets", "slots", "overflow", "scheme", "hop"}},
		{IterVertex, Hash, []string{"buckets", "slots", "overflow", "scheme", "hop", "cta"}},
		{IterVertex, Bitmap, []string{"bitmap_bits", "bitmap_shared", "unroll"}},
		{IterEdge, Bitwise, []string{"p1", "p2", "slice_bits"}},
		{IterWedge, Radix, []string{"radix_bits", "threshold", "budget_mib"}},
		{IterEdgeChunk, BinarySearch, []string{"chunk"}},
		{IterWedge, Hash, nil}, // not a valid pair
	}
	for _, c := range cases {
		if got := names(c.it, c.is); !slices.Equal(got, c.want) {
			t.Errorf("ParamsFor(%s/%s) = %v, want %v", c.it, c.is, got, c.want)
		}
	}
	if (Pair{IterWedge, Hash}).Valid() || !(Pair{IterWedge, Radix}).Valid() || (Pair{IterEdge, Radix}).Valid() {
		t.Error("Valid disagrees with the table")
	}
}

func TestGet(t *testing.T) {
	s := Strategy{Iterator: IterVertex, Intersection: Hash, Width: 32, Block: 256,
		Params: map[string]int64{ParamBuckets: 1024}}
	if got := Get(s, ParamBuckets); got != 1024 {
		t.Errorf("buckets = %d, want 1024", got)
	}
	if got := Get(s, ParamSlots); got != specSlots.Default {
		t.Errorf("slots = %d, want the default %d", got, specSlots.Default)
	}
	c := Strategy{Iterator: IterEdgeChunk, Intersection: BinarySearch, Width: 128, Block: 128}
	if got := Get(c, ParamChunk); got != 128 {
		t.Errorf("chunk 0 should read as the block size, got %d", got)
	}
	c.Params = map[string]int64{ParamChunk: 512}
	if got := Get(c, ParamChunk); got != 512 {
		t.Errorf("chunk = %d, want 512", got)
	}
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), `"levels"`) {
			t.Errorf("Get of an unknown name should panic naming it, got %v", r)
		}
	}()
	Get(s, ParamLevels)
}

func TestSharedBytes(t *testing.T) {
	trust, _ := Preset("trust")
	block := trust.Classes[2].Strategy
	if got := block.SharedBytes(); got != 1024*4*4 {
		t.Errorf("trust block class: %d bytes, want %d", got, 1024*4*4)
	}
	tri, _ := Preset("tricore")
	if got := tri.Classes[0].SharedBytes(); got != 8*1023*4 {
		t.Errorf("tricore: %d bytes, want %d", got, 8*1023*4)
	}
	polak, _ := Preset("polak")
	if got := polak.Classes[0].SharedBytes(); got != 0 {
		t.Errorf("polak: %d bytes, want 0", got)
	}
}

func TestRange(t *testing.T) {
	if got := specBuckets.Range(); got != "a power of two in 16..4096" {
		t.Errorf("buckets range %q", got)
	}
	if got := specOverflow.Range(); got != "one of 0 (interleaved), 1 (contiguous)" {
		t.Errorf("overflow range %q", got)
	}
	if got := specThreshold.Range(); got != "in 1..1048576" {
		t.Errorf("threshold range %q", got)
	}
}

// withGenerated makes ps the generated pairs for the rest of the test, as
// if a generator implementing only them had registered.
func withGenerated(t *testing.T, ps ...Pair) {
	old := generated
	t.Cleanup(func() { generated = old })
	generated = map[Pair]bool{}
	for _, p := range ps {
		RegisterGenerated(p)
	}
}

func TestRegisterGenerated(t *testing.T) {
	withGenerated(t, Pair{IterEdge, Merge}, Pair{IterPivot, Hash})
	if got := GeneratedPairs(); !slices.Equal(got, []Pair{{IterEdge, Merge}, {IterPivot, Hash}}) {
		t.Errorf("GeneratedPairs = %v", got)
	}
	if (Pair{IterVertex, Merge}).Generated() || (Pair{IterWedge, Hash}).Generated() {
		t.Error("a pair not registered counts as generated")
	}
	for _, p := range []Pair{{IterWedge, Hash}, {IterEdge, Merge}} { // invalid, twice
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterGenerated(%s) did not panic", p)
				}
			}()
			RegisterGenerated(p)
		}()
	}
	// Without a registered generator, every valid pair counts.
	withGenerated(t)
	if got := GeneratedPairs(); !slices.Equal(got, Pairs()) {
		t.Errorf("no generator: GeneratedPairs = %v", got)
	}
}
