package autotune

import (
	"math"
	"slices"
	"testing"
)

// scripted answers Interleave with fixed results and records what it was
// asked.
type scripted struct {
	res    map[int]Result
	asked  []int
	rounds int
}

func (s *scripted) Interleave(is []int, rounds int) ([]Result, error) {
	s.asked, s.rounds = is, rounds
	var out []Result
	for _, i := range is {
		out = append(out, s.res[i])
	}
	return out, nil
}

func TestRemeasure(t *testing.T) {
	ok := func(ms float64) Result { return Result{OK: true, Score: ms, Samples: []float64{ms}} }
	out := Outcome{Best: 4, Score: 0.5, Trials: []Trial{
		{Index: 1, Runs: 5, Result: ok(2)},
		{Index: 2, Runs: 2, Result: ok(0.1)}, // a lower rung: never a finalist
		{Index: 3, Runs: 5, Result: Result{Score: math.Inf(1)}},
		{Index: 4, Runs: 5, Result: ok(0.5)},
		{Index: 5, Runs: 5, Result: ok(1)},
		{Index: 6, Runs: 5, Result: ok(3)},
	}}
	if got := Finalists(out, 5, 3); !slices.Equal(got, []int{4, 5, 1}) {
		t.Errorf("finalists %v, want [4 5 1]", got)
	}
	ev := &scripted{res: map[int]Result{4: ok(1.5), 5: ok(1.2), 1: {Score: math.Inf(1), Reason: "wrong"}}}
	f, err := Remeasure(ev, out, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ev.asked, []int{4, 5, 1}) || ev.rounds != 5 {
		t.Errorf("interleaved %v over %d rounds, want [4 5 1] over 5", ev.asked, ev.rounds)
	}
	if f.Best != 5 || f.Score != 1.2 || !f.Changed || len(f.Finalists) != 3 || f.Finalists[0].Search != 0.5 || f.Finalists[2].Result.OK {
		t.Errorf("final %+v, want 5 at 1.2 ms, changed", f)
	}
	// The search's best confirmed: unchanged.
	ev.res[4] = ok(1.0)
	if f, _ := Remeasure(ev, out, 5, 3); f.Best != 4 || f.Changed {
		t.Errorf("confirmed best: %+v", f)
	}
	// One finalist: nothing to compare, nothing measured.
	ev.asked = nil
	if f, _ := Remeasure(ev, out, 5, 1); f.Best != 4 || f.Score != 0.5 || len(f.Finalists) != 0 || ev.asked != nil {
		t.Errorf("one finalist: %+v, asked %v", f, ev.asked)
	}
}
