package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"strings"
	"testing"
)

// testTrace is a search of 12 evaluations: a baseline first, screenings,
// a failure, a store answer, three new bests, and a final round.
func testTrace() TuneTrace {
	ms := []float64{5, 9, 7, 0, 4.5, 6, 4.2, 8, 4.2, 3.9, 12, 4.0}
	var evals []TuneEval
	for i, v := range ms {
		e := TuneEval{N: i + 1, Plan: "p_" + strconv.Itoa(i), Label: "point " + strconv.Itoa(i), Runs: 10, Full: true,
			OK: v > 0, MedianMs: v, Seconds: 0.5 + float64(i)/10}
		switch {
		case i == 0:
			e.Baseline, e.Label = true, "spec:default.yaml"
		case i == 3:
			e.Reason, e.MedianMs = "counted 7 triangles, the reference is 6", 0
		case i == 1 || i == 2:
			e.Runs, e.Full = 1, false
		case i == 8:
			e.Cached, e.Seconds = true, 0
		}
		if e.OK && e.Full {
			e.CILoMs, e.CIHiMs = v*0.98, v*1.03
		}
		evals = append(evals, e)
	}
	return TuneTrace{Title: "tcgen tune rmat20", Command: "tcgen tune rmat20 --strategy tpe", Graph: "rmat20", GPU: "NVIDIA H200",
		Space: "default", Strategy: "tpe", Runs: 10, SecondsNote: "test seconds", Evals: evals,
		Final: &TuneFinal{Plan: "p_9", Label: "point 9", Ms: 3.95, CILoMs: 3.9, CIHiMs: 4.0}}
}

func TestWriteTune(t *testing.T) {
	dir := t.TempDir()
	tr := testTrace()
	if err := WriteTune(dir, tr); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(readFile(t, dir, fileTrace))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(tr.Evals)+1 || strings.Join(recs[0], ",") != strings.Join(traceHeader, ",") {
		t.Fatalf("trace.csv: %d records, header %v", len(recs), recs[0])
	}
	col := map[string]int{}
	for i, h := range traceHeader {
		col[h] = i
	}
	best, total := math.Inf(1), 0.0
	for i, rec := range recs[1:] {
		e := tr.Evals[i]
		total += e.Seconds
		if e.OK && e.Full {
			best = min(best, e.MedianMs)
		}
		got, _ := strconv.ParseFloat(rec[col["gpu_seconds_total"]], 64)
		if math.Abs(got-total) > 1e-3 {
			t.Errorf("evaluation %d: %v GPU seconds in all, want %v", e.N, got, total)
		}
		want := ""
		if !math.IsInf(best, 1) {
			want = strconv.FormatFloat(best, 'g', -1, 64)
		}
		if rec[col["best_ms"]] != want {
			t.Errorf("evaluation %d: best %q, want %q", e.N, rec[col["best_ms"]], want)
		}
		if (rec[col["status"]] == "ok") != e.OK || rec[col["cached"]] != strconv.FormatBool(e.Cached) {
			t.Errorf("evaluation %d: %v", e.N, rec)
		}
	}

	doc := parseSVG(t, fileBestSoFar, readFile(t, dir, fileBestSoFar))
	doc.checkInside(t, fileBestSoFar)
	for _, s := range []string{"Best so far against evaluations", "Best so far against GPU seconds",
		"GPU seconds spent (test seconds)", "evaluation", "best so far (full passes)",
		"evaluation, fewer passes (screening)", "failed (wrong count, compile, launch)",
		"measured first: spec:default.yaml, 5.000 ms", "finalists' winner, interleaved: 3.950 ms"} {
		if !doc.has(s) {
			t.Errorf("best-so-far.svg: no text %q", s)
		}
	}
	// New bests at evaluations 1, 5, 7 and 10, each with its interval, in
	// both panels; and the final winner's.
	if n := doc.count(whiskerStyle); n < 2*(4+1)*3 {
		t.Errorf("%d whisker lines, want %d", n, 2*5*3)
	}

	md := string(readFile(t, dir, fileMD))
	for _, s := range []string{"# tcgen tune rmat20", "12 evaluations (1 from the store, 1 failed)",
		"| 1 | 0.5 | 5.000 | 4.900–5.150 | spec:default.yaml (`p_0`), measured first (what count runs untuned) |",
		"| 10 | 8.2 | 3.900 |", "![best so far against evaluations and GPU seconds](best-so-far.svg)",
		"**point 9** (`p_9`) won with 3.950 ms (95% CI 3.900–4.000)"} {
		if !strings.Contains(md, s) {
			t.Errorf("report.md lacks %q:\n%s", s, md)
		}
	}
	if strings.Count(md, "\n| ") != 2+4 {
		t.Errorf("new-bests table:\n%s", md)
	}
}

// TestWriteTuneAllFailed: no evaluation counted right: no plot, and the
// report says so by its empty table.
func TestWriteTuneAllFailed(t *testing.T) {
	tr := testTrace()
	for i := range tr.Evals {
		tr.Evals[i].OK = false
	}
	tr.Final = nil
	dir := t.TempDir()
	if err := WriteTune(dir, tr); err != nil {
		t.Fatal(err)
	}
	if md := string(readFile(t, dir, fileMD)); strings.Contains(md, ".svg") || !strings.Contains(md, "12 failed") {
		t.Errorf("report.md:\n%s", md)
	}
}

func TestLinTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{
		{0.5, 25, "5 10 15 20 25"},
		{0, 53.1, "0 10 20 30 40 50"},
		{0, 0.9, "0 0.2 0.4 0.6 0.8"},
		{3, 3, ""},
	} {
		var got []string
		for _, tk := range (linTicks{}).Ticks(tc.lo, tc.hi) {
			got = append(got, tk.Label)
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("[%v, %v]: ticks %q, want %q", tc.lo, tc.hi, s, tc.want)
		}
	}
}
