package main

import (
	"errors"
	"fmt"

	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/runtime/executor"
)

// fallbackSpecs are the built-in plans (examples/) that replace a plan
// tcgen chose itself when it cannot take the graph, tried in order. Both
// orient and relabel by degree, as the default plan does, so an oriented
// file that fits the default fits them. The tiled edge merge is the default
// plan's own design beyond its special cases (its last variants); it has no
// packed counters and needs off, adj and src (12 bytes an edge). The vertex
// merge needs no src (8 bytes an edge): the smaller footprint when even the
// edge merge does not fit.
var fallbackSpecs = []string{"small.yaml", "even.yaml"}

// unfitReason says why a plan cannot run on the graph where another plan
// might: beyond its kernels' encoding (executor.LimitError) or its memory
// (executor.TooLargeError, an allocation that failed). "" for any other
// failure.
func unfitReason(err error) string {
	var le *executor.LimitError
	var te *executor.TooLargeError
	switch {
	case errors.As(err, &le):
		return le.Why
	case errors.As(err, &te):
		return fmt.Sprintf("needs %d MiB of device memory, %s has %d MiB usable", te.Need>>20, te.Device, te.Have>>20)
	case errors.Is(err, cuda.ErrOutOfMemory):
		return err.Error()
	}
	return ""
}

// prepareChosen prepares p with prepare. A plan tcgen chose itself (source
// not "": the default, the store's, the model's) that cannot take the graph
// is replaced by the first of fallbackSpecs that can, with a notice; a
// plan the user named (source "") keeps its error, as do failures of other
// kinds. It returns the Prepared, the plan that runs and its source.
func (g *Globals) prepareChosen(p ir.Plan, source string, prepare func(ir.Plan) (*executor.Prepared, error)) (*executor.Prepared, ir.Plan, string, error) {
	pr, err := prepare(p)
	why := unfitReason(err)
	if err == nil || source == "" || why == "" {
		return pr, p, source, err
	}
	for _, spec := range fallbackSpecs {
		fb, ferr := PlanArg{Spec: spec}.plan()
		if ferr != nil {
			return nil, p, source, fmt.Errorf("the built-in fallback plan %s: %w", spec, ferr) // a build defect: tests load them
		}
		g.notice("plan: %s (%s) cannot take this graph: %s; counting with %s (examples/%s) instead", p.Name(), source, why, fb.Name(), spec)
		pr, ferr := prepare(fb)
		if ferr == nil {
			return pr, fb, "fallback", nil
		}
		if why = unfitReason(ferr); why == "" {
			return nil, fb, "fallback", ferr // the replacement failed otherwise: its own error
		}
		p, source, err = fb, "fallback", ferr // the last plan tried and why it did not fit
	}
	return nil, p, source, err
}
