package graph

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestAliasTableExact(t *testing.T) {
	// The probability the table gives j, prob[j]/n plus the (1-prob[i])/n
	// of every i aliased to j, must be w_j/S.
	rng := rand.New(rand.NewPCG(5, 6))
	for _, w := range [][]float64{
		{1}, {1, 1, 1}, {5, 0, 1, 2}, {1e-9, 1, 1e9},
		func() []float64 {
			w := make([]float64, 5000)
			for i := range w {
				w[i] = math.Pow(rng.Float64(), 4)
			}
			return w
		}(),
	} {
		sum := 0.0
		for _, x := range w {
			sum += x
		}
		want := slices.Clone(w)
		tab := newAliasTable(slices.Clone(w), sum)
		n := float64(len(w))
		got := make([]float64, len(w))
		for i, e := range tab {
			got[i] += tab.prob(i) / n
			got[e.alias] += (1 - tab.prob(i)) / n
		}
		for j := range w {
			if math.Abs(got[j]-want[j]/sum) > 1e-12 {
				t.Fatalf("weights %d: vertex %d drawn with probability %g, want %g", len(w), j, got[j], want[j]/sum)
			}
		}
	}
}

func TestChungLuMatchesDefinition(t *testing.T) {
	for _, p := range []ChungLu{
		{N: 2, Degree: 1, Gamma: 2}, {N: 50, Degree: 5, Gamma: 3, Seed: 1},
		{N: 20000, Degree: 20, Gamma: 2.1, MaxDegree: 19999, Seed: 2}, // several tasks
	} {
		tab, _ := p.table(context.Background())
		var want [][2]uint64
		for e := range p.records() {
			st := refStream(p.Seed, 0x165667b19e3779f9, e)
			var ends [2]uint64
			for k := range ends {
				j := boundedDraw(&st, p.N)
				ends[k] = uint64(tab[j].alias)
				if refUnit(&st) < tab.prob(int(j)) {
					ends[k] = j
				}
			}
			want = append(want, ends)
		}
		sameRecords(t, p, want)
	}
}

func TestChungLuOffset(t *testing.T) {
	// The bisection's offset must give vertex 0 the asked share of the
	// exact weight sum.
	for _, p := range []ChungLu{
		{N: 100000, Degree: 10, Gamma: 2.5},
		{N: 100000, Degree: 10, Gamma: 2, MaxDegree: 99999},
		{N: 100000, Degree: 10, Gamma: 3, MaxDegree: 10}, // all equal
		{N: 1000, Degree: 3, Gamma: 2.1, MaxDegree: 50},
		{N: 3, Degree: 1, Gamma: 2.7, MaxDegree: 2},
	} {
		alpha := 1 / (p.Gamma - 1)
		i0 := p.offset()
		sum := 0.0
		for i := range p.N {
			sum += math.Pow(float64(i)+i0, -alpha)
		}
		got := p.Degree * float64(p.N) * math.Pow(i0, -alpha) / sum
		if math.Abs(got-p.maxDegree()) > 1e-6*p.maxDegree() {
			t.Errorf("%+v: vertex 0 expects degree %g, want %g", p, got, p.maxDegree())
		}
	}
}

func TestChungLuDegrees(t *testing.T) {
	// Raw degrees (record ends, multiplicity kept) against the weights:
	// vertex 0 expects MaxDegree (5 sd of a Poisson), the vertices 100 to
	// 999 their summed weight to 2%, and the mean is 2*round(N*Degree/2)/N.
	for _, p := range []ChungLu{
		{N: 100000, Degree: 10, Gamma: 2.5, Seed: 1},
		{N: 100000, Degree: 10, Gamma: 2.1, MaxDegree: 5000, Seed: 2},
	} {
		el, err := p.EdgeList()
		if err != nil {
			t.Fatal(err)
		}
		deg := make([]float64, p.N)
		for _, r := range records(el) {
			deg[r[0]]++
			deg[r[1]]++
		}
		alpha, i0 := 1/(p.Gamma-1), p.offset()
		sum := 0.0
		for i := range p.N {
			sum += math.Pow(float64(i)+i0, -alpha)
		}
		expect := func(i int) float64 { return 2 * float64(el.Len()) * math.Pow(float64(i)+i0, -alpha) / sum }
		if d, e := deg[0], expect(0); math.Abs(d-e) > 5*math.Sqrt(e) {
			t.Errorf("%+v: vertex 0 has %v record ends, expects %.0f", p, d, e)
		}
		var got, want float64
		for i := 100; i < 1000; i++ {
			got, want = got+deg[i], want+expect(i)
		}
		if math.Abs(got-want) > 0.02*want {
			t.Errorf("%+v: vertices 100-999 have %v record ends, expect %.0f", p, got, want)
		}
	}
	// Gamma 2.1: a heavy tail, the largest degree far above the mean,
	// and few edges lost to merging.
	g := generated(t, ChungLu{N: 200000, Degree: 10, Gamma: 2.1, Seed: 3})
	mean := 2 * float64(g.Edges()) / 200000
	maxDeg := uint64(0)
	for v := range uint32(g.N()) {
		maxDeg = max(maxDeg, g.Degree(v))
	}
	if mean < 9.5 || float64(maxDeg) < 50*mean {
		t.Errorf("gamma 2.1: mean degree %.2f, largest %d; want about 10 and over 50 times more", mean, maxDeg)
	}
}
