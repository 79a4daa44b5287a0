package autotune

import (
	"compress/gzip"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tcgen/tcgen/store"
)

// The goals of a search of examples/spaces/large.yaml (docs/tuning.md,
// "The large space"): cold (no warm start), with 3% of the evaluations,
// over 10 seeds on every recorded graph, the median gap to the exhaustive
// best at most 5%, the worst at most 15%, and a lower mean gap than random
// search and than the space's declared order with the same budget.
const (
	largeShare     = 0.03
	largeSeeds     = 10
	largeMedianGap = 0.05
	largeWorstGap  = 0.15
)

// largeSearchers are the strategies held to the goals; random and
// exhaustive (the declared order) are what they must beat.
var largeSearchers = []string{"coordinate", "halving", "tpe"}

// largeGraph is one recorded graph of the large space.
type largeGraph struct {
	name, family string
	rp           *Replay
	best         float64
	runs         int
}

func newLargeGraph(t *testing.T, sp *Space, name, family string, rows []store.Row) largeGraph {
	t.Helper()
	rp, err := NewReplay(&sp.Cands, rows)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	_, best := rp.Best()
	if math.IsInf(best, 1) {
		t.Fatalf("%s: no point measured OK", name)
	}
	runs := 1
	for _, r := range rows {
		runs = max(runs, r.Runs)
	}
	return largeGraph{name: name, family: family, rp: rp, best: best, runs: runs}
}

// largeGaps replays a strategy cold on every graph with largeSeeds seeds
// and a budget of largeShare of the points; start, when set, is measured
// first (a strategy's start points).
func largeGaps(c *Candidates, graphs []largeGraph, mk func() Strategy, start []int) ([]float64, error) {
	budget := int(math.Ceil(largeShare * float64(len(c.Points))))
	var gaps []float64
	for _, g := range graphs {
		for seed := uint64(1); seed <= largeSeeds; seed++ {
			out, err := Run(context.Background(), c, mk(), g.rp, Options{Seed: seed, Runs: g.runs,
				Budget: Budget{Evals: budget}, Start: start})
			if err != nil {
				return nil, err
			}
			gap := math.Inf(1)
			if out.Best >= 0 {
				gap = out.Score/g.best - 1
			}
			gaps = append(gaps, gap)
		}
	}
	return gaps, nil
}

// largeVerdict is how one strategy's gaps measure up to the goals.
type largeVerdict struct {
	median, worst, mean        float64
	beatsRandom, beatsDeclared bool
}

func largeJudge(gaps, random, declared []float64) largeVerdict {
	med, worst, mean := gapStats(gaps)
	_, _, rmean := gapStats(random)
	_, _, dmean := gapStats(declared)
	return largeVerdict{median: med, worst: worst, mean: mean, beatsRandom: mean < rmean, beatsDeclared: mean < dmean}
}

// bars says whether the verdict meets the absolute goals (median, worst).
func (v largeVerdict) bars() bool { return v.median <= largeMedianGap && v.worst <= largeWorstGap }

// failures lists the goals the verdict misses.
func (v largeVerdict) failures() []string {
	var out []string
	if !(v.median <= largeMedianGap) {
		out = append(out, fmt.Sprintf("median gap %.2f%% > %.0f%%", 100*v.median, 100*largeMedianGap))
	}
	if !(v.worst <= largeWorstGap) {
		out = append(out, fmt.Sprintf("worst gap %.2f%% > %.0f%%", 100*v.worst, 100*largeWorstGap))
	}
	if !v.beatsRandom {
		out = append(out, "mean gap not below random search's")
	}
	if !v.beatsDeclared {
		out = append(out, "mean gap not below the declared order's")
	}
	return out
}

// gapStats is the median, worst and mean of gaps (+Inf where a run found
// nothing).
func gapStats(gaps []float64) (med, worst, mean float64) {
	if len(gaps) == 0 {
		return math.Inf(1), math.Inf(1), math.Inf(1)
	}
	g := slices.Clone(gaps)
	sort.Float64s(g)
	for _, x := range g {
		mean += x
	}
	return g[len(g)/2], g[len(g)-1], mean / float64(len(g))
}

// startOnly measures its start points and stops: a strategy that does not
// search, which the goals must reject.
type startOnly struct{}

func (startOnly) Name() string { return "start-only" }

func (startOnly) Search(s *Session) error {
	for _, i := range s.Start() {
		if _, ok := s.Eval(i); !ok {
			return nil
		}
	}
	return nil
}

// checkLargeGoals replays every strategy on graphs and holds the searching
// ones to the goals; the declared order and a strategy that measures only
// the space's first point must miss them. It logs the table docs/tuning.md
// quotes, under title.
func checkLargeGoals(t *testing.T, title string, sp *Space, graphs []largeGraph) {
	t.Helper()
	c := &sp.Cands
	makers := map[string]func() Strategy{"start-only": func() Strategy { return startOnly{} }}
	for _, name := range append([]string{"random", "exhaustive"}, largeSearchers...) {
		makers[name] = func() Strategy { s, _ := StrategyByName(name); return s }
	}
	// The replays are independent: one goroutine per strategy.
	gaps := map[string][]float64{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var failed error
	for name, mk := range makers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var start []int
			if name == "start-only" {
				start = []int{0} // the space's first point
			}
			g, err := largeGaps(c, graphs, mk, start)
			mu.Lock()
			defer mu.Unlock()
			gaps[name] = g
			if err != nil {
				failed = err
			}
		}()
	}
	wg.Wait()
	if failed != nil {
		t.Fatal(failed)
	}
	random, declared := gaps["random"], gaps["exhaustive"]
	budget := int(math.Ceil(largeShare * float64(len(c.Points))))
	t.Logf("%s: %d points, %d graphs, %d evaluations (%.0f%%), %d seeds, cold", title, len(c.Points), len(graphs), budget, 100*largeShare, largeSeeds)
	t.Logf("| strategy | median gap | worst | mean |")
	row := func(name string, v largeVerdict) {
		t.Logf("| %s | %.2f%% | %.1f%% | %.2f%% |", name, 100*v.median, 100*v.worst, 100*v.mean)
	}
	row("random", largeJudge(random, random, declared))
	dv := largeJudge(declared, random, declared)
	row("declared order (exhaustive)", dv)
	for _, name := range largeSearchers {
		v := largeJudge(gaps[name], random, declared)
		row(name, v)
		if f := v.failures(); len(f) > 0 {
			t.Errorf("%s: %s: %s", title, name, strings.Join(f, "; "))
		}
	}
	// A strategy that does not search must fail: the declared order, and
	// one that measures its start point (the space's first) and stops.
	if dv.bars() {
		t.Errorf("%s: the declared order meets the goals (median %.2f%%, worst %.1f%%): the space is front-loaded", title, 100*dv.median, 100*dv.worst)
	}
	if so := largeJudge(gaps["start-only"], random, declared); so.bars() || len(so.failures()) == 0 {
		t.Errorf("%s: measuring only the first point meets the goals (median %.2f%%, worst %.1f%%)", title, 100*so.median, 100*so.worst)
	}
}

// TestReplayLargeSynthetic holds the strategies to the goals on the
// SYNTHETIC recordings of the large space (largeSyntheticRows: a cost
// model, not measurements), eight graph profiles of six families, written
// as a recording file and read back as TestReplayLargeRecording reads one.
func TestReplayLargeSynthetic(t *testing.T) {
	sp := largeSpace(t)
	var rows []store.Row
	for _, pr := range largeProfiles {
		rows = append(rows, largeSyntheticRows(sp, pr)...)
	}
	file := filepath.Join(t.TempDir(), "record-large-synthetic.jsonl.gz")
	fh, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(fh)
	if err := store.WriteJSON(zw, rows); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
	checkLargeRecording(t, sp, file)
}

// TestReplayLargeRecording holds the strategies to the goals on every
// recording of the large space in testdata (record-large-GPU.jsonl.gz,
// made by scripts/gpu-record-large.sh).
func TestReplayLargeRecording(t *testing.T) {
	files, _ := filepath.Glob("testdata/record-large-*.jsonl.gz")
	if len(files) == 0 {
		t.Skip("no recording of the large space in testdata yet (scripts/gpu-record-large.sh records one on a GPU)")
	}
	sp := largeSpace(t)
	for _, file := range files {
		checkLargeRecording(t, sp, file)
	}
}

// checkLargeRecording reads a recording of the large space, which must
// cover every point on at least 8 graphs of at least 5 families, each OK
// row with the graph's known count, and holds the strategies to the goals
// on it.
func checkLargeRecording(t *testing.T, sp *Space, file string) {
	t.Helper()
	rows, byGraph := readRecording(t, file)
	for _, r := range rows {
		if r.Status == store.StatusOK && (r.Reference == 0 || r.Triangles != r.Reference) {
			t.Errorf("%s: %s on %s: ok with %d triangles against the known %d", file, r.Plan, r.GraphName, r.Triangles, r.Reference)
		}
	}
	var graphs []largeGraph
	families := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(byGraph)) {
		fam := graphFamily(name)
		families[fam] = true
		graphs = append(graphs, newLargeGraph(t, sp, name, fam, byGraph[name]))
	}
	if len(graphs) < 8 || len(families) < 5 {
		t.Fatalf("%s: %d graphs of %d families; the goals need at least 8 graphs of 5 families", file, len(graphs), len(families))
	}
	checkLargeGoals(t, filepath.Base(file), sp, graphs)
}

// graphFamily is the family of a graph by its sweep label (sweep.Sources
// names generated graphs after their generator); other names are datasets.
func graphFamily(label string) string {
	for _, f := range []struct{ prefix, family string }{
		{"rmat", "rmat"}, {"grid", "grid"}, {"er-", "er"}, {"cl-", "chung-lu"}, {"rgg", "rgg"},
	} {
		if strings.HasPrefix(label, f.prefix) {
			return f.family
		}
	}
	return "real"
}
