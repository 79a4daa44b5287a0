package autotune

import (
	"fmt"
	"strings"
)

// strategyMakers are the strategies by name, in the order StrategyNames
// lists them (cheapest to explain first).
var strategyMakers = []struct {
	name string
	make func() Strategy
}{
	{"exhaustive", func() Strategy { return exhaustive{} }},
	{"random", func() Strategy { return randomSearch{} }},
	{"coordinate", func() Strategy { return coordinate{} }},
	{"halving", func() Strategy { return halving{} }},
	{"tpe", func() Strategy { return tpe{} }},
}

// StrategyNames lists the strategies StrategyByName knows.
func StrategyNames() []string {
	names := make([]string, len(strategyMakers))
	for i, m := range strategyMakers {
		names[i] = m.name
	}
	return names
}

// StrategyByName returns the strategy called name.
func StrategyByName(name string) (Strategy, error) {
	for _, m := range strategyMakers {
		if m.name == name {
			return m.make(), nil
		}
	}
	return nil, fmt.Errorf("tune: no strategy %q (have %s)", name, strings.Join(StrategyNames(), ", "))
}

// strategyAhead is how many candidates an in-order strategy hints ahead of
// the one it measures, so compilation overlaps timing (more where the
// evaluator compiles more at once: Session.ahead).
const strategyAhead = 4

// strategyInOrder evaluates order at full fidelity, skipping what was seen,
// hinting the next candidates ahead. A candidate another process is
// measuring (Session.busy) goes to the end of the order, once: by then its
// row is usually stored. It reports false when the search stopped.
func strategyInOrder(s *Session, order []int) bool {
	var todo []int
	for _, i := range order {
		if !s.Seen(i) {
			todo = append(todo, i)
		}
	}
	deferred := map[int]bool{}
	ahead := s.ahead()
	for k := 0; k < len(todo); k++ { // todo grows as candidates are deferred
		i := todo[k]
		// Hint in chunks, always one chunk ahead of what is measured.
		if k == 0 {
			s.Prefetch(todo[:min(2*ahead, len(todo))])
		} else if k%ahead == 0 && k+ahead < len(todo) {
			s.Prefetch(todo[k+ahead : min(k+2*ahead, len(todo))])
		}
		if s.Seen(i) {
			continue
		}
		if !deferred[i] && s.busy(i) {
			deferred[i] = true
			todo = append(todo, i)
			continue
		}
		if _, ok := s.Eval(i); !ok {
			return false
		}
	}
	return true
}

// strategyUnseen lists, in index order, the candidates not yet evaluated at
// any fidelity.
func strategyUnseen(s *Session) []int {
	var out []int
	for i := range s.Cands().Points {
		if !s.Seen(i) {
			out = append(out, i)
		}
	}
	return out
}

// strategyStartFirst puts the search's start indices first in order,
// dropping their later repeats.
func strategyStartFirst(s *Session, order []int) []int {
	start := s.Start()
	if len(start) == 0 {
		return order
	}
	first := make(map[int]bool, len(start))
	for _, i := range start {
		first[i] = true
	}
	out := append([]int(nil), start...)
	for _, i := range order {
		if !first[i] {
			out = append(out, i)
		}
	}
	return out
}
