package ir

import "errors"

// ErrSkipVariant, wrapped by a feature's value, says the feature cannot be
// measured on this graph: a variant with a condition on it is not taken.
var ErrSkipVariant = errors.New("feature not measured: the variant is not taken")

// Choose is the rule every guard follows: the index of the first of n
// variants whose range [lo, hi) (hi 0: unbounded) holds the guard
// feature's value and whose conditions all hold, else the last. bounds
// gives variant i's range and conditions, value a feature's value. An error
// from value ends the choice, except one wrapping ErrSkipVariant from a
// condition, which passes over that variant.
func Choose(feature string, n int, bounds func(i int) (lo, hi float64, when []Cond), value func(feature string) (float64, error)) (int, error) {
	x, err := value(feature)
	if err != nil {
		return 0, err
	}
next:
	for i := range n {
		lo, hi, when := bounds(i)
		if !(Cond{Lo: lo, Hi: hi}).Holds(x) {
			continue
		}
		for _, c := range when {
			y, err := value(c.Feature)
			if errors.Is(err, ErrSkipVariant) {
				continue next
			}
			if err != nil {
				return 0, err
			}
			if !c.Holds(y) {
				continue next
			}
		}
		return i, nil
	}
	return n - 1, nil
}

// Choose is Choose over the guard's variants.
func (g *Guard) Choose(value func(feature string) (float64, error)) (int, error) {
	return Choose(g.Feature, len(g.Variants), func(i int) (float64, float64, []Cond) {
		v := g.Variants[i]
		return v.Lo, v.Hi, v.When
	}, value)
}
