package gen_test

import (
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/gen/internal/golden"
	"github.com/tcgen/tcgen/ir"
)

// skiffPlans are the golden set's Skiff specs (gen/internal/golden).
func skiffPlans() []ir.Plan {
	var ps []ir.Plan
	for _, p := range golden.Specs() {
		if strings.HasPrefix(p.Prefix, "skiff_") {
			ps = append(ps, p)
		}
	}
	return ps
}

// Every organisation reaches the source and the manifest as intended.
func TestSkiffLowering(t *testing.T) {
	preset, _ := ir.Preset("skiff")
	out, err := gen.Generate(preset, gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	c := out.Manifest.Variants[0].Classes[0]
	if c.Items != gen.ItemsEdges || !c.NeedsSrc || out.Manifest.Src == nil || c.Grid.ItemsPerBlock != 256 || c.Scratch == nil || c.Scratch.BitsPerOutDeg == 0 {
		t.Errorf("warp-index class: %+v, scratch %+v", c, c.Scratch)
	}
	for _, want := range []string{"constexpr u32 HOP = 32;", "atomicCAS(", "__match_any_sync(", "__ballot_sync(", "Warp_Index", "trie_probe(", "for (u64 pos = i0; pos < end;)"} {
		if !strings.Contains(out.Source, want) && !strings.Contains(out.Source, strings.ReplaceAll(want, "Warp_Index", "warp-index")) {
			t.Errorf("skiff source lacks %q", want)
		}
	}
	for _, p := range skiffPlans() {
		out, err := gen.Generate(p, gen.DefaultTarget())
		if err != nil {
			t.Fatalf("%s: %v", p.Prefix, err)
		}
		c := out.Manifest.Variants[0].Classes[1]
		trie := c.Params[ir.ParamScheme] == ir.SchemeHopscotch
		index := c.Iterator == ir.IterVertex && (c.Params[ir.ParamCTA] == ir.CTABlockIndex || c.Params[ir.ParamCTA] == ir.CTAWarpIndex)
		if (c.Scratch != nil) != trie || (c.Items == gen.ItemsEdges) != (index || c.Iterator == ir.IterEdge) {
			t.Errorf("%s: scratch %v items %s", p.Prefix, c.Scratch, c.Items)
		}
		if index && c.Grid.ItemsPerBlock != c.Block || !index && c.Grid.ItemsPerBlock != c.Block/c.Width {
			t.Errorf("%s: grid %+v", p.Prefix, c.Grid)
		}
		if strings.Contains(out.Source, "trie_probe") != trie {
			t.Errorf("%s: trie in the source %v, scheme hopscotch %v", p.Prefix, !trie, trie)
		}
	}
}

// The scratch formula bounds every table a group can build: for every hop
// and every number of inserting warps, 2 * WordsFor(0, D) u32 words hold
// the table of any d <= D keys (the kernel traps otherwise).
func TestSkiffScratchBound(t *testing.T) {
	for _, hop := range []int{4, 8, 16, 32} {
		for _, width := range []int{1, 32, 64, 1024} {
			p := ir.Plan{Prefix: "bound", Classes: []ir.Class{{Select: ir.Selector{Key: ir.KeyOutDegree},
				Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Hash, Width: width, Block: max(width, 32),
					Params: map[string]int64{ir.ParamScheme: ir.SchemeHopscotch, ir.ParamHop: int64(hop), ir.ParamBuckets: 16, ir.ParamSlots: 1}}}}}
			out, err := gen.Generate(p, gen.DefaultTarget())
			if err != nil {
				t.Fatal(err)
			}
			s := *out.Manifest.Variants[0].Classes[0].Scratch
			spares := max(1, width/32)
			check := func(d uint64) {
				_, _, words := gen.SkiffTableWords(hop, spares, d)
				if have := 2 * s.WordsFor(0, d); have < words {
					t.Fatalf("hop %d width %d: %d keys need %d u32 words, the scratch gives %d", hop, width, d, words, have)
				}
			}
			for d := uint64(1); d < 5000; d++ {
				check(d)
			}
			for d := uint64(5000); d < 1<<32; d = d*3/2 + 7 {
				check(d)
			}
		}
	}
}
