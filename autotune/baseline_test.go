package autotune

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/store"
)

// landscape is a fake GPU evaluator over srchSpace with fixed times per
// plan (srchTime, except the times set in fixed), writing every
// measurement to the store as the GPU evaluator does: one row per plan,
// replaced by a later measurement, with its passes and their median. A
// measurement with fewer passes than a full one is lucky: its passes take
// luckyMs (a short burst at boost clocks, say), so halving's screenings
// look faster than any full measurement.
type landscape struct {
	c     *Candidates
	fixed map[int]float64
	st    *store.Store
	calls []srchCall
}

const luckyMs = 0.01

func (e *landscape) Evaluate(i, runs int) (Result, error) {
	e.calls = append(e.calls, srchCall{i, runs})
	ms, ok := e.fixed[i]
	if !ok {
		ms = srchTime(e.c.Points[i])
	}
	row := store.Row{Graph: "g", GPU: "gpu", Version: "v", Plan: e.c.Plans[i], Runs: runs}
	if math.IsInf(ms, 1) {
		row.Status = store.StatusWrong
	} else {
		row.Status = store.StatusOK
		if runs < sessionRuns {
			ms = luckyMs
		}
		row.Samples = slices.Repeat([]float64{ms}, runs)
		row.MedianMs = median(row.Samples)
	}
	if err := e.st.Put(row); err != nil {
		return Result{}, err
	}
	return FromRow(row, runs), nil
}

// The graph: the default plan (a point far from the strategies'
// optimum) measures 0.0516 ms, every other plan 0.9 ms or more.
const landscapeDefaultMs = 0.0516

func landscapeDefault(c *Candidates) int {
	return slices.Index(c.Plans, "plan-0,5,0,-1")
}

// Every tune measures the baselines first, at full fidelity, in their
// order: with a budget of one evaluation the first baseline is all it
// measures, and it is the best.
func TestBaselineFirst(t *testing.T) {
	c := srchSpace()
	def, model := landscapeDefault(c), 17
	for _, name := range StrategyNames() {
		for _, evals := range []int{1, 2, 25} {
			ev := &srchEval{c: c}
			out, err := Run(context.Background(), c, srchStrategy(t, name), ev,
				Options{Seed: 1, Budget: Budget{Evals: evals}, Baseline: []int{def, model, -1}})
			if err != nil {
				t.Fatal(err)
			}
			want := []srchCall{{def, sessionRuns}, {model, sessionRuns}}[:min(evals, 2)]
			if len(ev.calls) < len(want) || !slices.Equal(ev.calls[:len(want)], want) {
				t.Errorf("%s, %d evaluations: calls begin %v, want %v", name, evals, ev.calls[:min(len(ev.calls), 3)], want)
			}
			if d := ev.repeats(); len(d) > 0 {
				t.Errorf("%s, %d evaluations: measured again: %v", name, evals, d)
			}
			if evals == 1 && (out.Best != def || out.Stopped != StopEvals) {
				t.Errorf("%s, 1 evaluation: best %d, stopped %q; want the default %d, %q", name, out.Best, out.Stopped, def, StopEvals)
			}
		}
	}
}

// A tune whose strategy finds only slower plans (and whose halving sees
// lucky short screenings far faster than the default) leaves the default
// as its best and as the store's best, which count runs. Without the
// baselines no strategy measures the default within 20 evaluations; without
// the store's passes rule a short screening would be the store's best.
func TestBaselineNeverWorse(t *testing.T) {
	c := srchSpace()
	def := landscapeDefault(c)
	for _, name := range StrategyNames() {
		for seed := range uint64(3) {
			st, err := store.Open(filepath.Join(t.TempDir(), "tuning.db"))
			if err != nil {
				t.Fatal(err)
			}
			ev := &landscape{c: c, fixed: map[int]float64{def: landscapeDefaultMs}, st: st}
			out, err := Run(context.Background(), c, srchStrategy(t, name), ev,
				Options{Seed: seed, Budget: Budget{Evals: 20}, Baseline: []int{def}})
			if err != nil {
				t.Fatal(err)
			}
			if out.Best != def || out.Score != landscapeDefaultMs {
				t.Errorf("%s seed %d: tune's best %d (%.4f ms), want the default %d (%.4f ms)", name, seed, out.Best, out.Score, def, landscapeDefaultMs)
			}
			best, _, ok, err := st.Best("g", "gpu", nil)
			if err != nil || !ok || best.Plan != c.Plans[def] || best.Runs != sessionRuns {
				t.Errorf("%s seed %d: store's best %s (%d passes, %.4f ms), want the default %s", name, seed, best.Plan, best.Runs, best.MedianMs, c.Plans[def])
			}
			st.Close()
		}
	}
}

// The landscape is what the test above claims: halving writes short rows
// faster than the default, and without the baseline the default is not
// measured, so the store's best would be slower than it.
func TestBaselineLandscape(t *testing.T) {
	c := srchSpace()
	def := landscapeDefault(c)
	st, err := store.Open(filepath.Join(t.TempDir(), "tuning.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ev := &landscape{c: c, fixed: map[int]float64{def: landscapeDefaultMs}, st: st}
	out, err := Run(context.Background(), c, halving{}, ev, Options{Seed: 1, Budget: Budget{Evals: 20}})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.Rows(store.Filter{OnlyOK: true})
	if err != nil {
		t.Fatal(err)
	}
	screened := 0
	for _, r := range rows {
		if r.Runs < sessionRuns && r.MedianMs < landscapeDefaultMs {
			screened++
		}
	}
	if screened == 0 || out.Best == def || out.Score <= landscapeDefaultMs || slices.ContainsFunc(ev.calls, func(sc srchCall) bool { return sc.i == def }) {
		t.Errorf("landscape: %d lucky short rows, best %d (%.4f ms); default measured: %v", screened, out.Best, out.Score,
			slices.ContainsFunc(ev.calls, func(sc srchCall) bool { return sc.i == def }))
	}
}

// With adds plans as fixed points: on the plan axis a space of generated
// points lacks (the points so far get -1 there), once each, culled against
// the target; a plan already in the space keeps its index.
func TestSpaceWith(t *testing.T) {
	sf, err := ParseSpace([]byte(`name: gen
classes: [1]
strategies:
  - {iterator: edge, intersection: merge, block: [128, 256]}
`), "gen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sf.Expand(gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	polak, _ := ir.Preset("polak")
	bad := polak.Clone()
	bad.Classes[0].Block = 7 // not a multiple of the warp
	n, dims := len(sp.Plans), len(sp.Cands.Dims)
	out, at := sp.With([]ir.Plan{sp.Plans[1], polak, bad, polak}, []string{"again", "polak", "bad", "polak twice"}, gen.DefaultTarget())
	if !slices.Equal(at, []int{1, n, -1, n}) || len(out.Plans) != n+1 || out.Labels[n] != "polak" || out.Cands.Plans[n] != polak.Name() {
		t.Fatalf("at %v, %d plans, labels %v", at, len(out.Plans), out.Labels)
	}
	if len(out.Cands.Dims) != dims+1 || out.Cands.Dims[dims].Name != "plan" || !slices.Equal(out.Cands.Dims[dims].Values, []string{"polak"}) {
		t.Errorf("dims %+v", out.Cands.Dims)
	}
	for i, p := range out.Cands.Points {
		if len(p) != dims+1 || (i < n) != (p[dims] == -1) {
			t.Errorf("point %d: %v", i, p)
		}
	}
	if len(sp.Plans) != n || len(sp.Cands.Dims) != dims || len(sp.Cands.Points[0]) != dims {
		t.Error("With changed the space it was called on")
	}
	// A space with fixed plans: the plan axis gets another value.
	sf, err = ParseSpace([]byte("name: fixed\nplans: [preset:trust]\n"), "fixed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sp, err = sf.Expand(gen.DefaultTarget()); err != nil {
		t.Fatal(err)
	}
	out, at = sp.With([]ir.Plan{polak}, []string{"polak"}, gen.DefaultTarget())
	d := out.Cands.Dims[out.lay.plan]
	if !slices.Equal(at, []int{1}) || len(out.Cands.Dims) != len(sp.Cands.Dims) || !slices.Equal(d.Values, []string{"preset:trust", "polak"}) ||
		out.Labels[1] != "polak" || out.label(out.Cands.Points[1]) != "polak" {
		t.Errorf("at %v, plan axis %v, labels %v", at, d.Values, out.Labels)
	}
}
