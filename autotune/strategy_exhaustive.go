package autotune

// exhaustive measures every candidate in index order, the start ones first:
// the reference answer, and the right choice for small spaces.
type exhaustive struct{}

func (exhaustive) Name() string { return "exhaustive" }

func (exhaustive) Search(s *Session) error {
	order := make([]int, len(s.Cands().Points))
	for i := range order {
		order[i] = i
	}
	strategyInOrder(s, strategyStartFirst(s, order))
	return nil
}
