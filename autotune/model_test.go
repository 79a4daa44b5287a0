package autotune

import (
	"fmt"
	"math"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/store"
)

// modelRows: small graphs (1e4..1e5 edges) where plan "merge" wins and large
// ones (1e7..1e8) where "pivot" wins; "hash" is second everywhere, so it is
// the best single fixed plan (by geometric mean) but never the best.
func modelRows() []store.Row {
	var rows []store.Row
	for i := range 10 {
		small := i < 5
		e := math.Pow(10, 4+float64(i%5)/4)
		if !small {
			e = math.Pow(10, 7+float64(i%5)/4)
		}
		f := graph.Features{Vertices: uint64(e / 8), Edges: uint64(e), DegreeMax: uint64(math.Sqrt(e)), DegreeMean: 16,
			DegreeStddev: math.Sqrt(e) / 10, WedgesByDegree: uint64(e * 20), MinWorkByDegree: uint64(e * 5), OutDegreeMaxByDegree: uint64(math.Sqrt(e) / 4)}
		base := e / 1e6
		times := map[string]float64{"merge": base, "hash": base * 1.3, "pivot": base * 3}
		if !small {
			times = map[string]float64{"merge": base * 4, "hash": base * 1.3, "pivot": base}
		}
		for p, t := range times {
			rows = append(rows, store.Row{Graph: fmt.Sprintf("g%d", i), GraphName: fmt.Sprintf("graph%d", i), Features: f,
				Plan: p, Spec: `{"prefix":"` + p + `"}`, Status: store.StatusOK, MedianMs: t})
		}
		// A failure is never a candidate.
		rows = append(rows, store.Row{Graph: fmt.Sprintf("g%d", i), GraphName: fmt.Sprintf("graph%d", i), Features: f,
			Plan: "broken", Status: store.StatusWrong})
	}
	return rows
}

func TestModelPredicts(t *testing.T) {
	m := Train(modelRows(), 3)
	if m.Graphs() != 10 {
		t.Fatalf("%d graphs", m.Graphs())
	}
	small := graph.Features{Vertices: 2000, Edges: 20000, DegreeMax: 140, DegreeMean: 16, DegreeStddev: 14, WedgesByDegree: 400000, MinWorkByDegree: 100000, OutDegreeMaxByDegree: 35}
	p, ok := m.Predict(small, GPUFacts{}, "")
	if !ok || p.Plan != "merge" || p.Spec == "" || len(p.Neighbors) != 3 {
		t.Errorf("small graph: %+v, %v", p, ok)
	}
	large := graph.Features{Vertices: 3e6, Edges: 3e7, DegreeMax: 5000, DegreeMean: 16, DegreeStddev: 500, WedgesByDegree: 6e8, MinWorkByDegree: 1.5e8, OutDegreeMaxByDegree: 1300}
	if p, _ := m.Predict(large, GPUFacts{}, ""); p.Plan != "pivot" {
		t.Errorf("large graph: %+v", p)
	}
	if _, ok := Train(nil, 0).Predict(small, GPUFacts{}, ""); ok {
		t.Error("an empty model predicted")
	}
}

func TestLeaveOneOut(t *testing.T) {
	rep := LeaveOneOut(modelRows(), 3)
	if len(rep.Rows) != 10 {
		t.Fatalf("%d rows", len(rep.Rows))
	}
	if rep.FixedPlan != "hash" {
		t.Errorf("best fixed plan %s, want hash", rep.FixedPlan)
	}
	if rep.Median != 1 || rep.Worst != 1 {
		t.Errorf("median %.3f worst %.3f, want every graph predicted its best", rep.Median, rep.Worst)
	}
	if math.Abs(rep.FixedMedian-1.3) > 1e-9 {
		t.Errorf("fixed median %.3f, want 1.3", rep.FixedMedian)
	}
	for _, r := range rep.Rows {
		if r.Predicted == "broken" {
			t.Errorf("%s: predicted a failed plan", r.Graph)
		}
	}
}

// The GPU's facts place a point: graphs measured on a slow-memory GPU
// (plan "x" best) and on one of twice its bandwidth ("y" best) answer for
// a GPU like each; a GPU whose facts are unknown learns only from its own
// rows; leaving one GPU out predicts it from the other.
func TestModelGPUFacts(t *testing.T) {
	slow := GPUFacts{Key: "slow", SMs: 132, L2Bytes: 50 << 20, SharedPerSM: 228 << 10, BandwidthGBs: 2000}
	fast := slow
	fast.Key, fast.BandwidthGBs = "fast", 4000
	var rows []store.Row
	for i := range 6 {
		f := graph.Features{Vertices: 1000 << i, Edges: 10000 << i, DegreeMax: 100, DegreeMean: 20, DegreeStddev: 10}
		for _, g := range []GPUFacts{slow, fast} {
			x, y := 1.0, 2.0
			if g.Key == "fast" {
				x, y = 2.0, 1.0
			}
			for p, ms := range map[string]float64{"x": x, "y": y} {
				rows = append(rows, store.Row{Graph: fmt.Sprintf("g%d", i), GraphName: fmt.Sprintf("graph%d", i), Features: f,
					GPU: g.Key, SMs: g.SMs, L2Bytes: g.L2Bytes, SharedPerSM: g.SharedPerSM, BandwidthGBs: g.BandwidthGBs,
					Plan: p, Spec: `{"prefix":"` + p + `"}`, Status: store.StatusOK, MedianMs: ms})
			}
		}
	}
	m := Train(rows, 3)
	if m.Graphs() != 12 {
		t.Fatalf("%d points, want 12 (6 graphs on 2 GPUs)", m.Graphs())
	}
	q := graph.Features{Vertices: 4000, Edges: 40000, DegreeMax: 100, DegreeMean: 20, DegreeStddev: 10}
	nearFast := fast
	nearFast.Key, nearFast.BandwidthGBs = "new", 3600
	for _, tc := range []struct {
		g    GPUFacts
		want string
	}{{slow, "x"}, {fast, "y"}, {nearFast, "y"}} {
		if p, ok := m.Predict(q, tc.g, ""); !ok || p.Plan != tc.want {
			t.Errorf("on %s: %+v %v, want %s", tc.g.Key, p, ok, tc.want)
		}
	}
	if p, ok := m.Predict(q, GPUFacts{Key: "unknown", SMs: 132}, ""); ok {
		t.Errorf("a GPU of unknown facts got %+v from other GPUs' rows", p)
	}
	rep := LeaveOneGPUOut(rows, 3, "")
	if len(rep.Rows) != 12 || rep.Worst != 2 {
		t.Errorf("leave one GPU out: %d rows, worst %.3f; want 12, and 2 (the other GPU's best is the wrong plan)", len(rep.Rows), rep.Worst)
	}
}

// A graph's point takes its GPU's facts from any of its rows (a store
// upgraded to schema 5 holds older rows without them); the K neighbours
// are K distinct graphs, each on the GPU nearest the query; a graph left
// out on the query's GPU still votes from another GPU.
func TestModelGPUPoints(t *testing.T) {
	a := GPUFacts{Key: "a", SMs: 132, L2Bytes: 50 << 20, SharedPerSM: 228 << 10, BandwidthGBs: 3352}
	b := a
	b.Key, b.BandwidthGBs = "b", 4814
	mk := func(i int, g GPUFacts, plan string, ms float64) store.Row {
		return store.Row{Graph: fmt.Sprintf("g%d", i), GraphName: fmt.Sprintf("graph%d", i),
			Features: graph.Features{Vertices: 1000 << i, Edges: 10000 << i, DegreeMax: 100, DegreeMean: 20, DegreeStddev: 10},
			GPU:      g.Key, SMs: g.SMs, L2Bytes: g.L2Bytes, SharedPerSM: g.SharedPerSM, BandwidthGBs: g.BandwidthGBs,
			Plan: plan, Spec: `{"prefix":"` + plan + `"}`, Status: store.StatusOK, MedianMs: ms}
	}
	old := mk(0, a, "x", 1)
	old.L2Bytes, old.SharedPerSM, old.BandwidthGBs = 0, 0, 0 // a schema 4 row, read first
	rows := []store.Row{old, mk(0, a, "y", 2), mk(1, a, "x", 1), mk(1, b, "x", 1), mk(3, a, "x", 1)}
	m := Train(rows, 2)
	q := rows[2].Features // graph1's
	p, ok := m.Predict(q, b, "")
	if !ok || len(p.Neighbors) != 2 || p.Neighbors[0] != "graph1" || p.Neighbors[1] != "graph0 on " {
		t.Errorf("on b: %+v %v; want graph1 (on b) and graph0 (on a, whose facts one of its rows gave), each once", p, ok)
	}
	if g, n := m.Reach(b); g != 3 || n != 2 {
		t.Errorf("reach from b: %d graphs on %d GPUs, want 3 on 2", g, n)
	}
	p, ok = m.Predict(q, b, "g1")
	if !ok || p.Neighbors[0] != "graph1 on " {
		t.Errorf("graph1 left out on b: %+v %v, want its point on a nearest", p, ok)
	}
}

// PreferDefault ranks the default first only while the neighbours' best is
// less than DefaultMargin faster than it; otherwise, or without the
// default in the ranking, the ranking stands.
func TestPreferDefault(t *testing.T) {
	rank := func(scores ...float64) []Prediction {
		out := make([]Prediction, len(scores))
		for i, s := range scores {
			out[i] = Prediction{Plan: string(rune('a' + i)), Score: s}
		}
		return out
	}
	plans := func(ps []Prediction) string {
		var s string
		for _, p := range ps {
			s += p.Plan
		}
		return s
	}
	for _, c := range []struct {
		scores []float64
		def    string
		want   string
	}{
		{[]float64{1.00, 1.02, 1.04}, "c", "cab"},          // 4% behind: the default
		{[]float64{1.00, 1.02, 1.06}, "c", "abc"},          // 6% behind: the best
		{[]float64{1.00, 1.02, 1.04}, "a", "abc"},          // already first
		{[]float64{1.00, 1.02, 1.04}, "z", "abc"},          // not ranked
		{[]float64{1.00, 1.00 * DefaultMargin}, "b", "ba"}, // at the margin: the default
	} {
		if got := plans(PreferDefault(rank(c.scores...), c.def)); got != c.want {
			t.Errorf("%v, default %s: %s, want %s", c.scores, c.def, got, c.want)
		}
	}
	if got := PreferDefault(nil, "a"); len(got) != 0 {
		t.Errorf("empty ranking: %v", got)
	}
}
