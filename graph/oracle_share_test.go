package graph

import (
	"context"
	"fmt"
	"testing"
)

// TestCountTrianglesShare: the shares k of parts of the middle vertices
// count, between them, the oracle's total, on graphs with hubs, closed
// forms and fewer vertices than shares; a share outside [0, parts) is
// refused.
func TestCountTrianglesShare(t *testing.T) {
	gens := []Generator{DefaultRMAT(10), Star{Leaves: 60}, Wheel{Rim: 200}, Complete{N: 30}, Complete{N: 3}}
	for _, gg := range gens {
		g, _, err := Generate(gg)
		if err != nil {
			t.Fatal(err)
		}
		want := Oracle(g)
		for _, by := range []Orientation{ByDegree, ByID} {
			o := Orient(g, by, by == ByDegree)
			for parts := 1; parts <= 7; parts++ {
				var sum uint64
				for k := range parts {
					c, err := CountTrianglesShareContext(context.Background(), o, k, parts, nil)
					if err != nil {
						t.Fatal(err)
					}
					sum += c
				}
				if sum != want {
					t.Errorf("%T by %v in %d shares: %d triangles, want %d", gg, by, parts, sum, want)
				}
			}
		}
	}
	g, _, _ := Generate(Complete{N: 4})
	o := Orient(g, ByDegree, true)
	for _, c := range [][2]int{{2, 2}, {-1, 2}, {0, 0}} {
		_, err := CountTrianglesShareContext(context.Background(), o, c[0], c[1], nil)
		if want := fmt.Sprintf("graph: share %d of %d", c[0], c[1]); err == nil || err.Error() != want {
			t.Errorf("share %d of %d: error %v, want %q", c[0], c[1], err, want)
		}
	}
}
