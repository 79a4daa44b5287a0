package graph

import (
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// refStream is a draw stream of the newer generators, written out from
// their definitions: the RMAT placement with the seed XORed with a key.
func refStream(seed, key, i uint64) uint64 {
	return (seed^key)*0x100000001B3 + i*0xD1B54A32D192ED03
}

// refUnit is the definitions' uniform draw: the top 53 bits times 2^-53.
func refUnit(st *uint64) float64 { return float64(splitmix64(st)>>11) / (1 << 53) }

// edgeSet returns the distinct non-loop pairs (min, max) of the records.
func edgeSet(recs [][2]uint64) map[[2]uint64]bool {
	set := map[[2]uint64]bool{}
	for _, r := range recs {
		if r[0] != r[1] {
			set[[2]uint64{min(r[0], r[1]), max(r[0], r[1])}] = true
		}
	}
	return set
}

// setTriangles counts the triangles of an edge set the plain way: for
// each edge u < v, the w > v adjacent to both.
func setTriangles(set map[[2]uint64]bool) uint64 {
	adj := map[uint64][]uint64{}
	for e := range set {
		adj[e[0]] = append(adj[e[0]], e[1])
	}
	var t uint64
	for e := range set {
		for _, w := range adj[e[0]] {
			if w > e[1] && set[[2]uint64{e[1], w}] {
				t++
			}
		}
	}
	return t
}

// checkAgainstBrute generates gen's graph and checks its edge count and the
// oracle's triangles against the records counted by brute force.
func checkAgainstBrute(t *testing.T, gen Generator) (edges, triangles uint64) {
	t.Helper()
	el, err := gen.EdgeList()
	if err != nil {
		t.Fatalf("%#v: %v", gen, err)
	}
	set := edgeSet(records(el))
	want := setTriangles(set)
	g := generated(t, gen)
	if g.Edges() != uint64(len(set)) {
		t.Errorf("%#v: %d edges, the records have %d distinct", gen, g.Edges(), len(set))
	}
	if got := Oracle(g); got != want {
		t.Errorf("%#v: oracle counts %d triangles, brute force %d", gen, got, want)
	}
	return uint64(len(set)), want
}

// newGenerators is one mid-sized instance of each new family, large enough
// to span several parallel tasks.
func newGenerators(seed uint64) []Generator {
	return []Generator{
		BarabasiAlbert{N: 40000, M: 5, Seed: seed},
		WattsStrogatz{N: 30000, K: 8, P: 0.2, Seed: seed},
		RandomGeometric{N: 50000, Dim: 2, Degree: 8, Seed: seed},
		RandomGeometric{N: 50000, Dim: 3, Radius: 0.03, Torus: true, Shuffle: true, Seed: seed},
		ChungLu{N: 30000, Degree: 10, Gamma: 2.1, Seed: seed},
		SBM{N: 30000, Blocks: 7, DegreeIn: 9, DegreeOut: 3, Seed: seed},
		SBM{N: 100000, Sizes: []uint64{50000, 30000, 20000}, DegreeIn: 5, DegreeOut: 0.5, Seed: seed},
		Road{Rows: 300, Cols: 400, Diagonals: true, Delete: 0.3, Links: 70000, Seed: seed},
	}
}

func TestNewGeneratorsDeterministic(t *testing.T) {
	for i, gen := range newGenerators(7) {
		var one, four *EdgeList
		var err1, err4 error
		withProcs(1, func() { one, err1 = gen.EdgeList() })
		withProcs(4, func() { four, err4 = gen.EdgeList() })
		if err1 != nil || err4 != nil {
			t.Fatalf("%T: %v, %v", gen, err1, err4)
		}
		a, b := records(one), records(four)
		if len(a) < 100000 {
			t.Errorf("%T: only %d records, too few to span several tasks", gen, len(a))
		}
		if !slices.Equal(a, b) {
			t.Errorf("%T: GOMAXPROCS 1 and 4 gave different records", gen)
		}
		other, err := newGenerators(8)[i].EdgeList()
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(a, records(other)) {
			t.Errorf("%T: seeds 7 and 8 gave the same records", gen)
		}
	}
}

func TestNewGeneratorsOracle(t *testing.T) {
	for _, gen := range []Generator{
		BarabasiAlbert{N: 300, M: 4, Seed: 1},
		BarabasiAlbert{N: 50, M: 12, Seed: 2},
		WattsStrogatz{N: 200, K: 10, P: 0.3, Seed: 3},
		RandomGeometric{N: 600, Dim: 2, Degree: 12, Seed: 4},
		RandomGeometric{N: 600, Dim: 3, Radius: 0.2, Torus: true, Shuffle: true, Seed: 5},
		ChungLu{N: 400, Degree: 12, Gamma: 2.2, MaxDegree: 150, Seed: 6},
		SBM{N: 300, Blocks: 3, DegreeIn: 20, DegreeOut: 4, Seed: 7},
		Road{Rows: 20, Cols: 30, Diagonals: true, Delete: 0.2, Links: 40, Seed: 8},
	} {
		if _, tri := checkAgainstBrute(t, gen); tri == 0 {
			t.Errorf("%#v: no triangle; pick an instance that has some", gen)
		}
	}
}

func TestNewGeneratorsValidate(t *testing.T) {
	cases := []struct {
		gen Generator
		msg string
	}{
		{BarabasiAlbert{N: 10}, "barabasi-albert: m (edges per new vertex) must be at least 1"},
		{BarabasiAlbert{N: 1 << 32, M: 1}, "barabasi-albert: 4294967296 vertices exceed the 4294967295 a graph can have"},
		{BarabasiAlbert{N: 1<<32 - 1, M: 1 << 32}, "barabasi-albert: 4294967295 vertices times m = 4294967296 overflows the edge count"},
		{WattsStrogatz{N: 10, K: 3}, "watts-strogatz: ring degree k = 3 must be even and at least 2"},
		{WattsStrogatz{N: 10, K: 0}, "watts-strogatz: ring degree k = 0 must be even and at least 2"},
		{WattsStrogatz{N: 10, K: 10}, "watts-strogatz: ring degree k = 10 needs more than 10 vertices"},
		{WattsStrogatz{N: 10, K: 4, P: 1.5}, "watts-strogatz: rewiring probability p = 1.5 must lie in [0, 1]"},
		{WattsStrogatz{N: 10, K: 4, P: math.NaN()}, "watts-strogatz: rewiring probability p = NaN must lie in [0, 1]"},
		{WattsStrogatz{N: 1 << 33, K: 4}, "watts-strogatz: 8589934592 vertices exceed the 4294967295 a graph can have"},
		{RandomGeometric{N: 10, Dim: 4, Radius: 0.1}, "rgg: dimension 4 must be 2 or 3"},
		{RandomGeometric{N: 10, Dim: 2}, "rgg: give exactly one of radius and degree, a positive number"},
		{RandomGeometric{N: 10, Dim: 2, Radius: 0.1, Degree: 3}, "rgg: give exactly one of radius and degree, a positive number"},
		{RandomGeometric{N: 10, Dim: 2, Radius: 0.6, Torus: true}, "rgg: radius 0.6 must lie in (0, 0.5]"},
		{RandomGeometric{N: 10, Dim: 3, Radius: -1}, "rgg: radius -1 must lie in (0, 1]"},
		{RandomGeometric{N: 11, Dim: 2, Degree: 20, Torus: true}, "rgg: mean degree 20 must lie in (0, 7.85398] for 11 vertices"},
		{RandomGeometric{N: 1, Dim: 2, Degree: 1}, "rgg: a mean degree needs at least 2 vertices, not 1"},
		{ChungLu{N: 100, Degree: 5, Gamma: 1.9}, "chung-lu: exponent gamma = 1.9 must lie in [2, 3]"},
		{ChungLu{N: 100, Degree: 5, Gamma: math.NaN()}, "chung-lu: exponent gamma = NaN must lie in [2, 3]"},
		{ChungLu{N: 100, Degree: 100, Gamma: 2.5}, "chung-lu: mean degree 100 must lie in (0, 99]"},
		{ChungLu{N: 100, Degree: 5, Gamma: 2.5, MaxDegree: 4}, "chung-lu: max degree 4 must lie in [5, 99] (the mean degree to n-1)"},
		{ChungLu{N: 1, Degree: 5, Gamma: 2.5}, "chung-lu: 1 vertices; need at least 2"},
		{SBM{N: 10, Blocks: 11}, "sbm: 11 blocks for 10 vertices; need 1 to 10"},
		{SBM{N: 10, Sizes: []uint64{5, 4}}, "sbm: block sizes sum to 9, not the 10 vertices"},
		{SBM{N: 10, Sizes: []uint64{5, 6}}, "sbm: block sizes exceed the 10 vertices"},
		{SBM{N: 10, Sizes: []uint64{1, math.MaxUint64}}, "sbm: block sizes exceed the 10 vertices"},
		{SBM{N: 10, Sizes: []uint64{10, 0}}, "sbm: block 1 is empty"},
		{SBM{N: 10, Blocks: 3, Sizes: []uint64{5, 5}}, "sbm: 3 blocks but 2 sizes"},
		{SBM{N: 10, Blocks: 2, DegreeIn: 5}, "sbm: degree-in 5 exceeds 4, every pair inside blocks"},
		{SBM{N: 10, Blocks: 1, DegreeOut: 1}, "sbm: degree-out 1 but there are no pairs across blocks"},
		{SBM{N: 10, Blocks: 2, DegreeOut: -1}, "sbm: degree-out -1 must be a non-negative number"},
		{Road{Rows: 0, Cols: 5}, "road: rows and cols must be positive"},
		{Road{Rows: 1 << 20, Cols: 1 << 20}, "road: 1048576 x 1048576 vertices exceed the 4294967295 a graph can have"},
		{Road{Rows: 3, Cols: 3, Delete: 2}, "road: delete fraction 2 must lie in [0, 1]"},
		{Road{Rows: 1, Cols: 1, Links: 1}, "road: links need at least 2 vertices"},
	}
	for _, c := range cases {
		v, ok := c.gen.(interface{ Validate() error })
		if !ok {
			t.Fatalf("%T has no Validate", c.gen)
		}
		err := v.Validate()
		if err == nil || err.Error() != c.msg {
			t.Errorf("%#v: Validate = %v, want %q", c.gen, err, c.msg)
			continue
		}
		if _, err2 := c.gen.EdgeList(); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("%#v: EdgeList error %v, Validate's %v", c.gen, err2, err)
		}
		if s, ok := c.gen.(Sized); !ok || s.EstimateBytes() == 0 {
			t.Errorf("%#v: no size estimate for refused parameters", c.gen)
		}
	}
}

// TestEstimateBytes checks each Sized generator's estimate against the
// peak heap of Generate, sampled every half millisecond with the collector
// made eager (GOGC 10) so that the heap follows the live bytes: the
// estimate must cover the peak and not exceed it fourfold. One more P than
// cores keeps the sampler running beside the generator's workers.
func TestEstimateBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("measures a few million-edge graphs")
	}
	old := debug.SetGCPercent(10)
	defer debug.SetGCPercent(old)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.NumCPU() + 1))
	for _, gen := range []Generator{
		BarabasiAlbert{N: 250000, M: 8, Seed: 1},
		WattsStrogatz{N: 200000, K: 20, P: 0.1, Seed: 1},
		RandomGeometric{N: 400000, Dim: 3, Degree: 10, Shuffle: true, Seed: 1},
		ChungLu{N: 250000, Degree: 16, Gamma: 2.1, Seed: 1},
		SBM{N: 250000, Blocks: 50, DegreeIn: 12, DegreeOut: 4, Seed: 1},
		Road{Rows: 1000, Cols: 1000, Diagonals: true, Delete: 0.2, Links: 1000, Seed: 1},
		DefaultRMAT(17),
		ErdosRenyi{N: 1 << 18, M: 1 << 21, Seed: 1},
		Grid{Rows: 1000, Cols: 1000, Diagonals: true},
	} {
		est := gen.(Sized).EstimateBytes()
		peak := peakHeap(func() {
			if _, _, err := Generate(gen); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%T: estimate %d MB, measured peak %d MB", gen, est>>20, peak>>20)
		if est < peak*9/10 || est > 4*peak {
			t.Errorf("%T: estimate %d MB, measured peak %d MB", gen, est>>20, peak>>20)
		}
	}
}

// peakHeap runs f and returns the largest heap in use seen while it ran,
// above the heap before.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base && m.HeapAlloc-base > peak.Load() {
				peak.Store(m.HeapAlloc - base)
			}
			select {
			case <-done:
				return
			case <-time.After(500 * time.Microsecond):
			}
		}
	}()
	f()
	close(done)
	<-stopped
	return peak.Load()
}

func TestEstimateBytesSaturates(t *testing.T) {
	for _, s := range []Sized{
		Complete{N: 1 << 40}, CompleteBipartite{A: 1 << 40, B: 1 << 40}, Star{Leaves: math.MaxUint64},
		BarabasiAlbert{N: 1 << 32, M: 1 << 40}, WattsStrogatz{N: math.MaxUint64, K: 1 << 62},
		Road{Rows: 1 << 16, Cols: 1 << 16, Links: 1 << 58},
	} {
		if got := s.EstimateBytes(); got < 1<<62 {
			t.Errorf("%#v: estimate %d bytes; a huge graph must give a huge estimate", s, got)
		}
	}
}

// FuzzGenerators builds each new generator from arbitrary parameters:
// Validate and EdgeList must agree, and a graph small enough to make must
// have records within its vertex range, no loops where the family has
// none, and no more records than its estimate allows.
func FuzzGenerators(f *testing.F) {
	f.Add(uint8(0), uint64(100), uint64(3), uint64(5), 0.5, 2.5, false)
	f.Add(uint8(1), uint64(100), uint64(4), uint64(5), 0.2, 0.0, false)
	f.Add(uint8(2), uint64(300), uint64(2), uint64(5), 0.1, 0.0, true)
	f.Add(uint8(3), uint64(300), uint64(3), uint64(5), 0.0, 6.0, false)
	f.Add(uint8(4), uint64(300), uint64(3), uint64(5), 4.0, 2.2, false)
	f.Add(uint8(5), uint64(300), uint64(3), uint64(5), 4.0, 1.0, false)
	f.Add(uint8(6), uint64(300), uint64(3), uint64(5), 4.0, 1.0, true)
	f.Add(uint8(7), uint64(20), uint64(30), uint64(5), 0.3, 0.0, true)
	f.Fuzz(func(t *testing.T, kind uint8, a, b, c uint64, x, y float64, flag bool) {
		gen, labels, loops := fuzzGenerator(kind, a, b, c, x, y, flag)
		verr := gen.(interface{ Validate() error }).Validate()
		est := gen.(Sized).EstimateBytes()
		if verr == nil && est > 8<<20 {
			return // too big to make here; Validate's limits are fuzzed all the same
		}
		el, err := gen.EdgeList()
		if (err == nil) != (verr == nil) || err != nil && err.Error() != verr.Error() {
			t.Fatalf("%#v: Validate %v, EdgeList %v", gen, verr, err)
		}
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("%#v: error of several lines: %q", gen, err)
			}
			return
		}
		if el.Len()*recordBytes > est {
			t.Fatalf("%#v: %d records, estimate %d bytes", gen, el.Len(), est)
		}
		for _, r := range records(el) {
			if r[0] >= labels || r[1] >= labels || !loops && r[0] == r[1] {
				t.Fatalf("%#v: record %v (labels below %d)", gen, r, labels)
			}
		}
	})
}

// fuzzGenerator makes generator kind%8 of the fuzzed values, returning it,
// its label bound and whether it may emit loops.
func fuzzGenerator(kind uint8, a, b, c uint64, x, y float64, flag bool) (Generator, uint64, bool) {
	switch kind % 8 {
	case 0:
		return BarabasiAlbert{N: a, M: b, Seed: c}, a, false
	case 1:
		return WattsStrogatz{N: a, K: b, P: x, Seed: c}, a, false
	case 2:
		return RandomGeometric{N: a, Dim: int(b), Radius: x, Torus: flag, Shuffle: !flag, Seed: c}, a, false
	case 3:
		return RandomGeometric{N: a, Dim: int(b), Degree: y, Torus: flag, Seed: c}, a, false
	case 4:
		return ChungLu{N: a, Degree: x, Gamma: y, MaxDegree: float64(b), Seed: c}, a, true
	case 5:
		return SBM{N: a, Blocks: b, DegreeIn: x, DegreeOut: y, Seed: c}, a, false
	case 6:
		sizes := []uint64{b, c % 1000, a / 3}
		return SBM{N: a, Sizes: sizes, DegreeIn: x, DegreeOut: y, Seed: c}, a, false
	default:
		return Road{Rows: a, Cols: b, Diagonals: flag, Delete: x, Links: c % 5000, Seed: c}, satMul(a, b), false
	}
}

// tenMillion is one instance of each new family with about 10 M edges,
// for BenchmarkGenerators.
var tenMillion = []struct {
	name string
	gen  Generator
}{
	{"ba", BarabasiAlbert{N: 1250000, M: 8, Seed: 1}},
	{"ws", WattsStrogatz{N: 1000000, K: 20, P: 0.1, Seed: 1}},
	{"rgg2", RandomGeometric{N: 2000000, Dim: 2, Degree: 10, Seed: 1}},
	{"rgg3", RandomGeometric{N: 2000000, Dim: 3, Degree: 10, Seed: 1}},
	{"rgg3-torus-shuffle", RandomGeometric{N: 2000000, Dim: 3, Degree: 10, Torus: true, Shuffle: true, Seed: 1}},
	{"chung-lu", ChungLu{N: 1250000, Degree: 16, Gamma: 2.1, Seed: 1}},
	{"sbm", SBM{N: 1250000, Blocks: 100, DegreeIn: 12, DegreeOut: 4, Seed: 1}},
	{"road", Road{Rows: 2000, Cols: 2500, Diagonals: true, Delete: 0.2, Links: 100000, Seed: 1}},
}

// BenchmarkGenerators times the records of about 10 M edges per family
// (edgelist) and the whole graph (build: the records and Build). Besides
// the wall time it reports the process's CPU seconds per graph, which a
// machine shared with other work disturbs less.
func BenchmarkGenerators(b *testing.B) {
	for _, c := range tenMillion {
		b.Run(c.name+"/edgelist", func(b *testing.B) {
			cpu := cpuSeconds()
			for b.Loop() {
				if _, err := c.gen.EdgeList(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
		})
		b.Run(c.name+"/build", func(b *testing.B) {
			cpu := cpuSeconds()
			for b.Loop() {
				if _, _, err := Generate(c.gen); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op")
		})
	}
}
