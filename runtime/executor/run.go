package executor

import (
	"context"
	"fmt"
	"slices"

	"github.com/tcgen/tcgen/runtime/gpu"
)

// Run is the timing routine every command's measurements go through: it
// launches every class kernel opt.Warmup + opt.Repeat times (counters
// zeroed before each pass; with opt.FlushL2 the L2 flushed before each
// timed pass, outside its timer), times each pass and kernel with events,
// checks that every pass counted the same, and summarises the timed passes
// (Result.Pass: median, min, max, the median's 95% confidence interval).
func (pr *Prepared) Run(ctx context.Context, opt RunOptions) (*Result, error) {
	repeat := max(opt.Repeat, 1)
	warm := max(opt.Warmup, 0)
	var graph gpu.Replay
	var graphErr string
	replay := repeat > 1 && !opt.NoGraph
	if replay {
		replay, graphErr = pr.replayable()
	}
	// The replays must count what the first pass counted (record): that
	// pass, a warm-up, is launched kernel by kernel; with no warm-up every
	// pass is replayed, so that none is timed the other way.
	capAt := min(warm, 1)
	t := pr.timing(opt)
	rec := &passRecord{perClass: make([][]float64, len(pr.classes)), counts: make([]uint64, len(pr.classes))}
	defer func() {
		if graph != nil {
			_ = graph.Close()
		}
	}()
	for r := range warm + repeat {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r == capAt && replay {
			graph, graphErr = pr.capture(ctx, t)
		}
		if opt.FlushL2 && r >= warm {
			if err := pr.flushL2(); err != nil {
				return nil, err
			}
		}
		if err := pr.pass(ctx, t, graph); err != nil {
			return nil, err
		}
		if err := pr.record(rec, t, r, r >= warm); err != nil {
			return nil, err
		}
	}
	res := pr.result(rec, t, repeat)
	res.Pass = pr.measurement(rec.passes, opt)
	res.Graph, res.GraphError = graph != nil, graphErr
	if err := pr.readLocal(res); err != nil { // local.go
		return nil, err
	}
	return res, nil
}

// passTiming says what a pass does beside the class kernels and which
// events it records.
type passTiming struct {
	zero    bool // memset the counters: some launched class does not reset its own
	classes bool // a timer around each class kernel (else the pass's time is the class's)
	prep    bool // timers around the preparation and each of its kernels
	untimed bool // PassOnly on a pass of several kernels: none timed apart
}

// timing plans the passes: a pass whose launched classes all reset their
// own counters needs no memset; one launched class without preparation
// needs no class timer either (its time is the pass's): a one-kernel
// plan's pass is then an event, the launch and an event, as single-kernel
// codes are timed.
func (pr *Prepared) timing(opt RunOptions) passTiming {
	var t passTiming
	launched := 0
	for i := range pr.classes {
		if pc := &pr.classes[i]; pc.launched() {
			launched++
			t.zero = t.zero || !pc.c.SelfReset
		}
	}
	prepared := len(pr.preparers) > 0
	t.classes = (launched > 1 || prepared || t.zero) && !opt.PassOnly // a memset is not kernel time
	t.prep = prepared && !opt.PassOnly
	t.untimed = opt.PassOnly && (launched > 1 || prepared)
	return t
}

// pass runs one pass between the pass timer's events: the counters'
// memset, the families' preparation, every class; graph, when not nil,
// replays them (capture).
func (pr *Prepared) pass(ctx context.Context, t passTiming, graph gpu.Replay) error {
	if err := pr.zeroLocal(); err != nil { // outside the pass's time (local.go)
		return err
	}
	if err := pr.passTimer.Start(); err != nil {
		return fmt.Errorf("plan %s: pass timer: %w", pr.name, err)
	}
	if graph != nil {
		if err := graph.Launch(); err != nil {
			return fmt.Errorf("plan %s: replaying the pass: %w", pr.name, err)
		}
	} else if err := pr.passWork(ctx, t); err != nil {
		return err
	}
	if err := pr.passTimer.Stop(); err != nil {
		return fmt.Errorf("plan %s: pass timer: %w", pr.name, err)
	}
	return nil
}

// replayBlocker is a family whose pass cannot be recorded once and
// replayed: it reads the device between its launches.
type replayBlocker interface{ noReplay() string }

// replayable says whether the device can record a pass and every launched
// family allows its replay, and why not ("" where the device records
// nothing).
func (pr *Prepared) replayable() (bool, string) {
	if _, ok := pr.dev.(gpu.Capturer); !ok {
		return false, ""
	}
	for i := range pr.classes {
		if pc := &pr.classes[i]; pc.launched() {
			if b, ok := pc.fam.(replayBlocker); ok {
				return false, b.noReplay()
			}
		}
	}
	return true, ""
}

// capture records the work of a pass (passWork) for replay as one launch
// (replayable), or returns why it could not.
func (pr *Prepared) capture(ctx context.Context, t passTiming) (gpu.Replay, string) {
	g, err := pr.dev.(gpu.Capturer).Capture(func() error { return pr.passWork(ctx, t) })
	if err != nil {
		return nil, err.Error()
	}
	return g, ""
}

// passWork queues a pass's work inside the pass timer's events.
func (pr *Prepared) passWork(ctx context.Context, t passTiming) error {
	if t.zero {
		if err := pr.counts.Zero(); err != nil {
			return fmt.Errorf("plan %s: zeroing counts: %w", pr.name, err)
		}
	}
	if err := pr.prepare(t.prep); err != nil {
		return err
	}
	for i := range pr.classes {
		if pc := &pr.classes[i]; pc.launched() {
			if err := pr.runClass(ctx, pc, t.classes); err != nil {
				return err
			}
		}
	}
	return nil
}

// prepare runs the preparers' device work of a pass, between the
// preparation timer's events when timed.
func (pr *Prepared) prepare(timed bool) error {
	if len(pr.preparers) == 0 {
		return nil
	}
	if timed {
		if err := pr.prepTimer.Start(); err != nil {
			return fmt.Errorf("plan %s: preparation timer: %w", pr.name, err)
		}
	}
	for _, p := range pr.preparers {
		if err := p.prepare(pr, timed); err != nil {
			return err
		}
	}
	if timed {
		if err := pr.prepTimer.Stop(); err != nil {
			return fmt.Errorf("plan %s: preparation timer: %w", pr.name, err)
		}
	}
	return nil
}

// runClass has the class's family launch it, between the class timer's
// events when timed.
func (pr *Prepared) runClass(ctx context.Context, pc *prepClass, timed bool) error {
	if pc.zeroFirst && !pc.square() {
		if err := pr.scratch.Zero(); err != nil {
			return fmt.Errorf("plan %s: zeroing the scratch: %w", pr.name, err)
		}
	}
	if timed {
		if err := pc.timer.Start(); err != nil {
			return pr.kernelErr(pc, err)
		}
	}
	if err := pc.fam.launch(ctx, pr, pc); err != nil {
		return err
	}
	if timed {
		if err := pc.timer.Stop(); err != nil {
			return pr.kernelErr(pc, err)
		}
	}
	return nil
}

// passRecord gathers the passes' times and counts.
type passRecord struct {
	perClass              [][]float64 // per class, per timed pass
	totals, passes, preps []float64   // per timed pass
	prepParts             [][]float64 // per preparation kernel, per timed pass
	first, counts         []uint64    // the first pass's counts, the last one's
}

// record reads the times and counts of pass r, which Result keeps when
// keep (not a warmup pass).
func (pr *Prepared) record(rec *passRecord, t passTiming, r int, keep bool) error {
	total, err := pr.classTimes(rec, t, keep)
	if err != nil {
		return err
	}
	if err := gpu.ReadSlice(pr.counts, 0, rec.counts); err != nil {
		return fmt.Errorf("plan %s: reading counts: %w", pr.name, err)
	}
	if rec.first == nil {
		rec.first = slices.Clone(rec.counts)
	} else if !slices.Equal(rec.first, rec.counts) {
		return fmt.Errorf("plan %s: pass %d counted %v per class, pass 0 counted %v: the kernels are not deterministic", pr.name, r, rec.counts, rec.first)
	}
	pass, err := pr.passTimer.Elapsed()
	if err != nil {
		return fmt.Errorf("plan %s: pass timer: %w", pr.name, err)
	}
	if t.untimed {
		total = pass
	}
	if !keep {
		return nil
	}
	rec.totals = append(rec.totals, total)
	rec.passes = append(rec.passes, pass)
	if t.prep {
		return pr.recordPrep(rec)
	}
	return nil
}

// classTimes reads each launched class's time of the last pass (0 for the
// others, and for all when untimed) and returns their sum.
func (pr *Prepared) classTimes(rec *passRecord, t passTiming, keep bool) (float64, error) {
	total := 0.0
	for i := range pr.classes {
		pc := &pr.classes[i]
		if !pc.launched() || t.untimed {
			if keep {
				rec.perClass[i] = append(rec.perClass[i], 0) // not launched, or not measured
			}
			continue
		}
		timer := pc.timer
		if !t.classes {
			timer = pr.passTimer // the class is the pass
		}
		ms, err := timer.Elapsed()
		if err != nil {
			return 0, fmt.Errorf("plan %s: kernel %s (class %s): %w", pr.name, pc.c.Kernel, pc.c.Name, err)
		}
		total += ms
		if keep {
			rec.perClass[i] = append(rec.perClass[i], ms)
		}
	}
	return total, nil
}

// recordPrep reads the preparation's time and its kernels'.
func (pr *Prepared) recordPrep(rec *passRecord) error {
	ms, err := pr.prepTimer.Elapsed()
	if err != nil {
		return fmt.Errorf("plan %s: preparation timer: %w", pr.name, err)
	}
	rec.preps = append(rec.preps, ms)
	k := 0
	for _, p := range pr.preparers {
		parts, err := p.prepTimes()
		if err != nil {
			return fmt.Errorf("plan %s: preparation timers: %w", pr.name, err)
		}
		for _, x := range parts {
			if k == len(rec.prepParts) {
				rec.prepParts = append(rec.prepParts, nil)
			}
			rec.prepParts[k] = append(rec.prepParts[k], x)
			k++
		}
	}
	return nil
}

// result summarises the recorded passes.
func (pr *Prepared) result(rec *passRecord, t passTiming, repeat int) *Result {
	res := pr.res
	res.Runs = repeat
	res.KernelMs = summarize(rec.totals)
	res.GPUMs = summarize(rec.passes)
	res.GPUSamples = rec.passes
	res.PrepMs = summarize(rec.preps)
	if t.prep {
		res.PrepKernels = map[string]Timing{}
		k := 0
		for _, p := range pr.preparers {
			for _, name := range p.prepNames() {
				var ms []float64
				if k < len(rec.prepParts) {
					ms = rec.prepParts[k]
				}
				res.PrepKernels[name] = summarize(ms)
				k++
			}
		}
	}
	res.PerClass = make([]ClassResult, len(pr.classes))
	for i := range pr.classes {
		pc := &pr.classes[i]
		c := pc.c
		cr := ClassResult{
			Slot: c.Slot, Name: c.Name, Skip: c.Skip, Kernel: c.Kernel,
			Iterator: c.Iterator, Intersection: c.Intersection, Width: c.Width, Block: c.Block,
			Grid: pc.grid, SharedBytes: c.StaticSharedBytes + c.DynamicSharedBytes,
			Items: pc.items, ItemKind: c.Items, List: pc.list != nil,
			Triangles: rec.first[i], Ms: summarize(rec.perClass[i]),
		}
		if pc.fam != nil {
			pc.fam.stats(pc, &cr)
		}
		res.Triangles += rec.first[i]
		res.PerClass[i] = cr
	}
	return &res
}
