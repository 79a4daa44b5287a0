package report

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"strconv"
)

// TuneEval is one evaluation of a tune, in the order the search made it.
type TuneEval struct {
	N        int    // evaluation number, 1-based
	Plan     string // plan name
	Label    string // the point's label
	Runs     int    // timed passes it was measured with
	Full     bool   // measured with the tune's full passes: it may be the best
	OK       bool   // counted right and timed
	Reason   string // why it failed
	Cached   bool   // answered from the tuning store: no GPU time
	Baseline bool   // a plan count runs untuned, measured first
	MedianMs float64
	// CILoMs, CIHiMs are the median's 95% interval (0: fewer passes than
	// give one).
	CILoMs, CIHiMs float64
	Seconds        float64 // GPU seconds it cost (TuneTrace.SecondsNote says how counted)
}

// TuneFinal is the finalists' interleaved winner.
type TuneFinal struct {
	Plan, Label        string
	Ms, CILoMs, CIHiMs float64
}

// TuneTrace is what `tcgen tune --report` draws: every evaluation of a
// search and what it cost.
type TuneTrace struct {
	Title, Command string
	Graph, GPU     string
	Space          string
	Strategy       string
	Runs           int    // the full passes of an evaluation
	SecondsNote    string // how TuneEval.Seconds was counted
	Evals          []TuneEval
	Final          *TuneFinal // nil: no interleaved round
}

// Files WriteTune writes.
const (
	fileTrace     = "trace.csv"
	fileBestSoFar = "best-so-far.svg"
)

// tunePoint is an evaluation with what the search knew after it.
type tunePoint struct {
	TuneEval
	gpuSeconds float64 // spent up to and including it
	bestMs     float64 // best full-fidelity median so far; +Inf before one
	bestPlan   string
	newBest    bool // it made the best
}

// tunePoints runs the trace: cumulative GPU seconds and best so far.
func tunePoints(evals []TuneEval) []tunePoint {
	out := make([]tunePoint, len(evals))
	sec, best, plan := 0.0, math.Inf(1), ""
	for i, e := range evals {
		sec += e.Seconds
		nb := e.OK && e.Full && e.MedianMs < best
		if nb {
			best, plan = e.MedianMs, e.Plan
		}
		out[i] = tunePoint{TuneEval: e, gpuSeconds: sec, bestMs: best, bestPlan: plan, newBest: nb}
	}
	return out
}

// WriteTune writes trace.csv, best-so-far.svg and report.md into dir, each
// through a temporary file and rename.
func WriteTune(dir string, t TuneTrace) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %s: %w", dir, err)
	}
	pts := tunePoints(t.Evals)
	data, err := tuneCSV(pts)
	if err != nil {
		return fmt.Errorf("report: %s: %w", fileTrace, err)
	}
	if err := writeAtomic(dir, fileTrace, data); err != nil {
		return err
	}
	svg, err := renderSafely(func() ([]byte, error) { return tuneSVG(t, pts) })
	if err != nil {
		return fmt.Errorf("report: %s: %w", fileBestSoFar, err)
	}
	if svg != nil {
		if err := writeAtomic(dir, fileBestSoFar, svg); err != nil {
			return err
		}
	}
	return writeAtomic(dir, fileMD, tuneMarkdown(t, pts, svg != nil))
}

var traceHeader = []string{"n", "plan", "label", "runs", "full", "status", "reason", "cached", "baseline",
	"median_ms", "ci_lo_ms", "ci_hi_ms", "gpu_seconds", "gpu_seconds_total", "best_ms", "best_plan"}

func tuneCSV(pts []tunePoint) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(traceHeader); err != nil {
		return nil, err
	}
	f := func(v float64) string {
		if v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for _, p := range pts {
		status, med := "ok", f(p.MedianMs)
		if !p.OK {
			status, med = "failed", ""
		}
		rec := []string{strconv.Itoa(p.N), p.Plan, p.Label, strconv.Itoa(p.Runs), strconv.FormatBool(p.Full),
			status, oneLine(p.Reason), strconv.FormatBool(p.Cached), strconv.FormatBool(p.Baseline),
			med, f(p.CILoMs), f(p.CIHiMs), strconv.FormatFloat(p.Seconds, 'f', 3, 64),
			strconv.FormatFloat(p.gpuSeconds, 'f', 3, 64), f(p.bestMs), p.bestPlan}
		if err := w.Write(rec); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// tuneMarkdown is the tune's report.md: what ran, the plot, and each
// evaluation that made a new best.
func tuneMarkdown(t TuneTrace, pts []tunePoint, plot bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", mdText(cmp.Or(t.Title, "tcgen tune")))
	if t.Command != "" {
		fmt.Fprintf(&b, "```sh\n%s\n```\n\n", t.Command)
	}
	if t.GPU != "" {
		fmt.Fprintf(&b, "GPU: **%s**. ", mdText(t.GPU))
	}
	failed, cached := 0, 0
	for _, p := range pts {
		if !p.OK {
			failed++
		}
		if p.Cached {
			cached++
		}
	}
	total := 0.0
	if len(pts) > 0 {
		total = pts[len(pts)-1].gpuSeconds
	}
	fmt.Fprintf(&b, "Graph %s, space %s, strategy %s: %d evaluations (%d from the store, %d failed), %.1f GPU seconds (%s). "+
		"Every evaluation is in [%s](%s).\n\n", mdText(t.Graph), mdText(t.Space), mdText(t.Strategy), len(pts), cached, failed,
		total, mdText(t.SecondsNote), fileTrace, fileTrace)
	if plot {
		fmt.Fprintf(&b, "![best so far against evaluations and GPU seconds](%s)\n\n", fileBestSoFar)
	}
	b.WriteString("## New bests\n\n")
	mdRow(&b, "evaluation", "GPU s", "ms", "95% CI", "plan")
	mdRule(&b, 5, 0, 1, 2)
	for _, p := range pts {
		if !p.newBest {
			continue
		}
		ci := missing
		if p.CIHiMs > 0 {
			ci = sig4(p.CILoMs) + "–" + sig4(p.CIHiMs)
		}
		name := mdText(p.Label)
		if p.Label != p.Plan {
			name += " (`" + p.Plan + "`)"
		}
		if p.Baseline {
			name += ", measured first (what count runs untuned)"
		}
		mdRow(&b, strconv.Itoa(p.N), strconv.FormatFloat(p.gpuSeconds, 'f', 1, 64), sig4(p.MedianMs), ci, name)
	}
	b.WriteString("\n")
	if f := t.Final; f != nil {
		fmt.Fprintf(&b, "Finalists measured again interleaved: **%s** (`%s`) won with %s ms (95%% CI %s–%s).\n",
			mdText(f.Label), f.Plan, sig4(f.Ms), sig4(f.CILoMs), sig4(f.CIHiMs))
	}
	return b.Bytes()
}
