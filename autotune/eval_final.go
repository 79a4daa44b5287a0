package autotune

import (
	"context"
	"errors"
	"fmt"

	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/store"
)

// finalSlot is one finalist during the interleaved rounds.
type finalSlot struct {
	i       int
	row     store.Row
	pr      *executor.Prepared // nil: prepared anew each round (did not fit beside the others)
	samples []float64
	kernel  []float64
	res     *Result // set once it failed (or was never timed)
}

// Interleave implements Interleaver: every finalist is compiled, prepared
// and verified, and (when they fit in GPU memory together) stays prepared,
// so each round times one pass of each on the same device state. A
// finalist that does not fit beside the others is prepared anew for each
// of its passes. Each finalist's row is written to the store as its newest
// measurement.
func (e *GPU) Interleave(is []int, rounds int) ([]Result, error) {
	if e.Ctx == nil {
		e.Ctx = context.Background()
	}
	slots := make([]*finalSlot, len(is))
	defer func() {
		for _, s := range slots {
			if s != nil && s.pr != nil {
				s.pr.Close()
			}
		}
	}()
	held := 0
	for k, i := range is {
		s := &finalSlot{i: i, row: e.newRow(i)}
		slots[k] = s
		if err := e.prepareFinal(s, held > 0); err != nil {
			return nil, err
		}
		if s.pr != nil {
			held++
		}
	}
	for range max(rounds, 1) {
		for _, s := range slots {
			if s.res != nil {
				continue
			}
			if err := e.finalPass(s); err != nil {
				return nil, err
			}
		}
	}
	out := make([]Result, len(slots))
	for k, s := range slots {
		if s.res == nil {
			r, err := e.finishFinal(s)
			if err != nil {
				return nil, err
			}
			s.res = &r
		}
		out[k] = *s.res
	}
	return out, nil
}

// prepareFinal compiles, prepares and verifies finalist s, then runs its
// warm-ups. besides: others are held prepared, so a plan too large to join
// them is prepared for each pass instead of failing.
func (e *GPU) prepareFinal(s *finalSlot, besides bool) error {
	if err := e.compiled(s.i); err != nil {
		if e.Ctx.Err() != nil {
			return e.Ctx.Err()
		}
		return e.finalFail(s, store.StatusCompile, err)
	}
	pr, err := e.prepareOne(s)
	if err != nil {
		if errors.Is(err, executor.ErrTooLarge) && besides {
			return nil // s.pr nil: prepared per pass
		}
		return e.finalErr(s, err)
	}
	s.pr = pr
	first, err := pr.Run(e.Ctx, executor.RunOptions{Repeat: 1})
	if err != nil {
		return e.finalErr(s, err)
	}
	s.row.Triangles = first.Triangles
	if first.Triangles != e.Reference {
		return e.finalFail(s, store.StatusWrong, fmt.Errorf("counted %d triangles, the reference is %d", first.Triangles, e.Reference))
	}
	if e.Warmup > 0 {
		if _, err := pr.Run(e.Ctx, executor.RunOptions{Repeat: e.Warmup}); err != nil {
			return e.finalErr(s, err)
		}
	}
	return nil
}

func (e *GPU) prepareOne(s *finalSlot) (*executor.Prepared, error) {
	plan := e.Space.Plans[s.i]
	o, err := e.orient(plan)
	if err != nil {
		return nil, err
	}
	return executor.Prepare(e.Ctx, e.Dev, e.Comp, plan, e.Graph, executor.RunOptions{Oriented: o})
}

// finalPass times one pass of finalist s (preparing it first, with its
// warm-ups, when it is not held).
func (e *GPU) finalPass(s *finalSlot) error {
	pr, opt := s.pr, executor.RunOptions{Repeat: 1, FlushL2: e.FlushL2}
	if pr == nil {
		var err error
		if pr, err = e.prepareOne(s); err != nil {
			return e.finalErr(s, err)
		}
		defer pr.Close()
		opt.Warmup = e.Warmup
	}
	res, err := pr.Run(e.Ctx, opt)
	if err != nil {
		return e.finalErr(s, err)
	}
	s.row.Triangles = res.Triangles
	if res.Triangles != e.Reference {
		return e.finalFail(s, store.StatusWrong, fmt.Errorf("timed runs counted %d triangles, the reference is %d", res.Triangles, e.Reference))
	}
	s.samples = append(s.samples, res.GPUSamples...)
	s.kernel = append(s.kernel, res.KernelMs.Median)
	return nil
}

// finishFinal records finalist s's interleaved samples.
func (e *GPU) finishFinal(s *finalSlot) (Result, error) {
	row := s.row
	if e.Clocks != nil {
		if sm, mem, temp, err := e.Clocks(); err == nil {
			row.ClockSMMHz, row.ClockMemMHz, row.TempC = sm, mem, temp
		}
	}
	row.Status = store.StatusOK
	m := executor.Summarize(s.samples, e.Warmup)
	m.FlushL2 = e.FlushL2
	setTimes(&row, m)
	row.KernelMs = median(s.kernel)
	if err := e.put(row); err != nil {
		return Result{}, err
	}
	return FromRow(row, 0), nil
}

// finalErr records err against finalist s: a cancel or a lost GPU stops
// the tune, anything else fails s alone.
func (e *GPU) finalErr(s *finalSlot, err error) error {
	if e.Ctx.Err() != nil {
		return e.Ctx.Err()
	}
	st := store.StatusLaunch
	if errors.Is(err, executor.ErrTooLarge) {
		st = store.StatusTooLarge
	}
	if ferr := e.finalFail(s, st, err); ferr != nil {
		return ferr
	}
	if errors.Is(err, executor.ErrDeviceLost) {
		return fmt.Errorf("plan %s: %w", s.row.Plan, err)
	}
	return nil
}

// finalFail records finalist s as failed and drops it from the rounds.
func (e *GPU) finalFail(s *finalSlot, st store.Status, err error) error {
	if s.pr != nil {
		s.pr.Close()
		s.pr = nil
	}
	s.row.Status, s.row.Reason = st, ir.OneLine(err)
	if perr := e.put(s.row); perr != nil {
		return perr
	}
	r := FromRow(s.row, 0)
	s.res = &r
	return nil
}
