package gen

import (
	"testing"

	"github.com/tcgen/tcgen/ir"
)

// ir counts as generated exactly the pairs gen has a lowerer for.
func TestLowerersRegistered(t *testing.T) {
	for _, p := range ir.Pairs() {
		if got, want := p.Generated(), lowerers[p] != nil; got != want {
			t.Errorf("%s: ir.Pair.Generated %v, lowerer %v", p, got, want)
		}
	}
	if n := len(ir.GeneratedPairs()); n != len(lowerers) {
		t.Errorf("ir holds %d generated pairs, gen %d lowerers", n, len(lowerers))
	}
}
