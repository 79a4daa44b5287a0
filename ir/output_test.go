package ir

import (
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestOutputKeepsTotalNames(t *testing.T) {
	p, _ := Preset("polak")
	q := p.Clone()
	q.Output = OutputTotal
	if p.Name() != q.Name() {
		t.Errorf("output total renamed polak: %s vs %s", p.Name(), q.Name())
	}
	for _, o := range []Output{OutputVertex, OutputEdge} {
		r := p.Clone()
		r.Output = o
		if err := r.Validate(); err != nil {
			t.Fatalf("polak with output %s: %v", o, err)
		}
		if r.Name() == p.Name() {
			t.Errorf("output %s shares polak's name %s", o, p.Name())
		}
		if r.Canonical().Output != o {
			t.Errorf("canonical output %q, want %s", r.Canonical().Output, o)
		}
	}
}

// withoutLocal takes pr out of localPairs for the test: every pair tcgen
// generates counts the local outputs, so the refusals of a pair without
// them are tested on one made so.
func withoutLocal(t *testing.T, pr Pair) {
	t.Helper()
	old := localPairs
	t.Cleanup(func() { localPairs = old })
	localPairs = maps.Clone(old)
	delete(localPairs, pr)
}

func TestOutputRefusedPair(t *testing.T) {
	withoutLocal(t, Pair{IterVertex, BinarySearch})
	want := "pairs with it: vertex/merge, vertex/merge-path, vertex/hash, vertex/bitmap, edge/merge, edge/merge-path, edge/binary-search, edge/hash, edge/bitmap, edge/bitwise, edge-chunk/binary-search, wedge/binary-search, wedge/radix, pivot/hash"
	if got := "pairs with it: " + pairList(LocalPairs(OutputEdge)); got != want {
		t.Errorf("%s, want %s", got, want)
	}
	p, _ := Preset("hu") // vertex/binary-search
	p.Output = OutputEdge
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), `class "all": output edge is not generated for vertex/binary-search; `+want) {
		t.Fatalf("got %v", err)
	}
	p.Output = "corner"
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), `output "corner" unknown; known: total, vertex, edge`) {
		t.Fatalf("got %v", err)
	}
}

func TestOutputSpecRoundTrip(t *testing.T) {
	spec := "prefix: loc\noutput: edge\nclasses:\n  - select: {key: outdeg, lo: 0}\n    iterator: vertex\n    intersection: merge\n"
	p, err := Parse([]byte(spec), "loc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Output != OutputEdge || p.Validate() != nil {
		t.Fatalf("parsed output %q, %v", p.Output, p.Validate())
	}
}

// TestWithOutputGuard: a guarded plan keeps the lists that can count the
// output (a pivot list with its core) and gives the others (a vertex
// binary search, made a pair without local counts) its last such list.
func TestWithOutputGuard(t *testing.T) {
	withoutLocal(t, Pair{IterVertex, BinarySearch})
	p := Plan{Prefix: "g", Orientation: OrientDegree, Relabel: true, Guard: &Guard{Feature: FeatureEdges, Variants: []Variant{
		{Lo: 0, Hi: 100, Classes: []Class{{Select: Selector{Key: KeyOutDegree}, Strategy: Strategy{Iterator: IterVertex, Intersection: BinarySearch, Width: 32, Block: 256}}}},
		{Lo: 100, Hi: 200, Core: 1024, Classes: []Class{{Select: Selector{Key: KeyOutDegree}, Strategy: Strategy{Iterator: IterPivot, Intersection: Hash, Width: 32, Block: 256, Params: map[string]int64{"table": 512}}}}},
		{Lo: 200, Classes: []Class{{Select: Selector{Key: KeyOutDegree}, Strategy: Strategy{Iterator: IterEdge, Intersection: Merge}}}},
	}}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	q, err := p.WithOutput(OutputVertex)
	if err != nil {
		t.Fatal(err)
	}
	v0, v1 := q.Guard.Variants[0], q.Guard.Variants[1]
	if v0.Classes[0].Pair() != (Pair{IterEdge, Merge}) || q.Output != OutputVertex || q.Validate() != nil {
		t.Errorf("variant 0 is %+v, output %s: %v", v0, q.Output, q.Validate())
	}
	if v1.Core != 1024 || v1.Classes[0].Iterator != IterPivot {
		t.Errorf("variant 1 is %+v: want the pivot list and its core kept", v1)
	}
	if p.Guard.Variants[0].Classes[0].Intersection != BinarySearch {
		t.Error("WithOutput changed its receiver")
	}
	p.Guard.Variants = p.Guard.Variants[:1]
	p.Guard.Variants[0].Hi = 0
	if _, err := p.WithOutput(OutputEdge); err == nil || !strings.Contains(err.Error(), "no class list can count output edge") {
		t.Errorf("got %v", err)
	}
}

func TestRandomPlanDrawsOutputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 0))
	seen := map[Output]int{}
	for range 400 {
		p := RandomPlan(rng)
		seen[p.EffectiveOutput()]++
	}
	for _, o := range Outputs {
		if seen[o] == 0 {
			t.Errorf("400 random plans, none with output %s: %v", o, seen)
		}
	}
}
