package gen

import (
	"testing"

	"github.com/tcgen/tcgen/ir"
)

// TestLocalEveryPair: every pair gen lowers counts the per-vertex and the
// per-edge output (ir's localPairs), so a local count runs any plan
// tcgen generates (runtime/executor's localPlans hold a class of each).
func TestLocalEveryPair(t *testing.T) {
	for pr := range lowerers {
		for _, o := range []ir.Output{ir.OutputVertex, ir.OutputEdge} {
			if !pr.Supports(o) {
				t.Errorf("%s is generated without output %s", pr, o)
			}
		}
	}
}
