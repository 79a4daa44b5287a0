package autotune

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/store"
)

// transferRecordings are the transfer sweep (examples/sweeps/transfer.yaml:
// the model space's 25 plans on 110 graphs of ten families), recorded by
// scripts/gpu-transfer.sh on four NVIDIA H200 and on one NVIDIA H100 80GB
// HBM3, each row with its GPU's facts.
var transferRecordings = []string{"testdata/transfer-nvidia-h100.jsonl.gz", "testdata/transfer-nvidia-h200.jsonl.gz"}

// readTransfer is the rows of every transfer recording, and the rows of
// each graph on each GPU (by "graph on GPU").
func readTransfer(t *testing.T) ([]store.Row, map[string][]store.Row) {
	t.Helper()
	var all []store.Row
	byPoint := map[string][]store.Row{}
	for _, f := range transferRecordings {
		rows, _ := readRecording(t, f)
		for _, r := range rows {
			if !RowGPU(r).Known() {
				t.Fatalf("%s: row %s on %s without its GPU's facts (store schema 5)", f, r.Plan, r.GraphName)
			}
			byPoint[r.GraphName+" on "+r.GPUName] = append(byPoint[r.GraphName+" on "+r.GPUName], r)
		}
		all = append(all, rows...)
	}
	def, err := examples.Default()
	if err != nil {
		t.Fatal(err)
	}
	for point, rs := range byPoint {
		if r, ok := sameVariantRow(t, def, rs); ok {
			byPoint[point] = append(rs, r)
			all = append(all, r)
		}
	}
	return all, byPoint
}

// sameVariantRow is the row of the default plan def among one graph's rows
// on one GPU where the recording predates def: an earlier default's row
// whose guard took, for this graph's recorded features, the same variant
// (classes, core, orientation) that def takes, so the same kernels ran.
// It is that row with def's name and spec; false when def was recorded or no
// earlier default ran the same variant (the graph then needs a new
// recording).
func sameVariantRow(t *testing.T, def ir.Plan, rs []store.Row) (store.Row, bool) {
	t.Helper()
	name := def.Name()
	if slices.ContainsFunc(rs, func(r store.Row) bool { return r.Plan == name }) {
		return store.Row{}, false
	}
	want, ok := takenVariant(def, rs[0].Features, rs[0].BandwidthGBs)
	if !ok {
		return store.Row{}, false
	}
	for _, r := range rs {
		if !strings.HasPrefix(r.Plan, def.Prefix+"_") {
			continue
		}
		old, err := ir.Parse([]byte(r.Spec), r.Plan)
		if err != nil {
			t.Fatalf("%s on %s: the recorded spec of %s: %v", r.GraphName, r.GPUName, r.Plan, err)
		}
		if got, ok := takenVariant(old, r.Features, r.BandwidthGBs); ok && got == want && r.Status == store.StatusOK {
			spec, err := def.Canonical().EncodeJSON()
			if err != nil {
				t.Fatal(err)
			}
			r.Plan, r.Spec, r.Code = name, string(spec), "" // the code hash was the old plan's
			return r, true
		}
	}
	return store.Row{}, false
}

// takenVariant is what a guarded plan runs on a graph with recorded
// features f on a GPU of dram GB/s: the plan's orientation and relabelling with the classes,
// core and orientation of the variant the guard takes (the executor's
// rule: the first variant whose range and conditions hold), as JSON.
func takenVariant(p ir.Plan, f graph.Features, dram float64) (string, bool) {
	p = p.Canonical() // parameters at their defaults spelled out, as a row's spec has them
	if p.Guard == nil || f.Edges == 0 || f.Vertices == 0 || f.DegreeMean == 0 {
		return "", false
	}
	e, n := float64(f.Edges), float64(f.Vertices)
	vals := map[string]float64{
		ir.FeatureAvgOutDeg: e / n,
		ir.FeatureAvgDegree: 2 * e / n,
		ir.FeatureMaxDegree: float64(f.DegreeMax),
		ir.FeatureMaxOutDeg: float64(f.OutDegreeMaxByDegree),
		ir.FeatureVertices:  n,
		ir.FeatureEdges:     e,
		ir.FeatureDegreeCV:  f.DegreeStddev / f.DegreeMean,
		ir.FeatureWedges:    float64(f.WedgesByDegree) / e,
		ir.FeatureDRAM:      dram,
	}
	if f.AdjWords > 0 { // recorded since AdjWords was
		vals[ir.FeatureWords] = float64(f.AdjWords) / (2 * e)
	}
	if p.Orientation != ir.OrientDegree {
		return "", false // out-degrees are recorded for the degree order
	}
	// A feature the recording lacks leaves the choice undecided.
	i, err := p.Guard.Choose(func(feature string) (float64, error) {
		x, ok := vals[feature]
		if !ok {
			return 0, errors.New("not recorded")
		}
		return x, nil
	})
	if err != nil {
		return "", false
	}
	v := p.Guard.Variants[i]
	b, err := json.Marshal(struct {
		Orientation, VariantOrientation ir.Orientation
		Relabel                         bool
		Output                          ir.Output
		Core                            int
		Classes                         []ir.Class
	}{p.Orientation, v.Orientation, p.Relabel, p.Output, v.Core, v.Classes})
	return string(b), err == nil
}

// checkBar is issue 22's bar for a model that transfers: on the graphs of
// 0.1 ms or more, the model's plan at most 1.10x the tuned best at the
// median and 1.5x at worst, and no worse than the best fixed plan (chosen
// knowing every graph), the default, in geometric mean and at its worst.
// The default takes the designs the model used to find (the bit slices,
// the tiled vertex merge, the tile-4 edge merge on skewed graphs), the
// model falls back on it for a family it has not seen, so that family's
// worst comes with it, and it keeps the default unless its neighbours
// found a plan DefaultMargin faster. So the two are equal within the
// recordings' spread (leave one family out: 1.006 both in geometric mean,
// the same worst), and the model is asked to
// be no worse, not strictly better. Both comparisons, and the worst's 1.5,
// allow recordingSpread.
//
// recordingSpread: one graph's ratio moves between two recordings of the
// same code (rmat16's default of the day, the same edge-merge class,
// 1.428x the best plan on one H100 recording and 1.500x on the next,
// 2026-11-27, on a graph of 0.2 ms); the bars allow 1%, so that a point at
// a bar's edge does not decide the test, and a real loss still does.
const recordingSpread = 1.01

func checkBar(t *testing.T, what string, rep LeaveOneOutReport, minGraphs int) {
	t.Helper()
	for _, r := range rep.Rows {
		if r.BestMs >= JudgedMinMs && (r.Ratio > 1.1 || r.Fallback) {
			t.Logf("%-36s %-5s %-22s %-22s distance %5.2f fallback %-5v %.3f ms, best %s %.3f ms: %.3fx", r.Graph, r.Family, r.GPU, r.Predicted, r.Distance, r.Fallback, r.PredictedMs, r.BestPlan, r.BestMs, r.Ratio)
		}
	}
	t.Logf("%s: %d graphs judged: model median %.3f, p90 %.3f, geomean %.3f, worst %.3f; fixed %s median %.3f, p90 %.3f, geomean %.3f, worst %.3f",
		what, rep.Graphs, rep.Median, rep.P90, rep.Geomean, rep.Worst, rep.FixedPlan, rep.FixedMedian, rep.FixedP90, rep.FixedGeo, rep.FixedWorst)
	if rep.Graphs < minGraphs {
		t.Errorf("%s: %d graphs of 0.1 ms or more judged, want %d", what, rep.Graphs, minGraphs)
	}
	if rep.Median > 1.10 || rep.Worst > 1.5*recordingSpread {
		t.Errorf("%s: median %.3f, worst %.3f: want at most 1.10 and %.3f", what, rep.Median, rep.Worst, 1.5*recordingSpread)
	}
	if rep.Geomean > rep.FixedGeo*recordingSpread || rep.Worst > rep.FixedWorst*recordingSpread {
		t.Errorf("%s: geomean %.3f, worst %.3f: worse than the fixed plan's %.3f and %.3f", what, rep.Geomean, rep.Worst, rep.FixedGeo, rep.FixedWorst)
	}
}

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

// TestLeaveOneFamilyOut: with each family left out in turn (on both GPUs),
// the model trained on the rest of both recordings meets the bar on every
// graph of 0.1 ms or more on either GPU. The recordings must hold this
// build's default plan on every graph, as its own row or as an earlier
// default's row that ran the same variant (sameVariantRow): a changed
// default.yaml needs new rows on the graphs whose variant changed
// (scripts/gpu-transfer.sh).
func TestLeaveOneFamilyOut(t *testing.T) {
	rows, byPoint := readTransfer(t)
	def := defaultPlanName(t)
	families, graphs := map[string]bool{}, map[string]bool{}
	for point, rs := range byPoint {
		families[Family(rs[0].GraphName)], graphs[rs[0].GraphName] = true, true
		if !slices.ContainsFunc(rs, func(r store.Row) bool { return r.Plan == def }) {
			t.Fatalf("%s: no row of the default plan %s; default.yaml changed since the recording: make it again (scripts/gpu-transfer.sh)", point, def)
		}
	}
	if len(graphs) < 100 || len(families) < 8 {
		t.Fatalf("%d graphs of %d families, want at least 100 of 8: %v", len(graphs), len(families), families)
	}
	checkBar(t, "leave one family out", LeaveOneFamilyOut(rows, DefaultK, def), 100)
}

// TestLeaveOneGPUOut: each GPU's graphs predicted from the other GPU's
// recording alone, placed by the GPUs' facts, meet the bar.
func TestLeaveOneGPUOut(t *testing.T) {
	rows, _ := readTransfer(t)
	rep := LeaveOneGPUOut(rows, DefaultK, defaultPlanName(t))
	checkBar(t, "leave one GPU out", rep, 100)
	for _, r := range rep.Rows {
		if r.Fallback {
			t.Errorf("%s on %s: not confident at distance %.2f, though the same graph was measured on the other GPU", r.Graph, r.GPU, r.Distance)
		}
	}
}
