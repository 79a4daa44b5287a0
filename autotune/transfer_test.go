package autotune

import (
	"slices"
	"testing"

	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/store"
)

// transferRecording is the transfer sweep (examples/sweeps/transfer.yaml:
// the model space's 25 plans on 110 graphs of ten families), recorded by
// scripts/gpu-transfer.sh on four NVIDIA H100 80GB HBM3.
const transferRecording = "testdata/transfer-nvidia-h100.jsonl.gz"

// defaultPlanName is the built-in default plan's name, the model's
// fallback where it is not confident.
func defaultPlanName(t *testing.T) string {
	t.Helper()
	p, err := examples.Default()
	if err != nil {
		t.Fatal(err)
	}
	return p.Name()
}

// TestLeaveOneFamilyOut is issue 22's bar for a model that transfers: with
// each family left out in turn, on the graphs of 0.1 ms or more, the
// model's plan is at most 1.10x the tuned best at the median and 1.5x at
// worst, and better than the best fixed plan (chosen knowing every graph).
// The recording must hold this build's default plan: a changed default.yaml
// needs a new recording (scripts/gpu-transfer.sh).
func TestLeaveOneFamilyOut(t *testing.T) {
	rows, byName := readRecording(t, transferRecording)
	def := defaultPlanName(t)
	families := map[string]int{}
	for name, rs := range byName {
		families[Family(name)]++
		if !slices.ContainsFunc(rs, func(r store.Row) bool { return r.Plan == def }) {
			t.Fatalf("%s: no row of the default plan %s; default.yaml changed since the recording: make it again (scripts/gpu-transfer.sh)", name, def)
		}
	}
	if len(byName) < 100 || len(families) < 8 {
		t.Fatalf("%d graphs of %d families, want at least 100 of 8: %v", len(byName), len(families), families)
	}
	rep := LeaveOneFamilyOut(rows, DefaultK, def)
	for _, r := range rep.Rows {
		if r.BestMs >= JudgedMinMs && (r.Ratio > 1.1 || r.Fallback) {
			t.Logf("%-36s %-5s %-22s distance %5.2f fallback %-5v %.3f ms, best %s %.3f ms: %.3fx", r.Graph, r.Family, r.Predicted, r.Distance, r.Fallback, r.PredictedMs, r.BestPlan, r.BestMs, r.Ratio)
		}
	}
	t.Logf("%d graphs judged: model median %.3f, p90 %.3f, geomean %.3f, worst %.3f; fixed %s median %.3f, p90 %.3f, geomean %.3f, worst %.3f",
		rep.Graphs, rep.Median, rep.P90, rep.Geomean, rep.Worst, rep.FixedPlan, rep.FixedMedian, rep.FixedP90, rep.FixedGeo, rep.FixedWorst)
	if rep.Graphs < 50 {
		t.Errorf("%d graphs of 0.1 ms or more judged, want 50", rep.Graphs)
	}
	if rep.Median > 1.10 || rep.Worst > 1.5 {
		t.Errorf("median %.3f, worst %.3f: want at most 1.10 and 1.5", rep.Median, rep.Worst)
	}
	if rep.Geomean >= rep.FixedGeo || rep.Worst >= rep.FixedWorst {
		t.Errorf("geomean %.3f, worst %.3f: not better than the fixed plan's %.3f and %.3f", rep.Geomean, rep.Worst, rep.FixedGeo, rep.FixedWorst)
	}
}

// Without the locality feature the model cannot tell the dense geometric
// and small-world graphs, where the bit-wise intersection wins, from
// uniform random ones: a model of the features before AdjWords misses
// the bar (so the test above measures the features, not luck).
func TestLeaveOneFamilyOutNeedsLocality(t *testing.T) {
	rows, _ := readRecording(t, transferRecording)
	for i := range rows {
		rows[i].Features.AdjWords = 0
	}
	rep := LeaveOneFamilyOut(rows, DefaultK, defaultPlanName(t))
	if rep.Worst <= 1.5 {
		t.Errorf("without locality: worst %.3f, want above 1.5", rep.Worst)
	}
}
