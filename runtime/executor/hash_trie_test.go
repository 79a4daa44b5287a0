package executor

import (
	"fmt"
	"github.com/tcgen/tcgen/tests/gputest"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// The hash trie and CTA organisations (Skiff) run on the CPU model of
// hash_trie_model_test.go, their counts checked against the oracle.

// skiffPlan is a one-class plan (optionally with a skip class for d+ < 2).
func skiffPlan(o ir.Orientation, relabel bool, it ir.Iterator, w, blk int, params map[string]int64) ir.Plan {
	return ir.Plan{Prefix: "model", Orientation: o, Relabel: relabel, Classes: []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree},
		Strategy: ir.Strategy{Iterator: it, Intersection: ir.Hash, Width: w, Block: blk, Params: params}}}}
}

type skiffModelGraph struct {
	name string
	g    *graph.Graph
}

func skiffModelGraphs(t testing.TB) []skiffModelGraph {
	mk := func(name string, gg graph.Generator) skiffModelGraph {
		g, _, err := graph.Generate(gg)
		if err != nil {
			t.Fatal(err)
		}
		return skiffModelGraph{name, g}
	}
	hub := func(n, m, seed uint64) skiffModelGraph {
		rng := rand.New(rand.NewPCG(seed, 1))
		var pairs [][2]uint64
		for v := uint64(1); v <= n; v++ {
			pairs = append(pairs, [2]uint64{0, v})
		}
		for range m {
			pairs = append(pairs, [2]uint64{1 + rng.Uint64N(n), 1 + rng.Uint64N(n)})
		}
		g, _, err := graph.FromPairs(pairs)
		if err != nil {
			t.Fatal(err)
		}
		return skiffModelGraph{fmt.Sprintf("hub%d", n), g}
	}
	empty, _, err := graph.FromPairs(nil)
	if err != nil {
		t.Fatal(err)
	}
	return []skiffModelGraph{
		{"empty", empty},
		mk("er", graph.ErdosRenyi{N: 400, M: 5000, Seed: 5}),
		mk("dense", graph.ErdosRenyi{N: 120, M: 5000, Seed: 6}),
		mk("rmat10", graph.DefaultRMAT(10)),
		mk("k90", graph.Complete{N: 90}),
		mk("star", graph.Star{Leaves: 700}),
		mk("wheel", graph.Wheel{Rim: 300}),
		hub(5000, 9000, 3),
	}
}

// skiffModelShapes: every CTA organisation, widths from a lane to a block, both
// schemes, every hop, shared parts from none (every table in the scratch)
// to large.
func skiffModelShapes() []struct {
	name   string
	it     ir.Iterator
	w, blk int
	params map[string]int64
} {
	H, B := ir.SchemeHopscotch, ir.SchemeBuckets
	type shape = struct {
		name   string
		it     ir.Iterator
		w, blk int
		params map[string]int64
	}
	return []shape{
		{"preset", ir.IterVertex, 32, 256, map[string]int64{"scheme": H, "cta": ir.CTAWarpIndex, "buckets": 256, "slots": 4}},
		{"warpidx-h4-tiny", ir.IterVertex, 32, 64, map[string]int64{"scheme": H, "cta": ir.CTAWarpIndex, "hop": 4, "buckets": 16, "slots": 1}},
		{"blockidx-h16", ir.IterVertex, 128, 128, map[string]int64{"scheme": H, "cta": ir.CTABlockIndex, "hop": 16, "buckets": 64, "slots": 8}},
		{"blockidx-32", ir.IterVertex, 32, 32, map[string]int64{"scheme": H, "cta": ir.CTABlockIndex, "hop": 32, "buckets": 16, "slots": 2}},
		{"blockdeg-h8", ir.IterVertex, 256, 256, map[string]int64{"scheme": H, "cta": ir.CTABlockDegree, "hop": 8, "buckets": 32, "slots": 4}},
		{"blockdeg-64", ir.IterVertex, 64, 64, map[string]int64{"scheme": H, "cta": ir.CTABlockDegree, "buckets": 1024, "slots": 8}},
		{"fixed-1-h4", ir.IterVertex, 1, 64, map[string]int64{"scheme": H, "cta": ir.CTAFixed, "hop": 4, "buckets": 16, "slots": 4}},
		{"fixed-4", ir.IterVertex, 4, 64, map[string]int64{"scheme": H, "cta": ir.CTAFixed, "hop": 8}},
		{"fixed-16-h32", ir.IterVertex, 16, 128, map[string]int64{"scheme": H, "cta": ir.CTAFixed, "hop": 32, "buckets": 16, "slots": 2}},
		{"fixed-block", ir.IterVertex, 128, 128, map[string]int64{"scheme": H, "cta": ir.CTAFixed, "buckets": 128, "slots": 4}},
		{"buckets-warpidx", ir.IterVertex, 32, 128, map[string]int64{"scheme": B, "cta": ir.CTAWarpIndex, "buckets": 32, "slots": 2}},
		{"buckets-blockidx", ir.IterVertex, 64, 64, map[string]int64{"scheme": B, "cta": ir.CTABlockIndex, "buckets": 64, "slots": 1}},
		{"buckets-blockdeg", ir.IterVertex, 128, 128, map[string]int64{"scheme": B, "cta": ir.CTABlockDegree, "buckets": 128, "slots": 2}},
		{"edge-32", ir.IterEdge, 32, 128, map[string]int64{"scheme": H, "buckets": 32, "slots": 4}},
		{"edge-1-h8", ir.IterEdge, 1, 32, map[string]int64{"scheme": H, "hop": 8, "buckets": 16, "slots": 1}},
		{"edge-2", ir.IterEdge, 2, 64, map[string]int64{"scheme": H, "hop": 4}},
		{"edge-block", ir.IterEdge, 128, 128, map[string]int64{"scheme": H, "hop": 16, "buckets": 64, "slots": 2}},
	}
}

func TestSkiffModel(t *testing.T) {
	graphs := skiffModelGraphs(t)
	for si, sh := range skiffModelShapes() {
		for _, or := range []struct {
			o       ir.Orientation
			relabel bool
			graphs  string // initials of the graphs (all: every one)
		}{{ir.OrientDegree, true, "all"}, {ir.OrientDegree, false, "erh"}, {ir.OrientID, false, "eswh"}} {
			p := skiffPlan(or.o, or.relabel, sh.it, sh.w, sh.blk, sh.params)
			if err := p.Validate(); err != nil {
				t.Fatalf("%s: %v", sh.name, err)
			}
			for gi, mg := range graphs {
				if or.graphs != "all" && !strings.ContainsRune(or.graphs, rune(mg.name[0])) || testing.Short() && gi%2 == 1 {
					continue
				}
				want := graph.Oracle(mg.g)
				got, m := skiffModelCount(t, p, mg.g, 3+gi%4, uint64(si*100+gi))
				if got != want {
					t.Errorf("%s (%s, relabel %v) on %s: %d triangles, want %d", sh.name, or.o, or.relabel, mg.name, got, want)
				}
				if m != nil && testing.Verbose() && mg.name == "hub5000" {
					t.Logf("%s %s on %s: %d tables in shared, %d in scratch, %d CAS lost", sh.name, or.o, mg.name, m.inShared, m.inGlobal, m.casLost)
				}
			}
		}
	}
}

// TestSkiffModelDatasets runs the preset's shape and the block organisations
// on a few shared datasets (skipped when they are absent).
func TestSkiffModelDatasets(t *testing.T) {
	dir, err := gputest.DatasetsDir()
	if err != nil {
		t.Skipf("no datasets: %v", err)
	}
	names := []string{"karate.mtx.gz", "jazz.txt.gz", "ca-GrQc.txt.gz", "as20000102.txt.gz", "p2p-Gnutella08.txt.gz"}
	if testing.Short() {
		names = names[:2]
	}
	preset, _ := ir.Preset("skiff")
	plans := []ir.Plan{preset}
	for _, sh := range skiffModelShapes()[2:6] {
		plans = append(plans, skiffPlan(ir.OrientDegree, true, sh.it, sh.w, sh.blk, sh.params))
	}
	for _, name := range names {
		path := filepath.Join(dir, name)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("no dataset %s", path)
		}
		g, _, err := graph.Open(path, graph.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := graph.Oracle(g)
		for pi, p := range plans {
			if got, _ := skiffModelCount(t, p, g, 8, uint64(pi)); got != want {
				t.Errorf("%s on %s: %d triangles, want %d", p.Prefix, name, got, want)
			}
		}
	}
}

// TestSkiffTrieAdversarial builds tries whose keys crowd into few buckets
// (all keys in bucket 0, or half of them), so that chains grow long and the
// warps of a block race to link nodes; every present key must be found
// once, no absent key found, and the pool must suffice.
func TestSkiffTrieAdversarial(t *testing.T) {
	const mul = 0x9E3779B1
	inv := uint32(1) // mul^-1 mod 2^32 by Newton's iteration
	for range 5 {
		inv *= 2 - mul*inv
	}
	if inv*mul != 1 {
		t.Fatal("no inverse")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var lost uint64
	for _, hop := range []int{4, 8, 16, 32} {
		for _, width := range []int{1, 8, 32, 128, 1024} {
			for _, d := range []uint64{1, 2, 31, 33, 200, 3000} {
				for _, crowd := range []float64{1, 0.5, 0} {
					lg, _, _ := gen.SkiffTableWords(hop, max(1, width/skiffWarp), d)
					set := map[uint32]bool{}
					for uint64(len(set)) < d {
						var x uint32
						if rng.Float64() < crowd {
							// x * mul lands in bucket 0: its top lg bits are zero.
							y := rng.Uint32() >> lg
							x = y * inv
						} else {
							x = rng.Uint32()
						}
						if x != 0xFFFFFFFF {
							set[x] = true
						}
					}
					keys := make([]uint32, 0, d)
					for x := range set {
						keys = append(keys, x)
					}
					slices.Sort(keys)
					m := &skiffModel{t: t, rng: rng, width: width, block: max(width, skiffWarp), team: min(width, skiffWarp),
						trie: true, hop: hop, groupWords: 0, capWords: 1 << 40, adj: keys}
					tr := m.buildTrie(0, d)
					lost += m.casLost
					probe := func(xs []uint32, valid []bool) uint64 {
						var c uint64
						team := min(width, skiffWarp)
						for i := 0; i < len(xs); i += team {
							k := make([]uint32, team)
							v := make([]bool, team)
							for l := range team {
								if i+l < len(xs) {
									k[l], v[l] = xs[i+l], valid[i+l]
								}
							}
							for _, x := range tr.probeTeam(team, k, v) {
								c += uint64(x)
							}
						}
						return c
					}
					all := make([]bool, len(keys))
					for i := range all {
						all[i] = true
					}
					if got := probe(keys, all); got != d {
						t.Errorf("hop %d width %d d %d crowd %g: found %d of %d keys", hop, width, d, crowd, got, d)
					}
					var absent []uint32
					for len(absent) < 100 {
						x := rng.Uint32()
						if rng.IntN(2) == 0 {
							x = (rng.Uint32() >> lg) * inv
						}
						if !set[x] {
							absent = append(absent, x)
						}
					}
					half := make([]bool, len(absent))
					for i := range half {
						half[i] = i%3 != 0
					}
					if got := probe(absent, half); got != 0 {
						t.Errorf("hop %d width %d d %d crowd %g: found %d absent keys", hop, width, d, crowd, got)
					}
				}
			}
		}
	}
	if lost == 0 {
		t.Error("no CAS was lost: the race between warps was not exercised")
	}
	t.Logf("%d CAS lost", lost)
}

// TestSkiffModelRandomPlans models the Skiff classes of random plans (any
// width, block, buckets, slots, hop, organisation and key range, beside
// other classes that take part of the items) per class against the
// definition.
func TestSkiffModelRandomPlans(t *testing.T) {
	graphs := skiffModelGraphs(t)
	rng := rand.New(rand.NewPCG(99, 1))
	plans := 0
	want := 30
	if testing.Short() {
		want = 8
	}
	for tries := 0; plans < want && tries < 100000; tries++ {
		p := ir.RandomPlan(rng)
		skiff := false
		for _, c := range p.Classes {
			skiff = skiff || !c.Skip && c.Intersection == ir.Hash && c.Iterator != ir.IterPivot &&
				(ir.Get(c.Strategy, ir.ParamScheme) == ir.SchemeHopscotch || c.Iterator == ir.IterVertex && ir.Get(c.Strategy, ir.ParamCTA) != ir.CTAFixed)
		}
		if !skiff {
			continue
		}
		plans++
		for gi, mg := range graphs {
			if !strings.Contains("er rmat10 hub5000 star", mg.name) {
				continue
			}
			res, _ := skiffModelClasses(t, p, mg.g, 2+gi%5, uint64(plans), true)
			for i, r := range res {
				if r[0] != r[1] {
					spec, _ := p.EncodeYAML()
					t.Errorf("%s on %s: class %d counts %d, want %d\n%s", p.Name(), mg.name, i, r[0], r[1], spec)
				}
			}
		}
	}
	t.Logf("%d plans", plans)
}
