package autotune

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/store"
)

func replayTestSpace() *Candidates {
	return &Candidates{
		Name:   "tiny",
		Dims:   []Dim{{Name: "x", Values: []string{"0", "1", "2"}, Ordered: true}},
		Points: []Point{{0}, {1}, {2}},
		Plans:  []string{"p0", "p1", "p2"},
	}
}

func TestReplay(t *testing.T) {
	c := replayTestSpace()
	rows := []store.Row{
		{Plan: "p2", Status: store.StatusOK, Samples: []float64{5, 1, 4, 2, 3}, MedianMs: 3, Runs: 5},
		{Plan: "p1", Status: store.StatusWrong, Reason: "count 7, want 6"},
		{Plan: "p0", Status: store.StatusOK, Samples: []float64{9, 9}, MedianMs: 9, Runs: 2},
		{Plan: "unrelated", Status: store.StatusOK, MedianMs: 0.1},
	}
	r, err := NewReplay(c, rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		i, runs int
		want    float64
	}{
		{2, 1, 5},
		{2, 2, 3},  // median of 5, 1: their mean
		{2, 3, 4},  // of 5, 1, 4
		{2, 4, 3},  // of 5, 1, 4, 2
		{2, 5, 3},  // all: the recorded median
		{2, 10, 3}, // more than recorded: still the recorded median
		{0, 10, 9},
	} {
		res, err := r.Evaluate(tc.i, tc.runs)
		if err != nil || !res.OK || res.Score != tc.want || tc.i == 2 && len(res.Samples) != min(tc.runs, len(rows[0].Samples)) {
			t.Errorf("Evaluate(%d, %d) = %+v, %v; want %v", tc.i, tc.runs, res, err, tc.want)
		}
	}
	res, err := r.Evaluate(1, 10)
	if err != nil || res.OK || !math.IsInf(res.Score, 1) || res.Reason != "wrong: count 7, want 6" {
		t.Errorf("failed row: %+v, %v", res, err)
	}
	if _, err := r.Evaluate(3, 1); err == nil {
		t.Error("no error for a candidate outside the space")
	}
	if i, s := r.Best(); i != 2 || s != 3 {
		t.Errorf("Best() = %d, %v", i, s)
	}
	// Evaluating a sample must not let the caller change the recording.
	res, _ = r.Evaluate(2, 5)
	res.Samples[0] = 100
	if res, _ := r.Evaluate(2, 1); res.Score != 5 {
		t.Error("recording changed through a result")
	}
}

func TestReplayMissingPlan(t *testing.T) {
	c := replayTestSpace()
	rows := []store.Row{{Plan: "p0", Status: store.StatusOK, MedianMs: 1}, {Plan: "p2", Status: store.StatusOK, MedianMs: 1}}
	_, err := NewReplay(c, rows)
	if err == nil || !strings.Contains(err.Error(), "p1") {
		t.Fatalf("err %v, want one naming p1", err)
	}
}

func TestReplayNothingOK(t *testing.T) {
	c := replayTestSpace()
	var rows []store.Row
	for _, p := range c.Plans {
		rows = append(rows, store.Row{Plan: p, Status: store.StatusCompile})
	}
	r, err := NewReplay(c, rows)
	if err != nil {
		t.Fatal(err)
	}
	if i, s := r.Best(); i != -1 || !math.IsInf(s, 1) {
		t.Fatalf("Best() = %d, %v", i, s)
	}
	out, err := Run(context.Background(), c, exhaustive{}, r, Options{})
	if err != nil || out.Best != -1 || out.Evals != 3 {
		t.Fatalf("%+v, %v", out, err)
	}
}
