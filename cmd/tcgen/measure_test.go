package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/store"
	"github.com/tcgen/tcgen/sweep"
)

// TestPrintCountMeasurement: a GPU count prints the timing routine's
// interval, passes, warm-ups and L2 flush under the median, and its JSON
// carries them as "measurement".
func TestPrintCountMeasurement(t *testing.T) {
	m := executor.Summarize([]float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, 3)
	m.FlushL2, m.FlushBytes = true, 100<<20
	r := &countResult{Graph: "g.tcsr", Backend: "gpu", Device: "GPU", GPUMs: m.MedianMs, GPUMinMs: m.MinMs, GPUMaxMs: m.MaxMs, Runs: 10, Measurement: &m}
	var out bytes.Buffer
	g := &Globals{stdout: &out}
	if err := printCount(g, false, r); err != nil {
		t.Fatal(err)
	}
	const want = "95% CI of the median 2.0000-9.0000, 10 runs after 3 warm-ups, L2 flushed before each pass (100 MiB written)"
	if !strings.Contains(out.String(), "5.5000 ms median (min 1.0000, max 10.0000)") || !strings.Contains(out.String(), want) {
		t.Errorf("output lacks the median or %q:\n%s", want, out.String())
	}
	out.Reset()
	if err := printCount(g, true, r); err != nil {
		t.Fatal(err)
	}
	var js struct {
		M map[string]any `json:"measurement"`
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]any{"passes": 10.0, "warmup": 3.0, "median_ms": 5.5, "ci_lo_ms": 2.0, "ci_hi_ms": 9.0, "ci_95": true, "flush_l2": true, "flush_bytes": float64(100 << 20)} {
		if js.M[k] != v {
			t.Errorf("measurement.%s = %v, want %v (%v)", k, js.M[k], v, js.M)
		}
	}
}

// TestPrintTuneMeasured: tune says how each candidate was measured.
func TestPrintTuneMeasured(t *testing.T) {
	var out bytes.Buffer
	r := tuneOutcome{Graph: "g", Passes: 10, Warmup: 3, FlushL2: true}
	if err := printTune(&out, false, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "measured  10 passes after 3 warm-ups per candidate, L2 flushed before each pass") {
		t.Errorf("output:\n%s", out.String())
	}
	out.Reset()
	if err := printTune(&out, true, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"flush_l2": true`) || !strings.Contains(out.String(), `"passes": 10`) {
		t.Errorf("JSON:\n%s", out.String())
	}
}

// TestSweepRowsFlushed: a sweep's report takes the store's rows of its own
// kind (flushed or not), and its command line says --flush-l2.
func TestSweepRowsFlushed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuning.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, fl := range []bool{false, true} {
		r := store.Row{Graph: "fp", GPU: "h100", Version: "v", Plan: "p", Code: "c", Status: store.StatusOK, Runs: 1,
			Samples: []float64{1}, MedianMs: 1, MinMs: 1, MaxMs: 1, Flushed: fl}
		if err := st.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	g := &Globals{Store: path}
	sp := &autotune.Space{Cands: autotune.Candidates{Name: "s", Plans: []string{"p"}}, Labels: []string{"p"}}
	for _, fl := range []bool{false, true} {
		c := &SweepCmd{SearchFlags: SearchFlags{Runs: 1, FlushL2: fl}}
		rows, err := c.rows(g, sp, nil, []string{"fp"}, "h100", "v")
		if err != nil || len(rows) != 1 || rows[0].Flushed != fl {
			t.Errorf("flush %v: rows %+v %v, want the one of its kind", fl, rows, err)
		}
		if cmd := c.reportOptions(&sweep.File{Name: "s"}, sp, "tcgen sweep s").Command; strings.HasSuffix(cmd, " --flush-l2") != fl {
			t.Errorf("flush %v: report command %q", fl, cmd)
		}
	}
}
