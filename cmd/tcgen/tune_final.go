package main

import (
	"fmt"
	"io"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/runtime/executor"
)

// finalistOut is one finalist as tune prints it.
type finalistOut struct {
	Plan     string  `json:"plan"`
	Label    string  `json:"label"`
	SearchMs float64 `json:"search_ms"`          // its median in the search
	Ms       float64 `json:"ms,omitempty"`       // its interleaved median (absent: it failed)
	CILo     float64 `json:"ci_lo_ms,omitempty"` // 95% interval of that median
	CIHi     float64 `json:"ci_hi_ms,omitempty"`
	Runs     int     `json:"runs"`
	Failed   string  `json:"failed,omitempty"`
}

// finalsOut is the interleaved round as tune prints it.
type finalsOut struct {
	// Skipped says why no round ran ("" when one did).
	Skipped   string        `json:"skipped,omitempty"`
	Finalists []finalistOut `json:"finalists,omitempty"`
	// Changed: the round's winner is not the search's best.
	Changed bool `json:"order_changed"`
}

// searchSamples are the timed passes of candidate i's full-fidelity
// measurement in the search.
func searchSamples(out autotune.Outcome, i, runs int) []float64 {
	var s []float64
	for _, t := range out.Trials {
		if t.Index == i && t.Runs >= runs && t.Result.OK {
			s = t.Result.Samples
		}
	}
	return s
}

// setBest makes candidate i, with its median ms and timed passes, the
// outcome's best.
func setBest(res *tuneOutcome, sp *autotune.Space, i int, ms float64, samples []float64) {
	res.Best, res.BestLabel, res.BestMs = sp.Cands.Plans[i], sp.Labels[i], ms
	res.BestCILo, res.BestCIHi = executor.MedianCI(samples)
}

// applyFinal reports the interleaved round f in res and makes its winner
// the best (the search's best stays when every finalist failed).
func applyFinal(res *tuneOutcome, sp *autotune.Space, f autotune.Final) {
	fo := &finalsOut{Changed: f.Changed}
	for _, fi := range f.Finalists {
		o := finalistOut{Plan: sp.Cands.Plans[fi.Index], Label: sp.Labels[fi.Index], SearchMs: fi.Search, Runs: len(fi.Result.Samples)}
		if fi.Result.OK {
			o.Ms = fi.Result.Score
			o.CILo, o.CIHi = executor.MedianCI(fi.Result.Samples)
		} else {
			o.Failed = fi.Result.Reason
		}
		fo.Finalists = append(fo.Finalists, o)
		if fi.Index == f.Best {
			setBest(res, sp, fi.Index, fi.Result.Score, fi.Result.Samples)
		}
	}
	if len(f.Finalists) == 0 {
		fo.Skipped = "fewer than two candidates measured OK"
	}
	res.Final = fo
}

// printFinal writes the interleaved round's lines of tune's text output.
func printFinal(w io.Writer, f *finalsOut) {
	if f == nil {
		return
	}
	if f.Skipped != "" {
		fmt.Fprintf(w, "finalists\tnot measured again: %s\n", f.Skipped)
		return
	}
	verdict := "the search's order stands"
	if f.Changed {
		verdict = "the winner changed"
	}
	fmt.Fprintf(w, "finalists\tmeasured again interleaved (one pass of each per round): %s\n", verdict)
	for _, o := range f.Finalists {
		if o.Failed != "" {
			fmt.Fprintf(w, "\t%s: %.4f ms in the search, failed: %s\n", o.Plan, o.SearchMs, o.Failed)
			continue
		}
		fmt.Fprintf(w, "\t%s: %.4f ms in the search, %.4f ms interleaved (95%% CI %.4f-%.4f, %d passes)\n", o.Plan, o.SearchMs, o.Ms, o.CILo, o.CIHi, o.Runs)
	}
}

// final measures the search's best candidates again, interleaved, unless
// --finalists is 0 or the search was interrupted; the outcome's best
// becomes the round's winner, which the store now holds as the newest
// measurement of each finalist.
func (c *TuneCmd) final(g *Globals, ev *autotune.GPU, sp *autotune.Space, out autotune.Outcome, res *tuneOutcome) (autotune.Outcome, error) {
	switch {
	case c.Finals == 0 || out.Best < 0:
		return out, nil
	case out.Stopped == autotune.StopInterrupted:
		res.Final = &finalsOut{Skipped: "interrupted"}
		return out, nil
	}
	g.notice("tune: measuring up to %d best candidates again, interleaved", c.Finals)
	f, err := autotune.Remeasure(ev, out, c.Runs, c.Finals)
	if err != nil {
		if g.ctx.Err() != nil { // the search's best stands
			res.Final = &finalsOut{Skipped: "interrupted"}
			out.Stopped = autotune.StopInterrupted
			return out, nil
		}
		return out, err
	}
	applyFinal(res, sp, f)
	if f.Best >= 0 {
		out.Best, out.Score = f.Best, f.Score
	}
	return out, nil
}
