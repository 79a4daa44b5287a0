package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/store"
)

// TestMeasurementColumns: results.csv and report.md carry what the timing
// routine reports beside the median: the 95% interval of the median from
// the row's passes, and whether the L2 was flushed before each pass.
func TestMeasurementColumns(t *testing.T) {
	row := func(plan string, flushed bool) store.Row {
		return store.Row{Graph: "fp", GraphName: "g", GPU: "h100", GPUName: "NVIDIA H100", Plan: plan,
			Status: store.StatusOK, Triangles: 1, Reference: 1, Flushed: flushed, Runs: 10,
			Samples: []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, MedianMs: 5.5, MinMs: 1, MaxMs: 10}
	}
	dir := t.TempDir()
	if err := Write(dir, []store.Row{row("a", true), row("b", true)}, Options{}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(readFile(t, dir, fileCSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, rec := range recs[1:] {
		// n = 10: the 2nd and 9th smallest passes.
		if rec[col["ci_lo_ms"]] != "2" || rec[col["ci_hi_ms"]] != "9" || rec[col["flushed_l2"]] != "true" {
			t.Errorf("%s: ci %s-%s, flushed %s; want 2-9, true", rec[col["plan"]], rec[col["ci_lo_ms"]], rec[col["ci_hi_ms"]], rec[col["flushed_l2"]])
		}
	}
	if md := string(readFile(t, dir, fileMD)); !strings.Contains(md, "in ms (4 significant digits), the L2 flushed before each pass;") {
		t.Errorf("report.md does not say the L2 was flushed:\n%s", md)
	}
	if err := Write(dir, []store.Row{row("a", true), row("b", false)}, Options{}); err != nil {
		t.Fatal(err)
	}
	if md := string(readFile(t, dir, fileMD)); !strings.Contains(md, "the L2 flushed before each pass in 1 of 2 measurements") {
		t.Errorf("report.md does not say which rows flushed:\n%s", md)
	}
}
