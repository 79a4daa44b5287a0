package main

import (
	"testing"
	"time"
)

// TestProgressLine: the status line says what is done, of how much, the
// rate and the time left; without a total, what is done and the rate;
// without progress, the time so far.
func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		desc, unit  string
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		{"reading g.txt", unitBytes, 1 << 30, 4 << 30, 2 * time.Second, "reading g.txt  1.0 GiB / 4.0 GiB (25%)  512.0 MiB/s  6s left"},
		{"reading -", unitBytes, 3 << 20, 0, 3 * time.Second, "reading -  3.0 MiB  1.0 MiB/s"},
		{"counting (CPU oracle)", "edges", 4_000_000, 16_000_000, time.Second, "counting (CPU oracle)  4.0 M / 16.0 M edges (25%)  4.0 M edges/s  3s left"},
		{"tuning", "evals", 7, 22, 14 * time.Second, "tuning  7 / 22 evals (31%)  0.5 evals/s  30s left"},
		{"sweep", "points", 0, 100, time.Second, "sweep  0 / 100 points (0%)"},
		{"generating", "", -1, 0, 2500 * time.Millisecond, "generating  3s"},
		{"fuzzing", "plans", 12_345, 20_000, 10 * time.Second, "fuzzing  12.3 k / 20.0 k plans (61%)  1234 plans/s  6s left"},
	} {
		if got := progressLine(c.desc, c.unit, c.done, c.total, c.elapsed); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
