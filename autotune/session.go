package autotune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Budget bounds a search. Zero fields set no limit.
type Budget struct {
	// Evals is the most evaluations: Evaluate calls that the search's
	// memory did not answer (a store hit inside the evaluator still counts).
	Evals int
	// Time is the wall time; it is checked before each evaluation, so the
	// one under way when it runs out is finished, not lost.
	Time time.Duration
	// Patience stops the search after this many full-fidelity evaluations
	// in a row without a better best. Lower-fidelity ones (successive
	// halving's first rungs) never make a best, so they do not count.
	Patience int
}

// Trial is one evaluation, as Options.Observe sees it.
type Trial struct {
	Index   int
	Runs    int
	Result  Result
	N       int           // evaluation number, 1-based
	Elapsed time.Duration // since Run began, at the end of the evaluation
}

// Options configures Run.
type Options struct {
	Budget Budget
	// Runs is the number of timed passes of a full evaluation (default 10).
	Runs int
	Seed uint64
	// Start lists indices to evaluate first where the strategy allows
	// (the space's default point, the store's best).
	Start []int
	// Baseline lists the plans count would run without this tune (the
	// built-in default, the model's pick): they are measured at full
	// fidelity before the strategy starts, in this order and within the
	// budget, and compete like any other candidate, so the best a search
	// reports is never slower than them.
	Baseline []int
	// Observe is called after every evaluation, in order (progress bars,
	// writing the store).
	Observe func(Trial)
}

// sessionRuns is the timed passes of a full evaluation when Options.Runs is
// unset: enough for a stable median without making each candidate slow.
const sessionRuns = 10

// Why a search stopped (Outcome.Stopped).
const (
	StopExhausted   = "exhausted" // the strategy ran out of points to try
	StopEvals       = "budget: evaluations"
	StopTime        = "budget: time"
	StopPatience    = "patience"
	StopInterrupted = "interrupted" // the context was cancelled
	StopError       = "error"       // the evaluator failed; Run returns its error
)

// Outcome is what a search found.
type Outcome struct {
	Best    int     // index of the best full-fidelity OK candidate, -1 if none
	Score   float64 // its median ms, +Inf if none
	Evals   int
	Trials  []Trial
	Stopped string // why it stopped: one of the Stop constants
}

// Strategy chooses which candidates a Session evaluates.
type Strategy interface {
	Name() string
	// Search evaluates candidates through s until it has none left to try
	// or an evaluation reports false; its error is a fault of the
	// strategy itself, not of a candidate.
	Search(s *Session) error
}

// Session is a search in progress, as a Strategy sees it: it evaluates
// candidates, remembers every result, keeps the best and enforces the
// budget.
type Session struct {
	ctx   context.Context
	c     *Candidates
	ev    Evaluator
	opt   Options
	rng   *rand.Rand
	now   func() time.Time
	begin time.Time

	// memo keeps, per index, the result with the most runs so far: it
	// answers any ask of as many runs or fewer.
	memo     map[int]sessionMemo
	best     int
	score    float64
	evals    int
	stored   int // evaluations the evaluator answered from the store (free)
	stale    int // full-fidelity evaluations since the best last improved
	trials   []Trial
	stopped  string
	err      error
	strategy string
}

type sessionMemo struct {
	runs int
	res  Result
}

// Run searches c with strategy s, measuring through ev, until the strategy
// is done or the budget or ctx stops it. A cancelled ctx is not an error:
// the outcome so far comes back with Stopped "interrupted". An evaluator
// error comes back with the outcome so far.
func Run(ctx context.Context, c *Candidates, s Strategy, ev Evaluator, opt Options) (Outcome, error) {
	return runSession(ctx, c, s, ev, opt, time.Now)
}

// runSession is Run with a clock, so tests can check the time budget
// exactly.
func runSession(ctx context.Context, c *Candidates, s Strategy, ev Evaluator, opt Options, now func() time.Time) (Outcome, error) {
	out := Outcome{Best: -1, Score: math.Inf(1)}
	switch {
	case c == nil:
		return out, errors.New("tune: no candidates")
	case s == nil:
		return out, errors.New("tune: no strategy")
	case ev == nil:
		return out, errors.New("tune: no evaluator")
	case len(c.Plans) != len(c.Points):
		return out, fmt.Errorf("tune: space %q has %d points but %d plans", c.Name, len(c.Points), len(c.Plans))
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if opt.Runs <= 0 {
		opt.Runs = sessionRuns
	}
	ss := &Session{
		ctx:      ctx,
		c:        c,
		ev:       ev,
		opt:      opt,
		rng:      rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15)),
		now:      now,
		begin:    now(),
		memo:     map[int]sessionMemo{},
		best:     -1,
		score:    math.Inf(1),
		strategy: s.Name(),
	}
	var serr error
	if ss.baseline() {
		serr = s.Search(ss)
	}
	out.Best, out.Score = ss.best, ss.score
	out.Evals = ss.evals
	out.Trials = ss.trials
	out.Stopped = ss.stopped
	if ss.err != nil {
		return out, ss.err
	}
	if serr != nil {
		out.Stopped = StopError
		return out, fmt.Errorf("tune: strategy %s: %w", ss.strategy, serr)
	}
	if out.Stopped == "" {
		// The strategy returned on its own, though a cancel may have
		// landed while it did.
		out.Stopped = StopExhausted
		if ctx.Err() != nil {
			out.Stopped = StopInterrupted
		}
	}
	return out, nil
}

// baseline measures Options.Baseline at full fidelity; false when the
// search stopped (budget spent, context cancelled, evaluator failed).
func (s *Session) baseline() bool {
	for _, i := range s.opt.Baseline {
		if i < 0 || i >= len(s.c.Points) {
			continue // a plan the space could not take (culled): nothing to measure
		}
		if _, ok := s.Eval(i); !ok {
			return false
		}
	}
	return true
}

// Eval measures candidate i at full fidelity (Options.Runs passes). false
// means stop now (budget spent, context cancelled, evaluator failed): the
// strategy must return.
func (s *Session) Eval(i int) (Result, bool) { return s.EvalRuns(i, s.opt.Runs) }

// EvalRuns measures candidate i with fewer timed passes (successive
// halving's early rungs); runs at or above Options.Runs is a full
// evaluation. A result already known with at least as many runs is
// answered from memory, free.
func (s *Session) EvalRuns(i, runs int) (Result, bool) {
	if s.stopped != "" {
		return Result{Score: math.Inf(1)}, false
	}
	if s.ctx.Err() != nil {
		s.stopped = StopInterrupted
		return Result{Score: math.Inf(1)}, false
	}
	if i < 0 || i >= len(s.c.Points) {
		// A strategy bug: stop with an error rather than measure nothing.
		s.err = fmt.Errorf("tune: strategy %s asked for candidate %d of %d", s.strategy, i, len(s.c.Points))
		s.stopped = StopError
		return Result{Score: math.Inf(1)}, false
	}
	runs = min(max(runs, 1), s.opt.Runs)
	if m, ok := s.memo[i]; ok && (m.runs >= runs || !m.res.OK) {
		// A failure is final at any fidelity: more passes would not fix a
		// wrong count or a compile error, only spend budget.
		r := m.res
		r.Cached = true
		return r, true
	}
	if why := s.spent(); why != "" {
		s.stopped = why
		return Result{Score: math.Inf(1)}, false
	}
	r, err := s.ev.Evaluate(i, runs)
	if err != nil {
		if s.ctx.Err() != nil || errors.Is(err, context.Canceled) {
			s.stopped = StopInterrupted
		} else {
			s.stopped = StopError
			s.err = fmt.Errorf("tune: evaluating %s: %w", s.plan(i), err)
		}
		return Result{Score: math.Inf(1)}, false
	}
	if !r.OK || math.IsNaN(r.Score) {
		r.OK = false
		r.Score = math.Inf(1)
	}
	// A measurement the evaluator answered from the tuning store costs no
	// GPU time: it does not spend the Evals budget, so a second tune with
	// the same budget continues where the first stopped.
	if r.Cached {
		s.stored++
	} else {
		s.evals++
	}
	s.memo[i] = sessionMemo{runs: runs, res: r}
	if runs == s.opt.Runs {
		if r.OK && r.Score < s.score {
			s.best, s.score = i, r.Score
			s.stale = 0
		} else {
			s.stale++
		}
	}
	t := Trial{Index: i, Runs: runs, Result: r, N: s.evals + s.stored, Elapsed: s.now().Sub(s.begin)}
	s.trials = append(s.trials, t)
	if s.opt.Observe != nil {
		s.opt.Observe(t)
	}
	return r, true
}

// spent says which budget forbids another evaluation, "" if none does.
func (s *Session) spent() string {
	b := s.opt.Budget
	switch {
	case b.Evals > 0 && s.evals >= b.Evals:
		return StopEvals
	case b.Time > 0 && s.now().Sub(s.begin) >= b.Time:
		return StopTime
	case b.Patience > 0 && s.stale >= b.Patience:
		return StopPatience
	}
	return ""
}

// timeLeft is the wall time the Time budget leaves, and whether it sets
// one.
func (s *Session) timeLeft() (time.Duration, bool) {
	if s.opt.Budget.Time <= 0 {
		return 0, false
	}
	return max(s.opt.Budget.Time-s.now().Sub(s.begin), 0), true
}

func (s *Session) plan(i int) string {
	if i >= 0 && i < len(s.c.Plans) {
		return s.c.Plans[i]
	}
	return fmt.Sprint("candidate ", i)
}

// Prefetch hints that candidates is will be evaluated soon; it forwards
// those not yet measured at full fidelity to a Prefetcher evaluator.
func (s *Session) Prefetch(is []int) {
	p, ok := s.ev.(Prefetcher)
	if !ok || s.stopped != "" {
		return
	}
	var want []int
	for _, i := range is {
		if i < 0 || i >= len(s.c.Points) {
			continue
		}
		if !s.full(i) {
			want = append(want, i)
		}
	}
	if len(want) > 0 {
		p.Prefetch(want)
	}
}

// ahead is how many candidates an in-order strategy hints at a time:
// strategyAhead, or as many as the evaluator compiles at once.
func (s *Session) ahead() int {
	if p, ok := s.ev.(Paralleler); ok {
		return max(strategyAhead, p.Parallel())
	}
	return strategyAhead
}

// busy reports whether the evaluator says another process is measuring
// candidate i.
func (s *Session) busy(i int) bool {
	b, ok := s.ev.(Busier)
	return ok && b.Busy(i)
}

// Rand is the search's random source, seeded from Options.Seed.
func (s *Session) Rand() *rand.Rand { return s.rng }

// Cands is the space being searched.
func (s *Session) Cands() *Candidates { return s.c }

// Best is the best full-fidelity OK candidate so far and its score; -1 and
// +Inf if none.
func (s *Session) Best() (int, float64) { return s.best, s.score }

// Seen says whether candidate i was evaluated at any fidelity.
func (s *Session) Seen(i int) bool {
	_, ok := s.memo[i]
	return ok
}

// Runs is the timed passes of a full evaluation.
func (s *Session) Runs() int { return s.opt.Runs }

// Start is Options.Start without indices outside the space or repeats.
func (s *Session) Start() []int {
	var out []int
	seen := map[int]bool{}
	for _, i := range s.opt.Start {
		if i >= 0 && i < len(s.c.Points) && !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	return out
}

// Remaining is how many more evaluations the Evals budget allows, -1 when
// it sets no limit.
func (s *Session) Remaining() int {
	if s.opt.Budget.Evals <= 0 {
		return -1
	}
	return max(s.opt.Budget.Evals-s.evals, 0)
}

// full reports whether candidate i is known at full fidelity (or failed,
// which is final).
func (s *Session) full(i int) bool {
	m, ok := s.memo[i]
	return ok && (m.runs >= s.opt.Runs || !m.res.OK)
}

// known is candidate i's score at full fidelity (+Inf for a failure) and
// whether it is known.
func (s *Session) known(i int) (float64, bool) {
	m, ok := s.memo[i]
	if !ok || !(m.runs >= s.opt.Runs || !m.res.OK) {
		return math.Inf(1), false
	}
	return m.res.Score, true
}
