package ir

import (
	"errors"
	"fmt"
	"testing"
)

// Choose takes the first variant whose range and conditions hold, passes
// over a variant whose condition cannot be measured (ErrSkipVariant), ends
// on any other error and falls back on the last variant.
func TestChoose(t *testing.T) {
	g := &Guard{Feature: FeatureEdges, Variants: []Variant{
		{Lo: 0, Hi: 100, When: []Cond{{Feature: FeatureWords, Hi: 0.3}}},
		{Lo: 0, Hi: 100, When: []Cond{{Feature: FeatureWedges, Lo: 40}}},
		{Lo: 0, Hi: 100},
		{Lo: 100},
	}}
	errOther := errors.New("broken")
	for _, c := range []struct {
		vals    map[string]float64
		skip    string // a feature whose value wraps ErrSkipVariant
		want    int
		wantErr error
	}{
		{map[string]float64{FeatureEdges: 50, FeatureWords: 0.1}, "", 0, nil},
		{map[string]float64{FeatureEdges: 50, FeatureWords: 0.5, FeatureWedges: 50}, "", 1, nil},
		{map[string]float64{FeatureEdges: 50, FeatureWedges: 50}, FeatureWords, 1, nil},
		{map[string]float64{FeatureEdges: 50, FeatureWords: 0.5, FeatureWedges: 5}, "", 2, nil},
		{map[string]float64{FeatureEdges: 500}, "", 3, nil},
		{map[string]float64{FeatureEdges: 50}, "", 0, errOther}, // words missing: not a skip
		{map[string]float64{}, FeatureEdges, 0, ErrSkipVariant}, // the guard's own feature fails
	} {
		got, err := g.Choose(func(f string) (float64, error) {
			if f == c.skip {
				return 0, fmt.Errorf("%s: %w", f, ErrSkipVariant)
			}
			x, ok := c.vals[f]
			if !ok {
				return 0, errOther
			}
			return x, nil
		})
		if c.wantErr != nil {
			if !errors.Is(err, c.wantErr) {
				t.Errorf("%v skip %q: error %v, want %v", c.vals, c.skip, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%v skip %q: variant %d, %v; want %d", c.vals, c.skip, got, err, c.want)
		}
	}
}
