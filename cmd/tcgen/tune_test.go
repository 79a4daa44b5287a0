package main

import (
	"testing"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
)

// The tune and bench commands run end to end in tests/ (tune_test.go).

func TestSlug(t *testing.T) {
	if s := slug("NVIDIA H200 NVL"); s != "nvidia-h200-nvl" {
		t.Errorf("slug %q", s)
	}
}

func TestPlansSpace(t *testing.T) {
	polak, _ := ir.Preset("polak")
	bad := polak.Clone()
	bad.Classes[0].Block = 7 // not a multiple of the warp
	sp := autotune.PlansSpace("bench", []ir.Plan{polak, bad, polak}, []string{"a", "b", "c"}, gen.DefaultTarget())
	if len(sp.Plans) != 1 || sp.Labels[0] != "a" || len(sp.Cands.Culled) != 1 || sp.Cands.Culled[0].Label != "b" {
		t.Errorf("plans %v, culled %+v", sp.Labels, sp.Cands.Culled)
	}
}
