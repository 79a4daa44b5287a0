package executor

import (
	"cmp"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// TestTargetItems: the edges grouped by target in increasing v, CSR order
// within one v, each with the length of N+(u) after v; the edges last in
// N+(u) left out; a subset list keeps only its edges; bands of positions
// first, each band's items grouped by target.
func TestTargetItems(t *testing.T) {
	// N+(0) = 1 2 3, N+(1) = 2 3, N+(2) = 3, N+(3) = {}: edges 0..5.
	o := &graph.Oriented{CSR: graph.CSR{Offsets: []uint64{0, 3, 5, 6, 6}, Adj: []uint32{1, 2, 3, 2, 3, 3}}}
	item := func(e, a uint64) uint64 { return e<<gen.TargetLenBits | a }
	all := WorkList{Items: gen.ItemsEdges, Count: 6, All: true}
	if err := targetItems(o, &all, 0, 0); err != nil {
		t.Fatal(err)
	}
	// v = 1: edge 0 (2 after it); v = 2: edges 1 (1 after), 3 (1 after);
	// edges 2, 4, 5 are last in their lists.
	want := []uint64{item(0, 2), item(1, 1), item(3, 1)}
	if all.All || all.Count != 3 || !slices.Equal(all.Edges, want) {
		t.Errorf("all edges: %+v, want items %x", all, want)
	}
	sub := WorkList{Items: gen.ItemsEdges, Count: 3, Edges: []uint64{1, 2, 3}}
	if err := targetItems(o, &sub, 0, 0); err != nil {
		t.Fatal(err)
	}
	if want := []uint64{item(1, 1), item(3, 1)}; sub.Count != 2 || !slices.Equal(sub.Edges, want) {
		t.Errorf("edges 1-3: %+v, want items %x", sub, want)
	}
	// N+(0) = 3 4, N+(1) = 2 4, N+(2) = 3 4, N+(3) = 4: by v, edges 2 (v 2),
	// 0 and 4 (v 3); in bands of 2 positions edge 0's band comes first, in
	// bands of 4 edges 0-3 (by v: 2, 0) before edge 4; bands of 8 hold all.
	o2 := &graph.Oriented{CSR: graph.CSR{Offsets: []uint64{0, 2, 4, 6, 7, 7}, Adj: []uint32{3, 4, 2, 4, 3, 4, 4}}}
	for _, c := range []struct {
		band int
		want []uint64
	}{
		{0, []uint64{item(2, 1), item(0, 1), item(4, 1)}},
		{1, []uint64{item(0, 1), item(2, 1), item(4, 1)}},
		{2, []uint64{item(2, 1), item(0, 1), item(4, 1)}},
		{3, []uint64{item(2, 1), item(0, 1), item(4, 1)}},
	} {
		l := WorkList{Items: gen.ItemsEdges, Count: 7, All: true}
		if err := targetItems(o2, &l, 0, c.band); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(l.Edges, c.want) {
			t.Errorf("band %d: items %x, want %x", c.band, l.Edges, c.want)
		}
	}
	// An out-degree of 2^24 does not fit an item's length.
	n := 1 << gen.TargetLenBits
	big := &graph.Oriented{CSR: graph.CSR{Offsets: []uint64{0, uint64(n), uint64(n)}, Adj: make([]uint32, n)}}
	for i := range big.Adj {
		big.Adj[i] = 1
	}
	l := WorkList{Items: gen.ItemsEdges, Count: uint64(n), All: true}
	if err := targetItems(big, &l, 0, 0); err == nil || !strings.Contains(err.Error(), "out-degrees below 2^24") {
		t.Errorf("out-degree 2^24: %v", err)
	}
}

// TestSortByTarget: on a graph of more than 2^16 vertices (buckets of two
// ids) and several parts, the parallel sort gives what a stable sort by v
// of the edges in CSR order gives, for all edges and for every third.
func TestSortByTarget(t *testing.T) {
	g, _, err := graph.Generate(graph.ErdosRenyi{N: 100000, M: 400000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	o := graph.Orient(g, graph.ByDegree, true)
	off, adj := o.Offsets, o.Adj
	var every3 []uint64
	for e := uint64(0); e < uint64(len(adj)); e += 3 {
		every3 = append(every3, e)
	}
	for _, l := range []WorkList{
		{Items: gen.ItemsEdges, Count: uint64(len(adj)), All: true},
		{Items: gen.ItemsEdges, Count: uint64(len(every3)), Edges: every3},
	} {
		var want []uint64
		for u := range o.N() {
			for e := off[u]; e+1 < off[u+1]; e++ {
				if l.All || e%3 == 0 {
					want = append(want, e<<gen.TargetLenBits|(off[u+1]-e-1))
				}
			}
		}
		slices.SortStableFunc(want, func(a, b uint64) int {
			return cmp.Compare(adj[a>>gen.TargetLenBits], adj[b>>gen.TargetLenBits])
		})
		got, ok := sortByTarget(o, &l)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("all %v: %d items, want %d (equal: %v)", l.All, len(got), len(want), slices.Equal(got, want))
		}
	}
}

// TestTargetRefusals: a target class reads the lists on the host (so a
// deferred check comes first) and is no class a count in partitions
// launches, whose lists hold edge ids.
func TestTargetRefusals(t *testing.T) {
	c := gen.Class{Name: "all", Key: ir.KeyOutDegree, Kind: gen.KindSingle, Items: gen.ItemsEdges, Iterator: ir.IterEdge, Intersection: ir.Merge}
	if hostReadsAdj(gen.Variant{Classes: []gen.Class{c}}) {
		t.Errorf("an edge merge by source reads the lists on the host")
	}
	if _, _, err := partitionClasses(&gen.Manifest{IDOrdered: true, Variants: []gen.Variant{{Classes: []gen.Class{c}}}}, 0); err != nil {
		t.Errorf("partitions refuse an edge merge by source: %v", err)
	}
	c.Target = true
	if !hostReadsAdj(gen.Variant{Classes: []gen.Class{c}}) {
		t.Errorf("target items are built without reading the lists on the host")
	}
	if _, _, err := partitionClasses(&gen.Manifest{IDOrdered: true, Variants: []gen.Variant{{Classes: []gen.Class{c}}}}, 0); err == nil || !strings.Contains(err.Error(), "groups them by target") {
		t.Errorf("partitions with target items: %v", err)
	}
}
