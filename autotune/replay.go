package autotune

import (
	"fmt"
	"math"
	"strings"

	"github.com/tcgen/tcgen/store"
)

// Replay is an Evaluator that answers from recorded measurements (a sweep
// of the whole space on one graph and GPU) instead of the GPU: strategies
// can then be compared, and tested, on real landscapes in milliseconds.
type Replay struct {
	rows []store.Row // per candidate index
}

// NewReplay matches every candidate of c to its row by plan name. rows
// should be one graph on one GPU; where a plan repeats, the later row wins
// as in the store. A candidate with no row is an error: the recording does
// not cover the space, and a replay that invented a result would mislead.
// Rows are used whatever their code hash (recordings made before rows had
// one have none): a replay is an explicit request to answer from that
// recording, unlike a tune's resume or count's choice, which reuse only
// rows of the code this build generates.
func NewReplay(c *Candidates, rows []store.Row) (*Replay, error) {
	if c == nil {
		return nil, fmt.Errorf("tune: replay: no candidates")
	}
	byPlan := make(map[string]int, len(rows))
	for k, r := range rows {
		byPlan[r.Plan] = k
	}
	r := &Replay{rows: make([]store.Row, len(c.Plans))}
	var missing []string
	for i, plan := range c.Plans {
		k, ok := byPlan[plan]
		if !ok {
			missing = append(missing, plan)
			continue
		}
		r.rows[i] = rows[k]
	}
	if len(missing) > 0 {
		more := ""
		if len(missing) > 3 {
			more = fmt.Sprintf(" and %d more", len(missing)-3)
			missing = missing[:3]
		}
		return nil, fmt.Errorf("tune: replay: the recording lacks plan %s%s of space %q", strings.Join(missing, ", "), more, c.Name)
	}
	return r, nil
}

// Evaluate answers with candidate i's recorded measurement: a failure as
// recorded; with fewer runs than recorded, the median of the first runs
// samples, which is what a shorter measurement would have seen.
func (r *Replay) Evaluate(i, runs int) (Result, error) {
	if i < 0 || i >= len(r.rows) {
		return Result{}, fmt.Errorf("tune: replay: candidate %d of %d", i, len(r.rows))
	}
	// What the GPU evaluator would have returned, not a store hit: replay
	// stands in for measuring, so it spends the budget.
	return FromRow(r.rows[i], max(runs, 1)), nil
}

// Best is the recording's true best candidate and its median (what an
// exhaustive search finds); -1 and +Inf when nothing is OK.
func (r *Replay) Best() (int, float64) {
	best, score := -1, math.Inf(1)
	for i, row := range r.rows {
		if row.Status == store.StatusOK && row.MedianMs < score {
			best, score = i, row.MedianMs
		}
	}
	return best, score
}
