package graph

import (
	"math"
	"testing"
)

// refWS is the Watts-Strogatz definition transcribed serially.
func refWS(p WattsStrogatz) [][2]uint64 {
	var out [][2]uint64
	e := uint64(0)
	for v := range p.N {
		for j := uint64(1); j <= p.K/2; j++ {
			st := refStream(p.Seed, 0x121fd2155c472f97, e)
			e++
			w := (v + j) % p.N
			if refUnit(&st) < p.P {
				w = boundedDraw(&st, p.N-1)
				if w >= v {
					w++
				}
			}
			out = append(out, [2]uint64{v, w})
		}
	}
	return out
}

func TestWSMatchesDefinition(t *testing.T) {
	for _, p := range []WattsStrogatz{
		{N: 3, K: 2, P: 0.5}, {N: 10, K: 4, P: 0, Seed: 1}, {N: 11, K: 10, P: 1, Seed: 2},
		{N: 1000, K: 6, P: 0.3, Seed: 3}, {N: 30001, K: 10, P: 0.05, Seed: 4},
	} {
		want := refWS(p)
		sameRecords(t, p, want)
	}
}

func TestWSLatticeAndRewiring(t *testing.T) {
	// P = 0: the ring lattice, N*K/2 edges and N*C(K/2, 2) triangles
	// (no triangle wraps around when N > 3K/2).
	for _, p := range []WattsStrogatz{{N: 31, K: 20}, {N: 500, K: 8}, {N: 1000, K: 2}} {
		edges, tri := checkAgainstBrute(t, p)
		h := p.K / 2
		if edges != p.N*h || tri != p.N*h*(h-1)/2 {
			t.Errorf("%+v: %d edges, %d triangles; want %d and %d", p, edges, tri, p.N*h, p.N*h*(h-1)/2)
		}
	}
	// P = 0.1: a tenth of the far ends move (binomial, 5 sd), and a
	// lattice triangle survives when none of its three edges moved,
	// (1-P)^3 of them, new triangles being rare (K^2/N of a rewired edge's).
	p := WattsStrogatz{N: 100000, K: 10, P: 0.1, Seed: 5}
	el, err := p.EdgeList()
	if err != nil {
		t.Fatal(err)
	}
	moved := 0
	for i, r := range records(el) {
		if r[1] != (r[0]+uint64(i)%5+1)%p.N {
			moved++
		}
	}
	m := float64(p.N * p.K / 2)
	if sd := math.Sqrt(m * 0.1 * 0.9); math.Abs(float64(moved)-0.1*m) > 5*sd {
		t.Errorf("%d of %.0f edges rewired, want %.0f +- %.0f", moved, m, 0.1*m, 5*sd)
	}
	tri := float64(Oracle(generated(t, p)))
	want := float64(p.N) * 10 * math.Pow(0.9, 3)
	if math.Abs(tri-want) > 0.02*want {
		t.Errorf("%.0f triangles, want about %.0f", tri, want)
	}
}
