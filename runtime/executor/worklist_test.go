package executor_test

import (
	"github.com/tcgen/tcgen/runtime/executor"
	"math/bits"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

func orientedRMAT(t *testing.T, scale int) *graph.Oriented {
	t.Helper()
	g, _, err := graph.Generate(graph.DefaultRMAT(scale))
	if err != nil {
		t.Fatal(err)
	}
	return graph.Orient(g, graph.ByDegree, true)
}

func cls(items string, key ir.Key, lo, hi int64) gen.Class {
	return gen.Class{Name: "x", Key: key, Lo: lo, Hi: hi, Items: items}
}

// naiveKeys returns, per item of the domain, its key.
func naiveKeys(o *graph.Oriented, items string, key ir.Key, model ir.WorkModel) []uint64 {
	var keys []uint64
	for u := range o.N() {
		du := o.Degree(uint32(u))
		if items == gen.ItemsVertices {
			keys = append(keys, du)
			continue
		}
		for e := o.Offsets[u]; e < o.Offsets[u+1]; e++ {
			if key == ir.KeyOutDegree {
				keys = append(keys, du)
				continue
			}
			dv := o.Degree(o.Adj[e])
			if model == ir.WorkMerge {
				keys = append(keys, du+dv)
			} else {
				keys = append(keys, min(du, dv)*uint64(bits.Len64(max(du, dv))))
			}
		}
	}
	return keys
}

func TestBuildWorkLists(t *testing.T) {
	o := orientedRMAT(t, 12)
	n, m := uint64(o.N()), o.Arcs()
	cases := []struct {
		name string
		v    gen.Variant
	}{
		{"vertex split", gen.Variant{Classes: []gen.Class{
			{Name: "skip", Key: ir.KeyOutDegree, Lo: 0, Hi: 2, Skip: true, Items: gen.ItemsVertices},
			cls(gen.ItemsVertices, ir.KeyOutDegree, 2, 16),
			cls(gen.ItemsVertices, ir.KeyOutDegree, 16, 0),
		}}},
		{"edge and vertex by outdeg", gen.Variant{Classes: []gen.Class{
			cls(gen.ItemsEdges, ir.KeyOutDegree, 0, 8),
			cls(gen.ItemsVertices, ir.KeyOutDegree, 8, 0),
		}}},
		{"work search", gen.Variant{Work: ir.WorkSearch, Classes: []gen.Class{
			cls(gen.ItemsEdges, ir.KeyWork, 0, 32),
			cls(gen.ItemsEdges, ir.KeyWork, 32, 256),
			cls(gen.ItemsEdges, ir.KeyWork, 256, 0),
		}}},
		{"work merge", gen.Variant{Work: ir.WorkMerge, Classes: []gen.Class{
			cls(gen.ItemsEdges, ir.KeyWork, 0, 10),
			cls(gen.ItemsEdges, ir.KeyWork, 10, 0),
		}}},
		{"all edges", gen.Variant{Classes: []gen.Class{cls(gen.ItemsEdges, ir.KeyOutDegree, 0, 0)}}},
		{"all vertices", gen.Variant{Classes: []gen.Class{cls(gen.ItemsVertices, ir.KeyOutDegree, 0, 0)}}},
	}
	for _, tc := range cases {
		lists, err := executor.BuildWorkLists(o, tc.v)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(lists) != len(tc.v.Classes) {
			t.Fatalf("%s: %d lists for %d classes", tc.name, len(lists), len(tc.v.Classes))
		}
		// Every item of each domain lands in the one class whose range holds
		// its key, in increasing order.
		seen := map[string]uint64{}
		for i, c := range tc.v.Classes {
			l := lists[i]
			if l.Slot != i || l.Items != c.Items || l.Skip != c.Skip {
				t.Errorf("%s: list %d is %+v", tc.name, i, l)
			}
			keys := naiveKeys(o, c.Items, c.Key, tc.v.Work)
			var want []uint64
			for id, k := range keys {
				if k >= uint64(c.Lo) && (c.Hi == 0 || k < uint64(c.Hi)) {
					want = append(want, uint64(id))
				}
			}
			seen[c.Items] += uint64(len(want))
			if l.Count != uint64(len(want)) {
				t.Errorf("%s: class %d has %d items, want %d", tc.name, i, l.Count, len(want))
			}
			domain := n
			if c.Items == gen.ItemsEdges {
				domain = m
			}
			if l.All != (l.Count == domain) {
				t.Errorf("%s: class %d: All = %v with %d of %d items", tc.name, i, l.All, l.Count, domain)
			}
			if l.Skip || l.All {
				if l.Vertices != nil || l.Edges != nil {
					t.Errorf("%s: class %d lists items it should not", tc.name, i)
				}
				continue
			}
			var got []uint64
			for _, v := range l.Vertices {
				got = append(got, uint64(v))
			}
			got = append(got, l.Edges...)
			if !slices.Equal(got, want) {
				t.Errorf("%s: class %d: list differs from the naive bucketing (%d vs %d items)", tc.name, i, len(got), len(want))
			}
			if c.Items == gen.ItemsVertices && l.Edges != nil || c.Items == gen.ItemsEdges && l.Vertices != nil {
				t.Errorf("%s: class %d: list of the wrong width", tc.name, i)
			}
		}
		// Each domain is tiled: vertex classes count vertices, edge classes
		// edges; with classes of both kinds over outdeg, the edges of the
		// vertex classes' vertices make up the rest.
		if tc.name == "edge and vertex by outdeg" {
			var edgesOfVertexClass uint64
			for _, u := range lists[1].Vertices {
				edgesOfVertexClass += o.Degree(u)
			}
			if lists[0].Count+edgesOfVertexClass != m {
				t.Errorf("%s: edges %d + %d do not tile %d", tc.name, lists[0].Count, edgesOfVertexClass, m)
			}
		} else if v, e := seen[gen.ItemsVertices], seen[gen.ItemsEdges]; v != 0 && v != n || e != 0 && e != m {
			t.Errorf("%s: %d vertices and %d edges listed, want %d and %d", tc.name, v, e, n, m)
		}
	}
}

// The lists do not depend on the number of workers.
func TestBuildWorkListsProcs(t *testing.T) {
	o := orientedRMAT(t, 14)
	v := gen.Variant{Work: ir.WorkSearch, Classes: []gen.Class{
		cls(gen.ItemsEdges, ir.KeyWork, 0, 40),
		cls(gen.ItemsEdges, ir.KeyWork, 40, 0),
	}}
	a, err := executor.BuildWorkLists(o, v)
	if err != nil {
		t.Fatal(err)
	}
	defer goruntime.GOMAXPROCS(goruntime.GOMAXPROCS(1))
	b, err := executor.BuildWorkLists(o, v)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if !slices.Equal(a[i].Edges, b[i].Edges) {
			t.Fatalf("class %d differs between runs", i)
		}
	}
}

func TestBuildWorkListsErrors(t *testing.T) {
	o := orientedRMAT(t, 8)
	for _, tc := range []struct {
		v    gen.Variant
		want string
	}{
		{gen.Variant{Classes: []gen.Class{cls(gen.ItemsVertices, ir.KeyOutDegree, 1, 0)}}, "matches no class"},
		{gen.Variant{Classes: []gen.Class{cls(gen.ItemsVertices, ir.KeyOutDegree, 0, 4), cls(gen.ItemsEdges, ir.KeyWork, 4, 0)}}, "one key"},
		{gen.Variant{Work: ir.WorkSearch, Classes: []gen.Class{cls(gen.ItemsVertices, ir.KeyWork, 0, 0)}}, "edge items"},
		{gen.Variant{}, "no classes"},
	} {
		_, err := executor.BuildWorkLists(o, tc.v)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error with %q", tc.v, err, tc.want)
		}
	}
}

func TestWork(t *testing.T) {
	for _, tc := range []struct {
		model  ir.WorkModel
		du, dv uint64
		want   uint64
	}{
		{ir.WorkMerge, 3, 4, 7},
		{ir.WorkSearch, 3, 4, 9},   // 3 * ceil(log2 5) = 3 * 3
		{ir.WorkSearch, 4, 3, 9},   // symmetric
		{ir.WorkSearch, 5, 7, 15},  // 5 * ceil(log2 8) = 5 * 3
		{ir.WorkSearch, 5, 8, 20},  // 5 * ceil(log2 9) = 5 * 4
		{ir.WorkSearch, 0, 100, 0}, // an empty list costs nothing
		{ir.WorkSearch, 1, 1, 1},
	} {
		if got := executor.Work(tc.model, tc.du, tc.dv); got != tc.want {
			t.Errorf("Work(%s, %d, %d) = %d, want %d", tc.model, tc.du, tc.dv, got, tc.want)
		}
	}
}
