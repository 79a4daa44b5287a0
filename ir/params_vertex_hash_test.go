package ir

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The CTA organisations fix the width: Validate says so, RandomPlan draws
// only widths that fit.
func TestSkiffCTAWidth(t *testing.T) {
	mk := func(cta int64, w, b int) Plan {
		return Plan{Prefix: "p", Classes: []Class{{Select: Selector{Key: KeyOutDegree},
			Strategy: Strategy{Iterator: IterVertex, Intersection: Hash, Width: w, Block: b,
				Params: map[string]int64{ParamScheme: SchemeHopscotch, ParamCTA: cta}}}}}
	}
	for _, tc := range []struct {
		cta  int64
		w, b int
		bad  string
	}{
		{CTAFixed, 8, 256, ""},
		{CTAFixed, 256, 256, ""},
		{CTABlockDegree, 256, 256, ""},
		{CTABlockDegree, 32, 256, "width must equal block"},
		{CTABlockIndex, 128, 128, ""},
		{CTABlockIndex, 32, 64, "width must equal block"},
		{CTAWarpIndex, 32, 512, ""},
		{CTAWarpIndex, 32, 32, ""},
		{CTAWarpIndex, 8, 256, "width must be 32"},
		{CTAWarpIndex, 256, 256, "width must be 32"},
	} {
		err := mk(tc.cta, tc.w, tc.b).Validate()
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("cta %d width %d block %d: %v", tc.cta, tc.w, tc.b, err)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("cta %d width %d block %d: got %v, want %q", tc.cta, tc.w, tc.b, err, tc.bad)
		}
	}
	// The edge pair has no cta: any width.
	e := Plan{Prefix: "e", Classes: []Class{{Select: Selector{Key: KeyOutDegree},
		Strategy: Strategy{Iterator: IterEdge, Intersection: Hash, Width: 4, Block: 128, Params: map[string]int64{ParamScheme: SchemeHopscotch}}}}}
	if err := e.Validate(); err != nil {
		t.Error(err)
	}
	// RandomPlan draws every organisation, every hop and both schemes.
	rng := rand.New(rand.NewPCG(5, 5))
	seen := map[string]int{}
	for range 3000 {
		p := RandomPlan(rng)
		for _, c := range p.Classes {
			if c.Skip || c.Intersection != Hash || c.Iterator == IterPivot {
				continue
			}
			seen["scheme"+skiffItoa(Get(c.Strategy, ParamScheme))]++
			seen["hop"+skiffItoa(Get(c.Strategy, ParamHop))]++
			if c.Iterator == IterVertex {
				seen["cta"+skiffItoa(Get(c.Strategy, ParamCTA))]++
			}
		}
	}
	for _, k := range []string{"scheme0", "scheme1", "hop4", "hop8", "hop16", "hop32", "cta0", "cta1", "cta2", "cta3"} {
		if seen[k] < 20 {
			t.Errorf("RandomPlan drew %s %d times in 3000 plans", k, seen[k])
		}
	}
}

func skiffItoa(v int64) string { return strconv.FormatInt(v, 10) }
