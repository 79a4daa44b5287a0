package autotune

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/store"
)

// Model predicts a plan for a graph nobody tuned on a GPU, from the graphs
// the store holds measurements of on that GPU and on others: each (graph,
// GPU) it learned from is a point, the K nearest points in feature space
// (the graph's features, then the GPU's: GPUFacts) vote, each plan scored
// by its time relative to the best plan of each neighbour (geometric mean,
// nearer points weigh more). It is trained from the store, not written by
// hand; a plan a neighbour never ran counts as missingRatio times its best.
type Model struct {
	K      int
	graphs []modelGraph
	banned map[string]bool   // plans that counted wrong somewhere: never predicted
	specs  map[string]string // plan -> canonical JSON spec
	scale  []float64         // per feature: standard deviation over the graphs
}

// missingRatio is what a plan costs on a neighbour that has no ok
// measurement of it: as bad as a slow plan, so the model prefers plans known
// to work on every neighbour.
const missingRatio = 10

// DefaultK neighbours vote: small enough that graphs unlike the new one
// do not drown the near ones, more than one so a single odd graph does not
// decide.
const DefaultK = 3

// pointKey names a graph on a GPU, the model's point.
func pointKey(graph, gpu string) string { return graph + "\x00" + gpu }

// modelGraph is one graph on one GPU.
type modelGraph struct {
	fp, name string
	x        []float64 // FeatureVector
	features graph.Features
	gpu      GPUFacts
	gpuName  string
	times    map[string]float64 // plan -> median ms of ok rows
	best     float64
}

// FeatureVector is what the model measures graphs by: the logarithms of
// size, degree spread, the work measures the iterators' costs follow, and
// the ids' locality (words per neighbour; the bit-wise intersections win on
// dense local graphs and lose elsewhere). Without the locality the model
// cannot tell a geometric graph from a uniform random one of the same
// degrees; the default plan now reads the locality itself, so in the
// transfer recordings the model does as well without it (docs/tuning.md),
// but a store's tuned plans for such graphs still need it to be told apart.
func FeatureVector(f graph.Features) []float64 {
	l := func(v float64) float64 { return math.Log2(1 + v) }
	return []float64{
		l(float64(f.Vertices)), l(float64(f.Edges)), l(float64(f.DegreeMax)),
		l(f.DegreeMean), l(f.DegreeStddev),
		l(float64(f.WedgesByDegree)), l(float64(f.MinWorkByDegree)), l(float64(f.OutDegreeMaxByDegree)),
		wordsPerNeighbour(f),
	}
}

// wordsPerNeighbour is log2 of AdjWords / 2|E|: 0 for random ids, -5 for
// lists of consecutive ids; 0 where the features predate AdjWords.
func wordsPerNeighbour(f graph.Features) float64 {
	if f.AdjWords == 0 || f.Edges == 0 {
		return 0
	}
	return math.Log2(float64(f.AdjWords) / float64(2*f.Edges))
}

// ConfidentDistance is the farthest a graph on a GPU may lie from its
// nearest measured point for count to run the model's pick (in feature
// spreads, and factors of two of the GPU's facts: GPUFacts.vector); beyond
// it count runs the default plan. In the transfer recordings (110 graphs)
// 90% of the graphs lie within 1.04 of another and all but the three
// smallest (karate, jazz, power-grid: up to 4.1) within 1.4, while a graph
// whose whole family is left out lies up to 14.3 from the rest; an H100
// and an H200 lie 0.585 apart, so a GPU whose facts differ by more than
// about four times from every measured one is never confident on its own
// (docs/tuning.md).
const ConfidentDistance = 2.0

// Train builds a model from rows of one GPU or several.
func Train(rows []store.Row, k int) *Model {
	if k <= 0 {
		k = DefaultK
	}
	m := &Model{K: k, specs: map[string]string{}, banned: map[string]bool{}}
	byGraph := map[string]*modelGraph{}
	for _, r := range rows {
		if r.Status == store.StatusWrong {
			m.banned[r.Plan] = true // a wrong count on one graph: not trusted on a similar one
		}
		// Rows without features (tunes of oriented files) would be a fake
		// graph at the origin of feature space.
		if r.Status != store.StatusOK || r.MedianMs <= 0 || r.Features.Vertices == 0 {
			continue
		}
		key := pointKey(r.Graph, r.GPU)
		g := byGraph[key]
		if g == nil {
			g = &modelGraph{fp: r.Graph, name: r.GraphName, x: FeatureVector(r.Features), features: r.Features, gpu: RowGPU(r),
				gpuName: r.GPUName, times: map[string]float64{}, best: math.Inf(1)}
			byGraph[key] = g
		}
		if !g.gpu.Known() { // rows of one GPU key from before store schema 5 lack the facts
			g.gpu = RowGPU(r)
		}
		if t, ok := g.times[r.Plan]; !ok || r.MedianMs < t {
			g.times[r.Plan] = r.MedianMs
		}
		g.best = min(g.best, r.MedianMs)
		if r.Spec != "" {
			m.specs[r.Plan] = r.Spec
		}
	}
	for _, g := range byGraph {
		m.graphs = append(m.graphs, *g)
	}
	slices.SortFunc(m.graphs, func(a, b modelGraph) int { return cmp.Or(cmp.Compare(a.fp, b.fp), cmp.Compare(a.gpu.Key, b.gpu.Key)) })
	// Scale each feature by its spread over the graphs (each once, however
	// many GPUs measured it) so no single one dominates the distance (a
	// feature all graphs share gets scale 1).
	var xs [][]float64
	for i, g := range m.graphs {
		if i == 0 || g.fp != m.graphs[i-1].fp {
			xs = append(xs, g.x)
		}
	}
	if len(xs) > 0 {
		d := len(xs[0])
		m.scale = make([]float64, d)
		for j := range d {
			var s, s2 float64
			for _, x := range xs {
				s += x[j]
				s2 += x[j] * x[j]
			}
			n := float64(len(xs))
			v := s2/n - (s/n)*(s/n)
			m.scale[j] = 1
			if v > 1e-12 {
				m.scale[j] = math.Sqrt(v)
			}
		}
	}
	return m
}

// Graphs is the number of points, graphs on a GPU, the model learned from.
func (m *Model) Graphs() int { return len(m.graphs) }

// Reach is how many distinct graphs, and on how many GPUs, the model could
// draw on for a query on the GPU on: its own rows and those of the GPUs
// whose facts, like on's, are known.
func (m *Model) Reach(on GPUFacts) (graphs, gpus int) {
	gs, ks := map[string]bool{}, map[string]bool{}
	for _, g := range m.graphs {
		if _, ok := gpuDistance(on, g.gpu); ok {
			gs[g.fp], ks[g.gpu.Key] = true, true
		}
	}
	return len(gs), len(ks)
}

// Prediction is the model's answer for one graph.
type Prediction struct {
	Plan      string   `json:"plan"`
	Spec      string   `json:"spec"`      // canonical JSON of the plan
	Score     float64  `json:"score"`     // predicted time relative to the best (1 = best on every neighbour)
	Neighbors []string `json:"neighbors"` // the graphs that voted, nearest first ("NAME on GPU" for another GPU's)
	// Distance is how far the nearest of them lies, in feature spreads (the
	// GPU's facts in factors of two); Confident is Distance <=
	// ConfidentDistance.
	Distance  float64 `json:"distance"`
	Confident bool    `json:"confident"`
}

// Predict returns a plan for a graph with features f on the GPU g,
// ignoring the graph with fingerprint exclude on that GPU (its own stale
// rows; on other GPUs it is a neighbour like any); ok is false when the
// model has no other point.
func (m *Model) Predict(f graph.Features, g GPUFacts, exclude string) (Prediction, bool) {
	return m.PredictAmong(f, g, exclude, nil)
}

// PredictAmong is Predict restricted to the plans allow accepts (nil: all).
func (m *Model) PredictAmong(f graph.Features, g GPUFacts, exclude string, allow map[string]bool) (Prediction, bool) {
	ranked := m.Rank(f, g, exclude, allow)
	if len(ranked) == 0 {
		return Prediction{}, false
	}
	return ranked[0], true
}

// DefaultMargin is how much better than the default plan the neighbours
// must have found a plan before the model picks it over the default:
// within it the two differ by about a recording's spread between GPUs and
// machines, and the default, which the guard fits to the graph itself,
// is the safer choice. In the transfer recordings the leave-one-GPU-out
// worst came from a pick predicted 1% better than the default
// (docs/tuning.md).
const DefaultMargin = 1.05

// PreferDefault moves the default plan def to the front of a ranking when
// its score is within DefaultMargin of the best's; ranked is reordered in
// place and returned.
func PreferDefault(ranked []Prediction, def string) []Prediction {
	for i, p := range ranked {
		if p.Plan == def && i > 0 && p.Score <= ranked[0].Score*DefaultMargin {
			copy(ranked[1:i+1], ranked[:i])
			ranked[0] = p
			break
		}
	}
	return ranked
}

// Rank scores every plan the nearest neighbours measured (those allow
// accepts; nil: all) and returns them best first: a tune's warm start
// takes the first few, count takes the first. A point on another GPU is a
// neighbour only where both GPUs' facts are known.
func (m *Model) Rank(f graph.Features, on GPUFacts, exclude string, allow map[string]bool) []Prediction {
	x := FeatureVector(f)
	type nb struct {
		g *modelGraph
		d float64
	}
	var nbs []nb
	for i := range m.graphs {
		g := &m.graphs[i]
		d, ok := gpuDistance(on, g.gpu)
		if !ok || g.fp == exclude && g.gpu.Key == on.Key {
			continue
		}
		for j := range x {
			t := (x[j] - g.x[j]) / m.scale[j]
			d += t * t
		}
		nbs = append(nbs, nb{g, math.Sqrt(d)})
	}
	slices.SortStableFunc(nbs, func(a, b nb) int { return cmp.Compare(a.d, b.d) })
	// K graphs vote, each once, on the GPU nearest the query: a graph
	// measured on several GPUs is not several neighbours.
	seen := map[string]bool{}
	nbs = slices.DeleteFunc(nbs, func(n nb) bool {
		dup := seen[n.g.fp]
		seen[n.g.fp] = true
		return dup
	})
	nbs = nbs[:min(m.K, len(nbs))]
	plans := map[string]bool{}
	for _, n := range nbs {
		for p := range n.g.times {
			if !m.banned[p] && (allow == nil || allow[p]) {
				plans[p] = true
			}
		}
	}
	var names []string
	for _, n := range nbs {
		if n.g.gpu.Key != on.Key {
			names = append(names, n.g.name+" on "+n.g.gpuName)
		} else {
			names = append(names, n.g.name)
		}
	}
	dist := math.Inf(1)
	if len(nbs) > 0 {
		dist = nbs[0].d
	}
	out := make([]Prediction, 0, len(plans))
	for p := range plans {
		var lw, w float64
		for _, n := range nbs {
			ratio := float64(missingRatio)
			if t, ok := n.g.times[p]; ok {
				ratio = t / n.g.best
			}
			wt := 1 / (n.d + 0.1) // 0.1: an identical graph does not get all the weight
			lw += wt * math.Log(ratio)
			w += wt
		}
		out = append(out, Prediction{Plan: p, Spec: m.specs[p], Score: math.Exp(lw / w), Neighbors: names,
			Distance: dist, Confident: dist <= ConfidentDistance})
	}
	// Ties broken by name, so the ranking does not depend on map order.
	slices.SortFunc(out, func(a, b Prediction) int {
		return cmp.Or(cmp.Compare(a.Score, b.Score), cmp.Compare(a.Plan, b.Plan))
	})
	return out
}

// WarmStartN is how many of the model's best plans a tune of a new graph
// measures first (Options.Start). Three bring the strategies close to the
// exhaustive best with a tenth of the evaluations in the replay of the
// recording (autotune/recording_test.go; docs/tuning.md); more would spend
// the budget of small spaces on the neighbours' opinion alone.
const WarmStartN = 3

// WarmStartFrom is WarmStart with a model trained on rows less those of
// the graph fp itself on the GPU g: what a tune of a graph not seen before
// on g can know, and how the replay of a recording imitates it.
func WarmStartFrom(rows []store.Row, fp string, f graph.Features, g GPUFacts, c *Candidates, n int) []int {
	var others []store.Row
	for _, r := range rows {
		if r.Graph != fp || r.GPU != g.Key {
			others = append(others, r)
		}
	}
	if len(others) == 0 {
		return nil
	}
	return WarmStart(Train(others, 0), f, g, fp, c, n)
}

// WarmStart is the indices of c's candidates the model ranks best for a
// graph with features f on the GPU g (its fingerprint exclude is left out
// of the neighbours on g), at most n of them: the start of a tune on a
// graph the store has not seen.
func WarmStart(m *Model, f graph.Features, g GPUFacts, exclude string, c *Candidates, n int) []int {
	if m == nil || c == nil || n <= 0 {
		return nil
	}
	idx := make(map[string]int, len(c.Plans))
	allow := make(map[string]bool, len(c.Plans))
	for i, p := range c.Plans {
		idx[p] = i
		allow[p] = true
	}
	var out []int
	for _, p := range m.Rank(f, g, exclude, allow) {
		if len(out) == n {
			break
		}
		out = append(out, idx[p.Plan])
	}
	return out
}

// LOO is one graph on one GPU of a leave-one-out evaluation.
type LOO struct {
	Graph       string  `json:"graph"`
	Family      string  `json:"family"`
	GPU         string  `json:"gpu"`
	Predicted   string  `json:"predicted"`
	Distance    float64 `json:"distance"`     // to the nearest graph the model kept
	Fallback    bool    `json:"fallback"`     // too far from them: the fallback plan ran
	PredictedMs float64 `json:"predicted_ms"` // its measured time
	BestPlan    string  `json:"best_plan"`
	BestMs      float64 `json:"best_ms"`
	Ratio       float64 `json:"ratio"`       // predicted / best
	FixedMs     float64 `json:"fixed_ms"`    // the best single fixed plan's time here (0: not measured ok)
	FixedRatio  float64 `json:"fixed_ratio"` // fixed / best (missingRatio when not measured ok)
}

// LeaveOneOutReport is the model judged on graphs it was not trained on.
// The summary covers the graphs whose best takes at least MinMs (launch
// overheads decide below it); Rows lists all.
type LeaveOneOutReport struct {
	Rows        []LOO   `json:"graphs"`
	MinMs       float64 `json:"min_ms"`
	Graphs      int     `json:"graphs_judged"`
	Median      float64 `json:"median_ratio"`
	P90         float64 `json:"p90_ratio"`
	Worst       float64 `json:"worst_ratio"`
	Geomean     float64 `json:"geomean_ratio"`
	FixedPlan   string  `json:"fixed_plan"` // the one plan best over the judged graphs (geometric mean)
	FixedMedian float64 `json:"fixed_median_ratio"`
	FixedP90    float64 `json:"fixed_p90_ratio"`
	FixedWorst  float64 `json:"fixed_worst_ratio"`
	FixedGeo    float64 `json:"fixed_geomean_ratio"`
}

// JudgedMinMs is the least best time of a graph the evaluations judge the
// model on: below 0.1 ms a count is launch-bound and the plans' times lie
// within their noise (issue 22's bar).
const JudgedMinMs = 0.1

// LeaveOneOut predicts each graph's plan from the others (the graph left
// out on every GPU) and compares its measured time with the graph's tuned
// best, and with the single fixed plan that is best over all judged graphs
// (chosen with every graph known, which favours the fixed plan). Every
// graph is judged (minMs 0).
func LeaveOneOut(rows []store.Row, k int) LeaveOneOutReport {
	return evaluate(rows, k, 0, "", func(r store.Row) string { return r.Graph })
}

// LeaveOneFamilyOut is LeaveOneOut with the graph's whole family
// (Family) left out of the model: how it does on a kind of graph it has
// never seen. A prediction farther than ConfidentDistance from every kept
// graph runs fallback (the default plan) instead, as count does; the
// summary judges graphs of JudgedMinMs or more.
func LeaveOneFamilyOut(rows []store.Row, k int, fallback string) LeaveOneOutReport {
	return evaluate(rows, k, JudgedMinMs, fallback, func(r store.Row) string { return Family(r.GraphName) })
}

// LeaveOneGPUOut is LeaveOneFamilyOut with each GPU's measurements left
// out in turn: how the plans measured on the other GPUs transfer to one
// nobody tuned on, the same graphs included.
func LeaveOneGPUOut(rows []store.Row, k int, fallback string) LeaveOneOutReport {
	return evaluate(rows, k, JudgedMinMs, fallback, func(r store.Row) string { return r.GPU })
}

// evaluate predicts each graph on each GPU from a model trained on the rows
// of the other groups (group: the graph, its family or the GPU), scaled by
// their spread alone.
func evaluate(rows []store.Row, k int, minMs float64, fallback string, group func(store.Row) string) LeaveOneOutReport {
	all := Train(rows, k)
	rep := LeaveOneOutReport{MinMs: minMs}
	var judged []*modelGraph
	groupOf := map[string]string{} // graph and GPU -> group
	for _, r := range rows {
		groupOf[pointKey(r.Graph, r.GPU)] = group(r)
	}
	for i := range all.graphs {
		if all.graphs[i].best >= minMs {
			judged = append(judged, &all.graphs[i])
		}
	}
	rep.FixedPlan = all.fixedPlan(judged)
	models := map[string]*Model{}
	var ratios, fixed []float64
	for i := range all.graphs {
		g := &all.graphs[i]
		grp := groupOf[pointKey(g.fp, g.gpu.Key)]
		m := models[grp]
		if m == nil {
			var others []store.Row
			for _, r := range rows {
				if groupOf[pointKey(r.Graph, r.GPU)] != grp {
					others = append(others, r)
				}
			}
			m = Train(others, k)
			models[grp] = m
		}
		// The model chooses among the plans measured on the left-out graph
		// (their time there is what judges it).
		ranked := PreferDefault(m.Rank(g.features, g.gpu, "", g.timesSet()), fallback)
		if len(ranked) == 0 {
			continue
		}
		pred := ranked[0]
		row := LOO{Graph: g.name, Family: Family(g.name), GPU: g.gpuName, Predicted: pred.Plan, Distance: pred.Distance, BestMs: g.best}
		if _, ok := g.times[fallback]; ok && !pred.Confident {
			row.Predicted, row.Fallback = fallback, true
		}
		row.PredictedMs = g.times[row.Predicted]
		for p, t := range g.times {
			if t == g.best && (row.BestPlan == "" || p < row.BestPlan) {
				row.BestPlan = p
			}
		}
		row.Ratio = row.PredictedMs / g.best
		row.FixedRatio = missingRatio // not measured ok here: as the model counts it
		if t, ok := g.times[rep.FixedPlan]; ok {
			row.FixedMs, row.FixedRatio = t, t/g.best
		}
		rep.Rows = append(rep.Rows, row)
		if g.best >= minMs {
			ratios = append(ratios, row.Ratio)
			fixed = append(fixed, row.FixedRatio)
		}
	}
	rep.Graphs = len(ratios)
	rep.Median, rep.P90, rep.Worst, rep.Geomean = summary(ratios)
	rep.FixedMedian, rep.FixedP90, rep.FixedWorst, rep.FixedGeo = summary(fixed)
	return rep
}

// fixedPlan is the plan of the smallest geometric mean of time/best over
// gs, a plan missing on a graph counting missingRatio.
func (m *Model) fixedPlan(gs []*modelGraph) string {
	plans := map[string]bool{}
	for _, g := range gs {
		for p := range g.times {
			plans[p] = true
		}
	}
	best, bestGeo := "", math.Inf(1)
	for p := range plans {
		if m.banned[p] {
			continue
		}
		var l float64
		for _, g := range gs {
			r := float64(missingRatio)
			if t, ok := g.times[p]; ok {
				r = t / g.best
			}
			l += math.Log(r)
		}
		if geo := math.Exp(l / float64(len(gs))); geo < bestGeo || geo == bestGeo && p < best {
			bestGeo, best = geo, p
		}
	}
	return best
}

// summary is the median, 90th percentile, largest and geometric mean of xs
// (NaN, NaN, 0, NaN when empty).
func summary(xs []float64) (med, p90, worst, geo float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN(), 0, math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	return median(xs), s[int(math.Ceil(0.9*float64(len(s))))-1], s[len(s)-1], geomean(xs) // p90: nearest rank
}

// Family is the graph family a graph's name tells: the generator of a
// sweep's label (rmat18, er-n..., grid..., road..., rgg2d-..., ws-...,
// sbm-..., ba-..., cl-...), else "real" (a dataset or file).
func Family(name string) string {
	for _, f := range []string{"rmat", "er-", "grid", "road", "rgg", "ws-", "sbm-", "ba-", "cl-"} {
		if strings.HasPrefix(name, f) {
			return strings.TrimSuffix(f, "-")
		}
	}
	return "real"
}

func (g *modelGraph) timesSet() map[string]bool {
	out := make(map[string]bool, len(g.times))
	for p := range g.times {
		out[p] = true
	}
	return out
}

func featuresOf(rows []store.Row, fp string) graph.Features {
	for _, r := range rows {
		if r.Graph == fp {
			return r.Features
		}
	}
	return graph.Features{}
}

func geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var l float64
	for _, x := range xs {
		l += math.Log(x)
	}
	return math.Exp(l / float64(len(xs)))
}
