package main

import (
	"slices"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
)

// localOutput is the plan output the local flags need on the GPU: the
// per-edge counts for --per-edge (the per-vertex ones follow from them,
// graph.PerVertexFromSupport), else the per-vertex counts for the others,
// else the total.
func (c *CountCmd) localOutput() ir.Output {
	switch {
	case c.PerEdge != "":
		return ir.OutputEdge
	case c.localFlag() != "":
		return ir.OutputVertex
	}
	return ir.OutputTotal
}

// localPlan is the GPU plan of a local count: the given plan (--preset,
// --spec, else the default) with the output set (ir.Plan.WithOutput: a
// guard's list that cannot count it takes the plan's last list that can).
// The tuning store and the model are not asked: their rows time the
// total, which says nothing of the local variant's speed. A plan that
// cannot count the output is refused under --backend gpu; under auto the
// CPU counts (false).
func (c *CountCmd) localPlan(g *Globals, p ir.Plan, res *countResult) (ir.Plan, bool, error) {
	q, err := p.WithOutput(c.localOutput())
	switch {
	case err != nil && c.Backend == "gpu":
		return p, false, errorf(exitUsage, "count: %s on the GPU: %s (use --backend cpu, or a plan of those pairs)", c.localFlag(), ir.OneLine(err))
	case err != nil:
		g.notice("count: %s: %s; counting on the CPU", c.localFlag(), ir.OneLine(err))
		return p, false, nil
	}
	if c.Preset == "" && c.Spec == "" {
		res.PlanSource = "default"
		g.notice("plan: %s, the built-in default (examples/default.yaml) counting per %s; the tuning store times totals only", q.Name(), q.Output)
	}
	return q, true, nil
}

// verifyLocal compares the GPU's local counts with the CPU oracle's under
// --check (the oracle counts the same orientation, so the per-edge
// supports compare arc by arc).
func (c *CountCmd) verifyLocal(g *Globals, loc *localCounts, res *countResult) error {
	if !c.Check || res.Backend != "gpu" || c.localFlag() == "" {
		return nil
	}
	pb := newProgress(g.Quiet, "checking the local counts (CPU oracle)", "edges")
	defer pb.Done()
	if loc.support != nil {
		_, want, err := graph.CountPerEdgeContext(g.ctx, loc.o, pb.Update)
		if err != nil {
			return err
		}
		if n := countDiffs(loc.support, want); n > 0 {
			return errorf(exitMismatch, "per-edge count mismatch: %s differs from the CPU oracle on %d of %d edges", res.Plan, n, len(want))
		}
	} else {
		_, want, err := graph.CountPerVertexContext(g.ctx, loc.o, pb.Update)
		if err != nil {
			return err
		}
		if n := countDiffs(loc.perVertex, want); n > 0 {
			return errorf(exitMismatch, "per-vertex count mismatch: %s differs from the CPU oracle on %d of %d vertices", res.Plan, n, len(want))
		}
	}
	res.Checked += "; local counts: CPU oracle"
	return nil
}

// countDiffs counts the positions where a and b differ (all, when their
// lengths differ).
func countDiffs[T comparable](a, b []T) int {
	if len(a) != len(b) {
		return max(len(a), len(b))
	}
	if slices.Equal(a, b) {
		return 0
	}
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// localDiffs compares a run's local counts with the CPU oracle on the
// orientation it ran: how many differ, of how many (0, 0 for the total).
func localDiffs(res *executor.Result) (int, int) {
	switch res.Output {
	case ir.OutputVertex:
		_, want := graph.CountPerVertex(res.Oriented)
		return countDiffs(res.LocalPerVertex(), want), len(want)
	case ir.OutputEdge:
		_, want := graph.CountPerEdge(res.Oriented)
		return countDiffs(res.LocalSupport(), want), len(want)
	}
	return 0, 0
}
