package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/runtime/executor"
)

// The commands run end to end, on files in and out, in tests/ (the tcgen
// binary); these test count's pieces.

// TestDefaultPlanIsHybrid: the plan count runs without --preset or --spec
// is examples/hybrid.yaml, byte for byte, and valid.
func TestDefaultPlanIsHybrid(t *testing.T) {
	p, err := PlanArg{}.plan()
	if err != nil || p.Prefix != "hybrid" || gen.Check(p) != nil {
		t.Fatalf("default plan %s: %v, %v", p.Prefix, err, gen.Check(p))
	}
}

// TestPrintCountGPUPhases: a GPU count's text output splits the start to
// the first count: the context apart, and Prepare's phases with the
// graph's upload in the background.
func TestPrintCountGPUPhases(t *testing.T) {
	var out bytes.Buffer
	g := &Globals{stdout: &out}
	r := &countResult{Graph: "g.tcsr", Backend: "gpu", Device: "GPU", ContextMs: 250, PrepareMs: 100, TotalMs: 510,
		GPU: &executor.Result{UploadWallMs: 70, Phases: []executor.Phase{{Name: "generate", Ms: 2}, {Name: "orient", Ms: 0}, {Name: "host lists", Ms: 5}}}}
	if err := printCount(g, false, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"250.000 ms (driver, context, NVRTC)", "generate 2.0, host lists 5.0 ms; the graph's upload ran 70.0 ms of that in the background"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
