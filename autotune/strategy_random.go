package autotune

// randomSearch measures candidates in a random order, the start ones first:
// the baseline every cleverer strategy must beat, and an unbiased sample
// when the space has no structure to exploit.
type randomSearch struct{}

func (randomSearch) Name() string { return "random" }

func (randomSearch) Search(s *Session) error {
	order := s.Rand().Perm(len(s.Cands().Points))
	strategyInOrder(s, strategyStartFirst(s, order))
	return nil
}
