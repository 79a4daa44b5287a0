package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/report"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/store"
)

// What a GPU second of a tune is, as the report says it.
const (
	secondsMeasured = "wall time of the evaluations the GPU measured; store answers count 0"
	secondsRecorded = "replayed: each recorded compile, prepare, verifying pass, warm-ups and timed passes"
)

// tuneTracer collects a tune's evaluations for --report.
type tuneTracer struct {
	sp    *autotune.Space
	runs  int
	base  []int // the baselines' indices, measured first
	cost  func(t autotune.Trial) float64
	last  time.Duration // the previous evaluation's end
	evals []report.TuneEval
}

// observe records one evaluation; it wraps Options.Observe.
func (tr *tuneTracer) observe(next func(autotune.Trial)) func(autotune.Trial) {
	return func(t autotune.Trial) {
		e := report.TuneEval{N: t.N, Plan: tr.sp.Cands.Plans[t.Index], Label: tr.sp.Labels[t.Index], Runs: t.Runs,
			Full: t.Runs >= tr.runs, OK: t.Result.OK, Reason: t.Result.Reason, Cached: t.Result.Cached,
			Baseline: t.N <= len(tr.base) && slices.Contains(tr.base, t.Index)}
		if t.Result.OK {
			e.MedianMs = t.Result.Score
			e.CILoMs, e.CIHiMs = executor.MedianCI(t.Result.Samples)
		}
		if !t.Result.Cached {
			e.Seconds = tr.cost(t)
		}
		tr.last = t.Elapsed
		tr.evals = append(tr.evals, e)
		if next != nil {
			next(t)
		}
	}
}

// measuredCost is what an evaluation on the GPU cost: the wall time since
// the one before ended (compile wait, prepare, verifying pass, warm-ups,
// timed passes, writing the store).
func (tr *tuneTracer) measuredCost(t autotune.Trial) float64 {
	return (t.Elapsed - tr.last).Seconds()
}

// recordedCost is what a replayed evaluation cost when it was recorded:
// the compile and prepare times, then the verifying pass and warm-ups at
// the median and the timed passes a measurement of runs passes takes.
func recordedCost(r store.Row, runs int) float64 {
	ms := r.CompileMs + r.PrepareMs
	if r.Status == store.StatusOK {
		ms += float64(1+r.Warmup) * r.MedianMs
		if s := r.Samples; len(s) > 0 {
			for _, v := range s[:min(runs, len(s))] {
				ms += v
			}
		} else {
			ms += float64(runs) * r.MedianMs
		}
	}
	return ms / 1e3
}

// replayCost prices a replayed trial from the recorded row of its plan.
func replayCost(sp *autotune.Space, rows []store.Row) func(autotune.Trial) float64 {
	byPlan := map[string]store.Row{}
	for _, r := range rows { // the later row of a plan wins, as in the replay
		byPlan[r.Plan] = r
	}
	return func(t autotune.Trial) float64 {
		return recordedCost(byPlan[sp.Cands.Plans[t.Index]], t.Runs)
	}
}

// writeTuneReport writes --report's files for the search in tr and the
// outcome res.
func (c *TuneCmd) writeTuneReport(tr *tuneTracer, res tuneOutcome, gpuName, note string) error {
	t := report.TuneTrace{
		Title: "tcgen tune " + graphName(c.Graph), Command: c.commandLine(), Graph: c.Graph, GPU: gpuName,
		Space: res.Space, Strategy: res.Strategy, Runs: c.Runs, SecondsNote: note, Evals: tr.evals,
	}
	if f := res.Final; f != nil && f.Skipped == "" {
		for _, o := range f.Finalists {
			if o.Plan == res.Best && o.Failed == "" {
				t.Final = &report.TuneFinal{Plan: o.Plan, Label: o.Label, Ms: o.Ms, CILoMs: o.CILo, CIHiMs: o.CIHi}
			}
		}
	}
	if err := report.WriteTune(c.Report, t); err != nil {
		return withCode(exitBadInput, err)
	}
	return nil
}

// commandLine is the tune as a command line, for the report.
func (c *TuneCmd) commandLine() string {
	parts := []string{"tcgen tune", c.Graph, "--strategy " + c.Strategy, fmt.Sprintf("--seed %d --runs %d --warmup %d", c.Seed, c.Runs, c.Warmup)}
	if c.Space != "" {
		parts = append(parts, "--space "+c.Space)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"--evals", c.Evals}, {"--patience", c.Patience}} {
		if f.v > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", f.name, f.v))
		}
	}
	if c.Time > 0 {
		parts = append(parts, "--time "+c.Time.String())
	}
	if c.Cold {
		parts = append(parts, "--cold")
	}
	if c.FlushL2 {
		parts = append(parts, "--flush-l2")
	}
	if c.Replay != "" {
		parts = append(parts, "--replay "+relPath(c.Replay))
	}
	return strings.Join(parts, " ")
}

// relPath is path relative to the working directory when it lies below
// it (kong makes path flags absolute; a report names the file as typed).
func relPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	if r, err := filepath.Rel(wd, path); err == nil && filepath.IsLocal(r) {
		return r
	}
	return path
}
