package gen_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
)

// skiffPlans are Skiff's other organisations and schemes as specs: the
// block organisations with the trie, the index and degree organisations
// over TRUST's bucket lists, and the trie on edges.
func skiffPlans() []ir.Plan {
	one := func(prefix string, it ir.Iterator, w, b int, params map[string]int64) ir.Plan {
		return ir.Plan{Prefix: prefix, Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{
			{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 2}, Skip: true},
			{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 2},
				Strategy: ir.Strategy{Iterator: it, Intersection: ir.Hash, Width: w, Block: b, Params: params}}}}
	}
	H, B := ir.SchemeHopscotch, ir.SchemeBuckets
	return []ir.Plan{
		one("skiff_block_degree", ir.IterVertex, 256, 256, map[string]int64{ir.ParamScheme: H, ir.ParamCTA: ir.CTABlockDegree, ir.ParamHop: 16, ir.ParamBuckets: 1024, ir.ParamSlots: 8}),
		one("skiff_block_index", ir.IterVertex, 128, 128, map[string]int64{ir.ParamScheme: H, ir.ParamCTA: ir.CTABlockIndex, ir.ParamBuckets: 512, ir.ParamSlots: 8}),
		one("skiff_fixed_lane", ir.IterVertex, 1, 64, map[string]int64{ir.ParamScheme: H, ir.ParamCTA: ir.CTAFixed, ir.ParamHop: 4, ir.ParamBuckets: 16, ir.ParamSlots: 8}),
		one("skiff_buckets_warp_index", ir.IterVertex, 32, 256, map[string]int64{ir.ParamScheme: B, ir.ParamCTA: ir.CTAWarpIndex}),
		one("skiff_buckets_block_index", ir.IterVertex, 256, 256, map[string]int64{ir.ParamScheme: B, ir.ParamCTA: ir.CTABlockIndex, ir.ParamBuckets: 256}),
		one("skiff_edge", ir.IterEdge, 32, 256, map[string]int64{ir.ParamScheme: H, ir.ParamHop: 8, ir.ParamBuckets: 128, ir.ParamSlots: 4}),
	}
}

func TestSkiffGolden(t *testing.T) {
	for _, p := range skiffPlans() {
		got := archive(t, p)
		path := filepath.Join("testdata", p.Prefix+".txtar")
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./gen -run Skiff -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (run go test ./gen -run Skiff -update and review the diff)", p.Prefix, path)
		}
	}
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
