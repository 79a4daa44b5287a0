package ir

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestRadixValidate(t *testing.T) {
	p, _ := Preset("radixbin")
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := p.Clone()
	bad.Classes[0].Params = map[string]int64{ParamRadixBits: 5, ParamThreshold: 31}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "at least 2^radix_bits (32)") {
		t.Errorf("threshold below 2^radix_bits: %v", err)
	}
	bad.Classes[0].Params[ParamThreshold] = 32
	bad.Classes[0].Width = 4
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "width must be 1") {
		t.Errorf("width 4: %v", err)
	}
	// RandomPlan draws only valid wedge/radix strategies, with every radix
	// width.
	rng := rand.New(rand.NewPCG(5, 6))
	bits := map[int64]int{}
	for range 3000 {
		for _, c := range RandomPlan(rng).Classes {
			if c.Iterator == IterWedge && c.Intersection == Radix {
				if c.Width != 1 || radixProblem(c.Strategy) != "" {
					t.Fatalf("drew %+v", c)
				}
				bits[Get(c.Strategy, ParamRadixBits)]++
			}
		}
	}
	for b := int64(1); b <= 8; b++ {
		if bits[b] < 5 {
			t.Errorf("radix_bits %d drawn %d times", b, bits[b])
		}
	}
}
