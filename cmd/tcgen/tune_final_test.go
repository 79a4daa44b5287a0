package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
)

// The interleaved round's verdict in tune's output: the winner becomes the
// best, with the CI of its interleaved passes; each finalist shows both
// medians and its CI; a failed finalist says why.
func TestApplyFinal(t *testing.T) {
	polak, _ := ir.Preset("polak")
	other := polak.Clone()
	other.Classes[0].Block = 128
	third := polak.Clone()
	third.Classes[0].Block = 64
	sp := autotune.PlansSpace("t", []ir.Plan{polak, other, third}, []string{"a", "b", "c"}, gen.DefaultTarget())
	if len(sp.Plans) != 3 {
		t.Fatalf("%d plans", len(sp.Plans))
	}
	ten := func(base float64) []float64 {
		var s []float64
		for k := range 10 {
			s = append(s, base+float64(k)/10)
		}
		return s
	}
	f := autotune.Final{Best: 1, Score: 1.45, Changed: true, Finalists: []autotune.Finalist{
		{Index: 0, Search: 0.4, Result: autotune.Result{OK: true, Score: 2.45, Samples: ten(2)}},
		{Index: 1, Search: 1.0, Result: autotune.Result{OK: true, Score: 1.45, Samples: ten(1)}},
		{Index: 2, Search: 1.1, Result: autotune.Result{Score: math.Inf(1), Reason: "wrong: counted 3"}},
	}}
	res := tuneOutcome{Best: sp.Cands.Plans[0], BestMs: 0.4}
	applyFinal(&res, sp, f)
	// Ten passes: the CI is the 2nd and 9th smallest.
	if res.Best != sp.Cands.Plans[1] || res.BestMs != 1.45 || res.BestCILo != 1.1 || res.BestCIHi != 1.8 {
		t.Errorf("best %s %g ms [%g, %g], want %s 1.45 ms [1.1, 1.8]", res.Best, res.BestMs, res.BestCILo, res.BestCIHi, sp.Cands.Plans[1])
	}
	var buf bytes.Buffer
	if err := printTune(&buf, false, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"(95% CI 1.1000-1.8000)",
		"measured again interleaved (one pass of each per round): the winner changed",
		sp.Cands.Plans[0] + ": 0.4000 ms in the search, 2.4500 ms interleaved (95% CI 2.1000-2.8000, 10 passes)",
		sp.Cands.Plans[2] + ": 1.1000 ms in the search, failed: wrong: counted 3",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, buf.String())
		}
	}
	buf.Reset()
	if err := printTune(&buf, true, res); err != nil {
		t.Fatal(err)
	}
	var js struct {
		CILo  float64 `json:"ci_lo_ms"`
		Final struct {
			Changed   bool `json:"order_changed"`
			Finalists []struct {
				Plan string  `json:"plan"`
				Ms   float64 `json:"ms"`
				CIHi float64 `json:"ci_hi_ms"`
			} `json:"finalists"`
		} `json:"final"`
	}
	if err := json.Unmarshal(buf.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	if js.CILo != 1.1 || !js.Final.Changed || len(js.Final.Finalists) != 3 || js.Final.Finalists[1].Ms != 1.45 || js.Final.Finalists[1].CIHi != 1.8 {
		t.Errorf("JSON: %s", buf.String())
	}
}
