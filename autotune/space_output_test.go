package autotune

import (
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
)

// TestSpaceOutput: a space's output goes into every plan, fixed ones too,
// and renames them apart from their totals; every pair tcgen generates
// counts it, so none is culled (ir.Plan.Validate refuses a pair without
// local counts, naming it: ir's TestOutputRefusedPair).
func TestSpaceOutput(t *testing.T) {
	src := `
name: loc
output: vertex
plans: ["preset:polak"]
strategies:
  - {iterator: edge, intersection: merge, width: ["1"], block: [256]}
  - {iterator: vertex, intersection: binary-search, width: ["32"], block: [256]}
`
	s, err := ParseSpace([]byte(src), "loc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.Expand(gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Plans) != 3 || len(sp.Cands.Culled) != 0 {
		t.Fatalf("%d plans, culled %+v", len(sp.Plans), sp.Cands.Culled)
	}
	polak, _ := ir.Preset("polak")
	for _, p := range sp.Plans {
		if p.Output != ir.OutputVertex || p.Name() == polak.Name() {
			t.Errorf("plan %s: output %q", p.Name(), p.Output)
		}
	}
	total, err := ParseSpace([]byte(strings.Replace(src, "output: vertex\n", "", 1)), "total.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tp, err := total.Expand(gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	if len(tp.Plans) != 3 || tp.Plans[0].Name() != polak.Name() {
		t.Errorf("the total space: %d plans, first %s", len(tp.Plans), tp.Plans[0].Name())
	}
}
