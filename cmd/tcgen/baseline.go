package main

import (
	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/store"
)

// predictPlan is the model's plan for the graph with features f and
// fingerprint fp on the GPU on, trained on rows (of every GPU; the graph's
// own rows on this GPU do not vote): what count runs when the store has no
// best for the graph. It is the best-ranked plan that parses and fits
// target (a plan measured on another GPU may not), the default def ranked
// first when its score is within autotune.DefaultMargin of the best's; ok
// is false when there is none. m is the model, for what it learned from (Model.Reach).
func predictPlan(rows []store.Row, f graph.Features, on autotune.GPUFacts, fp string, target gen.Target, def ir.Plan) (p ir.Plan, pred autotune.Prediction, m *autotune.Model, ok bool) {
	m = autotune.Train(rows, 0)
	for _, pred := range autotune.PreferDefault(m.Rank(f, on, fp, nil), def.Name()) {
		p, err := ir.Parse([]byte(pred.Spec), "the model's plan "+pred.Plan)
		if err == nil && autotune.Restrict(p, target) == nil {
			return p, pred, m, true
		}
	}
	return ir.Plan{}, autotune.Prediction{}, m, false
}

// baselines are the plans count runs for a graph when the store has no best
// for it, which a tune measures first and lets compete
// (autotune.Options.Baseline): the built-in default, then the model's
// prediction from rows for the GPU on when the graph's features f are known
// (nil for an oriented file, which the model cannot place).
func baselines(rows []store.Row, f *graph.Features, on autotune.GPUFacts, fp string, target gen.Target) ([]ir.Plan, []string, error) {
	def, err := defaultPlan()
	if err != nil {
		return nil, nil, err
	}
	plans, labels := []ir.Plan{def}, []string{"default: " + def.Prefix}
	if f != nil && len(rows) > 0 {
		if p, _, _, ok := predictPlan(rows, *f, on, fp, target, def); ok && p.Name() != def.Name() {
			plans, labels = append(plans, p), append(labels, "model: "+p.Prefix)
		}
	}
	return plans, labels, nil
}
