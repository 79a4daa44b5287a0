package main

import (
	"fmt"
	"os"

	"github.com/tcgen/tcgen/report"
	"github.com/tcgen/tcgen/store"
)

// ReportCmd writes a sweep's or bench's report again from its results
// file: no GPU, no store.
type ReportCmd struct {
	Dir     string `arg:"" help:"The output directory of a sweep or bench (results.jsonl, and report.md for its title and command)." type:"path"`
	Out     string `help:"Write the report into DIR instead of over the one it was read from." type:"path" placeholder:"DIR"`
	Samples string `help:"A tuning-store export (tcgen store export: JSON Lines, gzip or not) holding the timed passes of these measurements: rows recorded without the median's 95% interval get it from there (matched by graph, plan, GPU and median)." type:"path" placeholder:"FILE"`
}

// Run implements the command.
func (c *ReportCmd) Run(g *Globals) error {
	opt := report.RebuildOptions{Out: c.Out}
	if c.Samples != "" {
		f, err := os.Open(c.Samples)
		if err != nil {
			return withCode(exitBadInput, err)
		}
		rows, err := store.ReadJSON(f, c.Samples)
		f.Close()
		if err != nil {
			return withCode(exitBadInput, err)
		}
		opt.Samples = rows
	}
	st, err := report.Rebuild(c.Dir, opt)
	if err != nil {
		return withCode(exitBadInput, err)
	}
	out := c.Out
	if out == "" {
		out = c.Dir
	}
	fmt.Fprintf(g.stdout, "report %s: %d rows, %d timed, %d with a 95%% CI of the median", c.Dir, st.Rows, st.Timed, st.WithCI)
	if c.Samples != "" {
		fmt.Fprintf(g.stdout, " (%d from %s)", st.Joined, c.Samples)
	}
	if st.Profile > 0 {
		fmt.Fprintf(g.stdout, ", %d profiled", st.Profile)
	}
	fmt.Fprintf(g.stdout, "; written to %s\n", out)
	return nil
}
