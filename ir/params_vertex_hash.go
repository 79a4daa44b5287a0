package ir

import "fmt"

// CTAWidth returns the width that a vertex/hash strategy's CTA organisation
// (Skiff §IV-B, §V-D) fixes: block-degree and block-index give a whole block
// to a vertex or to a run of consecutive edges (width = block), warp-index
// a warp to 32 consecutive edges (width = 32). ok is false when the width
// is free: the fixed organisation, or a pair without the cta parameter.
func CTAWidth(s Strategy) (w int, ok bool) {
	if s.Iterator != IterVertex || s.Intersection != Hash {
		return 0, false
	}
	switch Get(s, ParamCTA) {
	case CTABlockDegree, CTABlockIndex:
		return s.EffectiveBlock(), true
	case CTAWarpIndex:
		return 32, true
	}
	return 0, false
}

// ctaWidthProblem says why the strategy's width does not fit its CTA
// organisation, or "".
func ctaWidthProblem(s Strategy) string {
	w, ok := CTAWidth(s)
	if !ok || s.EffectiveWidth() == w {
		return ""
	}
	ps, _ := Spec(s, ParamCTA)
	what := "a whole block to each item: width must equal block"
	if Get(s, ParamCTA) == CTAWarpIndex {
		what = "a warp to each run of 32 consecutive edges: width must be 32"
	}
	return fmt.Sprintf("cta %s gives %s (%d), got %d", ps.EnumName(Get(s, ParamCTA)), what, w, s.EffectiveWidth())
}
