package autotune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// srchSpace is a small synthetic space shaped like a real one: two ordered
// axes, a categorical kind, and an ordered axis that applies to kind 2 only
// (-1 elsewhere); the corner a=7,b=5 is culled. 282 points.
func srchSpace() *Candidates {
	c := &Candidates{
		Name: "synthetic",
		Dims: []Dim{
			{Name: "a", Values: srchLabels(8), Ordered: true},
			{Name: "b", Values: srchLabels(6), Ordered: true},
			{Name: "kind", Values: []string{"x", "y", "z"}},
			{Name: "u", Values: srchLabels(4), Ordered: true},
		},
	}
	for a := range 8 {
		for b := range 6 {
			for kind := range 3 {
				us := []int{-1}
				if kind == 2 {
					us = []int{0, 1, 2, 3}
				}
				for _, u := range us {
					p := Point{a, b, kind, u}
					if a == 7 && b == 5 {
						c.Culled = append(c.Culled, Culled{Point: p, Reason: "too large"})
						continue
					}
					c.Points = append(c.Points, p)
					c.Plans = append(c.Plans, "plan-"+p.Key())
				}
			}
		}
	}
	return c
}

func srchLabels(n int) []string {
	var l []string
	for i := range n {
		l = append(l, fmt.Sprint(i))
	}
	return l
}

// srchTime is the smooth objective: a bowl in a and b whose centre moves a
// little with the kind, kind 2 the fastest at u=1; kind 1 fails at a=0
// (say, a wrong count). The optimum is unique: a=5, b=2, kind 2, u=1.
func srchTime(p Point) float64 {
	a, b, kind, u := float64(p[0]), float64(p[1]), p[2], p[3]
	if kind == 1 && p[0] == 0 {
		return math.Inf(1)
	}
	base := []float64{1.3, 1.0, 0.9}[kind]
	ca := []float64{4, 5, 5}[kind]
	t := base * (1 + 0.05*(a-ca)*(a-ca)) * (1 + 0.08*(b-2)*(b-2))
	if u >= 0 {
		t *= 1 + 0.1*float64((u-1)*(u-1))
	}
	return t
}

// srchOptimum is the index of the unique optimum of srchTime.
func srchOptimum(t *testing.T, c *Candidates) int {
	t.Helper()
	best := -1
	for i, p := range c.Points {
		if best < 0 || srchTime(p) < srchTime(c.Points[best]) {
			best = i
		}
	}
	if c.Points[best].Key() != "5,2,2,1" {
		t.Fatalf("optimum at %v", c.Points[best])
	}
	return best
}

type srchCall struct{ i, runs int }

// srchEval is a fake evaluator: srchTime, exact at any runs, recording
// every call; hook runs before each answer (to cancel, advance a clock or
// fail).
type srchEval struct {
	c     *Candidates
	calls []srchCall
	fail  bool // every candidate fails
	hook  func(n int) error
}

func (e *srchEval) Evaluate(i, runs int) (Result, error) {
	e.calls = append(e.calls, srchCall{i, runs})
	if e.hook != nil {
		if err := e.hook(len(e.calls)); err != nil {
			return Result{}, err
		}
	}
	v := srchTime(e.c.Points[i])
	if e.fail || math.IsInf(v, 1) {
		return Result{Score: math.Inf(1), Reason: "wrong count"}, nil
	}
	return Result{Score: v, OK: true, Samples: slices.Repeat([]float64{v}, runs)}, nil
}

func (e *srchEval) repeats() []srchCall {
	var dup []srchCall
	seen := map[srchCall]bool{}
	for _, c := range e.calls {
		if seen[c] {
			dup = append(dup, c)
		}
		seen[c] = true
	}
	return dup
}

func srchStrategy(t *testing.T, name string) Strategy {
	t.Helper()
	s, err := StrategyByName(name)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != name {
		t.Fatalf("StrategyByName(%q).Name() = %q", name, s.Name())
	}
	return s
}

func TestStrategyByName(t *testing.T) {
	want := []string{"exhaustive", "random", "coordinate", "halving", "tpe"}
	if got := StrategyNames(); !slices.Equal(got, want) {
		t.Fatalf("StrategyNames() = %v", got)
	}
	_, err := StrategyByName("annealing")
	if err == nil || !strings.Contains(err.Error(), "coordinate") {
		t.Fatalf("unknown strategy: err %v, want the names listed", err)
	}
}

// Every strategy, with no budget, measures each point once per fidelity,
// ends exhausted and finds the optimum.
func TestStrategiesExhaust(t *testing.T) {
	c := srchSpace()
	opt := srchOptimum(t, c)
	for _, name := range StrategyNames() {
		t.Run(name, func(t *testing.T) {
			ev := &srchEval{c: c}
			out, err := Run(context.Background(), c, srchStrategy(t, name), ev, Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if d := ev.repeats(); len(d) > 0 {
				t.Errorf("measured again: %v", d)
			}
			if out.Stopped != StopExhausted || out.Best != opt || out.Score != srchTime(c.Points[opt]) {
				t.Errorf("stopped %q best %d (%v), want exhausted %d", out.Stopped, out.Best, out.Score, opt)
			}
			seen := map[int]bool{}
			for _, call := range ev.calls {
				if call.i < 0 || call.i >= len(c.Points) {
					t.Fatalf("evaluated index %d", call.i)
				}
				seen[call.i] = true
			}
			if len(seen) != len(c.Points) {
				t.Errorf("saw %d of %d points", len(seen), len(c.Points))
			}
			if out.Evals != len(ev.calls) || len(out.Trials) != out.Evals {
				t.Errorf("evals %d, trials %d, calls %d", out.Evals, len(out.Trials), len(ev.calls))
			}
		})
	}
}

// The guided strategies find the optimum of the easy space well before
// measuring all of it.
func TestStrategiesFindOptimum(t *testing.T) {
	c := srchSpace()
	opt := srchOptimum(t, c)
	budget := map[string]int{"coordinate": 30, "tpe": 60, "halving": 90}
	for name, evals := range budget {
		t.Run(name, func(t *testing.T) {
			for seed := range uint64(5) {
				ev := &srchEval{c: c}
				out, err := Run(context.Background(), c, srchStrategy(t, name), ev, Options{Seed: seed, Budget: Budget{Evals: evals}})
				if err != nil {
					t.Fatal(err)
				}
				if out.Best != opt {
					t.Errorf("seed %d: best %v (%.3f) after %d evaluations, want %v", seed, c.Points[max(out.Best, 0)], out.Score, out.Evals, c.Points[opt])
				}
			}
		})
	}
}

func TestBudgetEvals(t *testing.T) {
	c := srchSpace()
	for _, name := range StrategyNames() {
		t.Run(name, func(t *testing.T) {
			var seen []int
			ev := &srchEval{c: c}
			out, err := Run(context.Background(), c, srchStrategy(t, name), ev, Options{
				Seed: 3, Budget: Budget{Evals: 17},
				Observe: func(tr Trial) { seen = append(seen, tr.N) },
			})
			if err != nil {
				t.Fatal(err)
			}
			if out.Stopped != StopEvals || out.Evals != 17 || len(ev.calls) != 17 || len(out.Trials) != 17 {
				t.Fatalf("stopped %q after %d evaluations (%d calls, %d trials), want 17", out.Stopped, out.Evals, len(ev.calls), len(out.Trials))
			}
			for k, n := range seen {
				if n != k+1 || out.Trials[k].N != n {
					t.Fatalf("observed evaluation numbers %v", seen)
				}
			}
			if name != "halving" && out.Best < 0 {
				t.Error("no best after 17 evaluations")
			}
		})
	}
}

// Halving plans its brackets to fit the evaluations, so even a small
// budget ends with a full-fidelity best.
func TestHalvingSmallBudget(t *testing.T) {
	c := srchSpace()
	for _, evals := range []int{1, 2, 5, 9, 12, 30} {
		out, err := Run(context.Background(), c, halving{}, &srchEval{c: c}, Options{Seed: 2, Budget: Budget{Evals: evals}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Best < 0 || out.Evals != evals {
			t.Errorf("evals %d: best %d after %d", evals, out.Best, out.Evals)
		}
	}
}

func TestBudgetPatience(t *testing.T) {
	c := srchSpace()
	const patience = 12
	for _, name := range StrategyNames() {
		t.Run(name, func(t *testing.T) {
			ev := &srchEval{c: c}
			out, err := Run(context.Background(), c, srchStrategy(t, name), ev, Options{Seed: 4, Budget: Budget{Patience: patience}})
			if err != nil {
				t.Fatal(err)
			}
			// Count the full-fidelity trials after the last improvement.
			best, stale := math.Inf(1), 0
			for _, tr := range out.Trials {
				if tr.Runs != 10 {
					continue
				}
				if tr.Result.OK && tr.Result.Score < best {
					best, stale = tr.Result.Score, 0
				} else {
					stale++
				}
			}
			if out.Stopped == StopExhausted {
				t.Fatalf("exhausted the space with patience %d", patience)
			}
			if out.Stopped != StopPatience || stale != patience {
				t.Fatalf("stopped %q with %d stale evaluations, want patience after %d", out.Stopped, stale, patience)
			}
		})
	}
	// Exhaustive from the optimum: the optimum, then exactly patience more.
	opt := srchOptimum(t, c)
	out, _ := Run(context.Background(), c, exhaustive{}, &srchEval{c: c}, Options{Start: []int{opt}, Budget: Budget{Patience: patience}})
	if out.Evals != 1+patience || out.Best != opt || out.Trials[0].Index != opt {
		t.Errorf("exhaustive from the optimum: %d evaluations, best %d", out.Evals, out.Best)
	}
}

func TestBudgetTime(t *testing.T) {
	c := srchSpace()
	for _, name := range StrategyNames() {
		t.Run(name, func(t *testing.T) {
			clock := time.Unix(0, 0)
			ev := &srchEval{c: c, hook: func(int) error { clock = clock.Add(time.Second); return nil }}
			out, err := runSession(context.Background(), c, srchStrategy(t, name), ev,
				Options{Seed: 5, Budget: Budget{Time: 10 * time.Second}}, func() time.Time { return clock })
			if err != nil {
				t.Fatal(err)
			}
			if out.Stopped != StopTime || out.Evals != 10 {
				t.Fatalf("stopped %q after %d evaluations, want time after 10", out.Stopped, out.Evals)
			}
			if e := out.Trials[9].Elapsed; e != 10*time.Second {
				t.Errorf("last trial elapsed %v", e)
			}
		})
	}
}

func TestAllFail(t *testing.T) {
	c := srchSpace()
	for _, name := range StrategyNames() {
		t.Run(name, func(t *testing.T) {
			ev := &srchEval{c: c, fail: true}
			out, err := Run(context.Background(), c, srchStrategy(t, name), ev, Options{Seed: 6})
			if err != nil {
				t.Fatal(err)
			}
			// A failure is final, so each point is measured exactly once.
			if out.Best != -1 || !math.IsInf(out.Score, 1) || out.Stopped != StopExhausted || out.Evals != len(c.Points) {
				t.Fatalf("best %d (%v), stopped %q after %d evaluations of %d points", out.Best, out.Score, out.Stopped, out.Evals, len(c.Points))
			}
		})
	}
}

func TestInterrupted(t *testing.T) {
	c := srchSpace()
	for _, name := range StrategyNames() {
		for _, during := range []bool{false, true} {
			t.Run(fmt.Sprint(name, "/during=", during), func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				// Cancelled between evaluations (after the 5th), or during the
				// 6th, which the evaluator abandons with the context's error.
				ev := &srchEval{c: c, hook: func(n int) error {
					if !during && n == 5 {
						cancel()
					}
					if during && n == 6 {
						cancel()
						return ctx.Err()
					}
					return nil
				}}
				var observed int
				out, err := Run(ctx, c, srchStrategy(t, name), ev, Options{Seed: 7, Observe: func(Trial) { observed++ }})
				if err != nil {
					t.Fatalf("err %v, want none", err)
				}
				if out.Stopped != StopInterrupted || len(out.Trials) != 5 || observed != 5 || out.Evals != 5 {
					t.Fatalf("stopped %q with %d trials (%d observed)", out.Stopped, len(out.Trials), observed)
				}
			})
		}
	}
}

func TestEvaluatorError(t *testing.T) {
	c := srchSpace()
	gpuLost := errors.New("GPU lost")
	ev := &srchEval{c: c, hook: func(n int) error {
		if n == 4 {
			return gpuLost
		}
		return nil
	}}
	out, err := Run(context.Background(), c, randomSearch{}, ev, Options{})
	if !errors.Is(err, gpuLost) || out.Stopped != StopError || len(out.Trials) != 3 || out.Best < 0 {
		t.Fatalf("err %v, stopped %q, %d trials, best %d", err, out.Stopped, len(out.Trials), out.Best)
	}
}

func TestSessionMemo(t *testing.T) {
	c := srchSpace()
	ev := &srchEval{c: c}
	failing := slices.IndexFunc(c.Points, func(p Point) bool { return math.IsInf(srchTime(p), 1) })
	if failing <= 3 {
		failing = 3 + slices.IndexFunc(c.Points[3:], func(p Point) bool { return math.IsInf(srchTime(p), 1) })
	}
	probe := srchFunc(func(s *Session) error {
		steps := []struct {
			i, runs int
			cached  bool
		}{
			{0, 1, false},
			{0, 1, true},  // same fidelity: memory
			{0, 3, false}, // more passes: measured
			{0, 2, true},  // fewer than known: memory
			{0, 10, false},
			{0, 5, true}, // full answers lower
			{0, 99, true},
			{2, 3, false},
			{failing, 1, false},
			{failing, 10, true}, // a failure is final
		}
		for _, st := range steps {
			r, ok := s.EvalRuns(st.i, st.runs)
			if !ok || r.Cached != st.cached {
				return fmt.Errorf("EvalRuns(%d, %d): ok %v cached %v", st.i, st.runs, ok, r.Cached)
			}
		}
		// Only full-fidelity results make a best.
		if b, _ := s.Best(); b != 0 {
			return fmt.Errorf("best %d", b)
		}
		if !s.Seen(2) || s.Seen(3) {
			return errors.New("Seen wrong")
		}
		return nil
	})
	out, err := Run(context.Background(), c, probe, ev, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []srchCall{{0, 1}, {0, 3}, {0, 10}, {2, 3}, {failing, 1}}
	if !slices.Equal(ev.calls, want) || out.Evals != len(want) || out.Best != 0 {
		t.Fatalf("calls %v, evals %d, best %d", ev.calls, out.Evals, out.Best)
	}
}

func TestSessionBadIndex(t *testing.T) {
	c := srchSpace()
	bad := srchFunc(func(s *Session) error {
		if _, ok := s.Eval(len(c.Points)); ok {
			return errors.New("evaluated outside the space")
		}
		return nil
	})
	if _, err := Run(context.Background(), c, bad, &srchEval{c: c}, Options{}); err == nil {
		t.Fatal("no error for an index outside the space")
	}
}

func TestStartFirst(t *testing.T) {
	c := srchSpace()
	start := []int{200, 7, 200, -3, 100000}
	for _, name := range StrategyNames() {
		ev := &srchEval{c: c}
		if _, err := Run(context.Background(), c, srchStrategy(t, name), ev, Options{Seed: 8, Start: start, Budget: Budget{Evals: 20}}); err != nil {
			t.Fatal(err)
		}
		if ev.calls[0].i != 200 || ev.calls[1].i != 7 {
			t.Errorf("%s: began with %v, want 200 then 7", name, ev.calls[:2])
		}
	}
}

type prefetchEval struct {
	srchEval
	hints [][]int
}

func (e *prefetchEval) Prefetch(is []int) { e.hints = append(e.hints, slices.Clone(is)) }

// Every strategy hints what it will measure; never a measured point.
func TestPrefetch(t *testing.T) {
	c := srchSpace()
	for _, name := range StrategyNames() {
		ev := &prefetchEval{srchEval: srchEval{c: c}}
		if _, err := Run(context.Background(), c, srchStrategy(t, name), ev, Options{Seed: 9, Budget: Budget{Evals: 30}}); err != nil {
			t.Fatal(err)
		}
		if len(ev.hints) == 0 {
			t.Errorf("%s: no prefetch hints", name)
		}
	}
}

type parallelEval struct {
	prefetchEval
	n int
}

func (e *parallelEval) Parallel() int { return e.n }

// An in-order strategy hints twice as many candidates ahead as the
// evaluator compiles at once (at least 2 x strategyAhead), in chunks of
// that many, each chunk one ahead of what is measured.
func TestPrefetchParallel(t *testing.T) {
	c := srchSpace()
	for _, n := range []int{1, 16} {
		ev := &parallelEval{prefetchEval: prefetchEval{srchEval: srchEval{c: c}}, n: n}
		if _, err := Run(context.Background(), c, srchStrategy(t, "exhaustive"), ev, Options{Budget: Budget{Evals: 40}}); err != nil {
			t.Fatal(err)
		}
		ahead := max(n, strategyAhead)
		if len(ev.hints) < 2 || len(ev.hints[0]) != 2*ahead || len(ev.hints[1]) != ahead || ev.hints[1][0] != 2*ahead {
			t.Errorf("%d at once: hints %v, want %d first, then chunks of %d from %d", n, ev.hints[:min(2, len(ev.hints))], 2*ahead, ahead, 2*ahead)
		}
	}
}

func TestEmptySpace(t *testing.T) {
	c := &Candidates{Name: "empty"}
	for _, name := range StrategyNames() {
		out, err := Run(context.Background(), c, srchStrategy(t, name), &srchEval{c: c}, Options{})
		if err != nil || out.Best != -1 || out.Stopped != StopExhausted {
			t.Errorf("%s: %+v, %v", name, out, err)
		}
	}
}

type srchFunc func(*Session) error

func (srchFunc) Name() string              { return "probe" }
func (f srchFunc) Search(s *Session) error { return f(s) }
