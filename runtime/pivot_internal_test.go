package runtime

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// TestPivotWedges: the wedge sum over many chunks equals the plain sum, and
// a tail too long to pack names the first such vertex.
func TestPivotWedges(t *testing.T) {
	n := 3*workChunk + 17
	off := make([]uint64, n+1)
	var want uint64
	for u := range n {
		d := uint64(u*7919) % 50
		off[u+1] = off[u] + d
		want += d * (d - 1) / 2
	}
	if got, why := pivotWedges(off); why != "" || got != want {
		t.Fatalf("pivotWedges = %d, %q; want %d", got, why, want)
	}
	for _, u := range []int{2*workChunk + 5, workChunk + 3} { // the second is the first
		for v := u + 1; v <= n; v++ {
			off[v] += 1 << pivotLenBits
		}
	}
	_, why := pivotWedges(off)
	if !strings.Contains(why, fmt.Sprintf("vertex %d has out-degree", workChunk+3)) {
		t.Fatalf("pivotWedges: %q; want vertex %d named", why, workChunk+3)
	}
}

// TestPivotLists: for each pivot spec of examples/, the one-pass lists and
// wedges equal BuildWorkLists' and pivotWedges'.
func TestPivotLists(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(13))
	if err != nil {
		t.Fatal(err)
	}
	o := graph.Orient(g, graph.ByDegree, true)
	for _, f := range []string{"pivot.yaml", "pivot-one.yaml"} {
		spec, err := examples.FS.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ir.Parse(spec, f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := gen.Generate(p, gen.DefaultTarget())
		if err != nil {
			t.Fatal(err)
		}
		v := out.Manifest.Variants[0]
		if !onlyPivots(v) {
			t.Fatalf("%s: not only pivot classes", f)
		}
		lists, w, why := pivotLists(o, v)
		want, err := BuildWorkLists(o, v)
		ww, why2 := pivotWedges(o.Offsets)
		if why != "" || err != nil || why2 != "" {
			t.Fatalf("%s: %q, %v, %q", f, why, err, why2)
		}
		if w != ww || !reflect.DeepEqual(lists, want) {
			t.Fatalf("%s: wedges %d, lists %+v; want %d, %+v", f, w, lists, ww, want)
		}
	}
}
