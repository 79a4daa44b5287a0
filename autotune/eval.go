package autotune

import (
	"context"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/store"
)

// GPU verifies, then times, the candidates of a space on one graph and one
// device, with the routine `count --repeat` uses (executor.Prepared.Run:
// warm-ups, an optional L2 flush before each pass, CUDA events around each
// whole pass, median, min, max and the median's confidence interval). Every
// measurement is written to the store as soon as it is taken, so a crash or
// Ctrl-C loses nothing finished, and a measurement already in the store is
// answered from it without the GPU (a second tune resumes the first).
type GPU struct {
	Ctx  context.Context
	Dev  gpu.Device
	Comp gpu.Compiler
	// Graph is the canonical graph (nil for an oriented file); Oriented is
	// set when the graph was read oriented: candidates must match it.
	Graph    *graph.Graph
	Oriented *graph.Oriented
	Space    *Space
	// Reference is the exact count every candidate must reproduce before
	// it is timed (the CPU oracle's, or a known count).
	Reference uint64
	Warmup    int
	// FlushL2 flushes the L2 before each timed pass (executor.RunOptions);
	// such measurements are stored and reused apart from unflushed ones.
	FlushL2 bool
	// Store, when not nil, answers measured candidates and keeps new ones.
	Store *store.Store
	// Base holds the row fields every measurement shares: graph, GPU,
	// version, space, source.
	Base store.Row
	// Clocks reads the GPU's clocks and temperature with each measurement
	// (NVML); nil or an error leaves them 0.
	Clocks func() (smMHz, memMHz, tempC int, err error)
	// Workers is how many candidates compile at once ahead of the GPU
	// (default 4).
	Workers int
	// Ahead, when set, compiles a candidate into the kernel cache instead
	// of this process's compiler: a pool of worker processes, since NVRTC
	// compiles one unit at a time per process (two goroutines compiled no
	// faster than one). Workers should then be the pool's size.
	Ahead func(p ir.Plan) error
	// SlowMs: a candidate whose verifying pass takes longer is timed with
	// at most 3 passes and no warm-up (a sweep over seconds-long plans on
	// large graphs would spend its device time on them); 0 = no limit.
	SlowMs float64
	// Owner is the lease owner id (default store.NewOwner()): before
	// measuring a candidate the evaluator leases it in the store, so two
	// tunes on one store share the candidates instead of both measuring
	// them (lease.go).
	Owner string
	// LeaseTTL is how long a lease lasts between renewals (default: from
	// the measurement's expected length, leaseTTL); LeaseWait is how long
	// to wait for another owner's measurement before taking the candidate
	// anyway (default leaseWait).
	LeaseTTL, LeaseWait time.Duration

	mu       sync.Mutex
	oriented map[orientKey]*graph.Oriented
	compiles map[int]chan error // candidate -> its compile's outcome
	codeMu   sync.Mutex         // guards codes (Prefetch holds mu while it asks)
	codes    map[int]string     // candidate -> its code hash
	sem      chan struct{}
}

type orientKey struct {
	by      ir.Orientation
	relabel bool
}

// WithSpace is an evaluator of another space on the same graph, device,
// store and settings (bench adds a graph's tuned plan this way).
func (e *GPU) WithSpace(sp *Space) *GPU {
	return &GPU{Ctx: e.Ctx, Dev: e.Dev, Comp: e.Comp, Graph: e.Graph, Oriented: e.Oriented, Space: sp,
		Reference: e.Reference, Warmup: e.Warmup, FlushL2: e.FlushL2, Store: e.Store, Base: e.Base, Clocks: e.Clocks,
		Workers: e.Workers, Ahead: e.Ahead, SlowMs: e.SlowMs, Owner: e.owner(), LeaseTTL: e.LeaseTTL, LeaseWait: e.LeaseWait}
}

// Prefetch starts compiling candidates in the background (the kernel cache
// keeps the images, so Prepare later loads them without compiling).
func (e *GPU) Prefetch(is []int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.compiles == nil {
		e.compiles = map[int]chan error{}
		e.sem = make(chan struct{}, max(e.Workers, 1))
		if e.Workers == 0 {
			e.sem = make(chan struct{}, 4)
		}
	}
	for _, i := range is {
		if _, ok := e.compiles[i]; ok || i < 0 || i >= len(e.Space.Plans) {
			continue
		}
		if _, ok, _ := e.stored(i); ok {
			continue // measured: nothing to compile
		}
		ch := make(chan error, 1)
		e.compiles[i] = ch
		go func() {
			e.sem <- struct{}{}
			defer func() { <-e.sem }()
			if e.Ctx != nil && e.Ctx.Err() != nil {
				ch <- e.Ctx.Err() // stopped: compile nothing more
				return
			}
			if e.Ahead != nil {
				ch <- e.Ahead(e.Space.Plans[i])
				return
			}
			ch <- executor.Compile(e.Comp, e.Dev.Facts(), e.Space.Plans[i], "")
		}()
	}
}

// Parallel is how many candidates compile at once: in-order strategies
// hint twice that many ahead, so no worker waits.
func (e *GPU) Parallel() int { return max(e.Workers, 1) }

// compiled waits for candidate i's compile, starting it if needed.
func (e *GPU) compiled(i int) error {
	e.Prefetch([]int{i})
	e.mu.Lock()
	ch := e.compiles[i]
	e.mu.Unlock()
	if ch == nil { // answered by the store after all
		return executor.Compile(e.Comp, e.Dev.Facts(), e.Space.Plans[i], "")
	}
	err := <-ch
	ch <- err // later waiters see it too
	return err
}

// Evaluate implements Evaluator.
func (e *GPU) Evaluate(i, runs int) (Result, error) {
	if e.Ctx == nil {
		e.Ctx = context.Background()
	}
	if err := e.Ctx.Err(); err != nil {
		return Result{}, err
	}
	if r, ok, err := e.cached(i, runs); err != nil || ok {
		return r, err
	}
	if e.Store == nil {
		return e.measure(i, runs, e.newRow(i))
	}
	return e.leased(i, runs)
}

// cached is candidate i's stored result, when the store has a reusable one.
func (e *GPU) cached(i, runs int) (Result, bool, error) {
	row, ok, err := e.stored(i)
	if err != nil {
		return Result{}, false, err
	}
	if !ok || !e.reusable(row, runs) {
		return Result{}, false, nil
	}
	r := FromRow(row, runs)
	r.Cached = true
	return r, true, nil
}

// stored is candidate i's newest row in the store for this graph, GPU and
// version, with the L2 flushed as e flushes it, that measured the code
// this build generates for the candidate: a
// candidate whose code has no row (a template edited since, an older
// store's row without a code hash) is measured again.
func (e *GPU) stored(i int) (store.Row, bool, error) {
	code := e.code(i)
	if e.Store == nil || code == "" {
		return store.Row{}, false, nil
	}
	return e.Store.GetCode(e.Base.Graph, e.Base.GPU, e.Base.Version, e.Space.Cands.Plans[i], code, e.FlushL2)
}

// code is candidate i's code hash (executor.CodeHash), computed once; ""
// when it does not generate (its measurement then fails to compile).
func (e *GPU) code(i int) string {
	e.codeMu.Lock()
	defer e.codeMu.Unlock()
	if h, ok := e.codes[i]; ok {
		return h
	}
	h, _ := executor.CodeHash(e.Dev.Facts(), e.Space.Plans[i], "")
	if e.codes == nil {
		e.codes = map[int]string{}
	}
	e.codes[i] = h
	return h
}

// newRow is the store row for candidate i before it is measured.
func (e *GPU) newRow(i int) store.Row {
	row := e.Base
	row.Plan = e.Space.Cands.Plans[i]
	row.Code = e.code(i)
	if js, err := e.Space.Plans[i].Canonical().EncodeJSON(); err == nil {
		row.Spec = string(js)
	}
	row.Point = e.Space.Cands.Points[i].Key()
	row.Reference = e.Reference
	row.Warmup = e.Warmup
	row.Flushed = e.FlushL2
	row.Time = time.Now().UTC()
	return row
}

// measure compiles, verifies and times candidate i, recording row.
func (e *GPU) measure(i, runs int, row store.Row) (Result, error) {
	plan := e.Space.Plans[i]
	name := row.Plan
	fail := func(st store.Status, err error) (Result, error) {
		row.Status, row.Reason = st, ir.OneLine(err)
		if perr := e.put(row); perr != nil {
			return Result{}, perr
		}
		if errors.Is(err, executor.ErrDeviceLost) {
			// Recorded against this candidate; every later one would fail
			// the same way through no fault of its own.
			return Result{}, fmt.Errorf("plan %s: %w", name, err)
		}
		return FromRow(row, runs), nil
	}

	t0 := time.Now()
	if err := e.compiled(i); err != nil {
		if e.Ctx.Err() != nil {
			return Result{}, e.Ctx.Err()
		}
		return fail(store.StatusCompile, err)
	}
	row.CompileMs = msSince(t0)
	o, err := e.orient(plan)
	if err != nil {
		return fail(store.StatusInvalid, err)
	}
	t0 = time.Now()
	pr, err := executor.Prepare(e.Ctx, e.Dev, e.Comp, plan, e.Graph, executor.RunOptions{Oriented: o})
	if err != nil {
		if e.Ctx.Err() != nil {
			return Result{}, e.Ctx.Err()
		}
		if errors.Is(err, executor.ErrTooLarge) {
			return fail(store.StatusTooLarge, err)
		}
		return fail(store.StatusLaunch, err)
	}
	defer pr.Close()
	row.PrepareMs = msSince(t0)
	// Verify, then time: a wrong count is recorded and never timed.
	first, err := pr.Run(e.Ctx, executor.RunOptions{Repeat: 1})
	if err != nil {
		if e.Ctx.Err() != nil {
			return Result{}, e.Ctx.Err()
		}
		return fail(store.StatusLaunch, err)
	}
	row.Triangles = first.Triangles
	if first.Triangles != e.Reference {
		return fail(store.StatusWrong, fmt.Errorf("counted %d triangles, the reference is %d", first.Triangles, e.Reference))
	}
	warm := e.Warmup
	if e.SlowMs > 0 && first.GPUMs.Median > e.SlowMs {
		runs, warm = min(runs, slowRuns), 0
		row.Warmup = 0
	}
	res, err := pr.Run(e.Ctx, executor.RunOptions{Repeat: runs, Warmup: warm, FlushL2: e.FlushL2})
	if err != nil {
		if e.Ctx.Err() != nil {
			return Result{}, e.Ctx.Err()
		}
		return fail(store.StatusLaunch, err)
	}
	if res.Triangles != e.Reference {
		return fail(store.StatusWrong, fmt.Errorf("timed runs counted %d triangles, the reference is %d", res.Triangles, e.Reference))
	}
	if e.Clocks != nil {
		if sm, mem, temp, err := e.Clocks(); err == nil {
			row.ClockSMMHz, row.ClockMemMHz, row.TempC = sm, mem, temp
		}
	}
	row.Status = store.StatusOK
	setTimes(&row, res.Pass)
	row.KernelMs = res.KernelMs.Median
	if err := e.put(row); err != nil {
		return Result{}, err
	}
	return FromRow(row, runs), nil
}

// setTimes puts the timing routine's measurement m into row.
func setTimes(row *store.Row, m executor.Measurement) {
	row.Runs, row.Samples = m.Passes, m.SamplesMs
	row.MedianMs, row.MinMs, row.MaxMs = m.MedianMs, m.MinMs, m.MaxMs
	row.Flushed = m.FlushL2
}

// reusable reports whether a stored measurement answers a request for runs
// timed passes: it was checked against the same reference (a wrong
// reference must not poison later tunes), and it is a failure (final), has
// the passes, or is a slow point SlowMs capped at 3 passes.
func (e *GPU) reusable(row store.Row, runs int) bool {
	switch {
	case row.Reference != e.Reference:
		return false
	case row.Status != store.StatusOK, row.Runs >= runs:
		return true
	}
	return e.SlowMs > 0 && row.MedianMs > e.SlowMs && row.Runs >= min(runs, slowRuns)
}

// slowRuns is how many passes time a candidate slower than SlowMs.
const slowRuns = 3

func (e *GPU) put(r store.Row) error {
	if e.Store == nil {
		return nil
	}
	if err := e.Store.Put(r); err != nil {
		return fmt.Errorf("tuning store: %w", err)
	}
	return nil
}

// orient returns the graph oriented as plan p needs, orienting it once per
// orientation (Prepare would do it for every candidate).
func (e *GPU) orient(p ir.Plan) (*graph.Oriented, error) {
	if o := e.Oriented; o != nil {
		by, err := executor.Orientation(p.Orientation)
		if err != nil {
			return nil, err
		}
		if by != o.By || p.Orientation != ir.OrientID && p.Relabel != o.Relabelled {
			return nil, fmt.Errorf("the plan orients by %s (relabel %v); the file is oriented by %s (relabelled %v)", p.Orientation, p.Relabel, o.By, o.Relabelled)
		}
		return o, nil
	}
	k := orientKey{p.Orientation, p.Relabel}
	if k.by == "" {
		k.by = ir.DefaultOrientation
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if o, ok := e.oriented[k]; ok {
		return o, nil
	}
	by, err := executor.Orientation(k.by)
	if err != nil {
		return nil, err
	}
	o := graph.Orient(e.Graph, by, k.relabel && k.by != ir.OrientID)
	if e.oriented == nil {
		e.oriented = map[orientKey]*graph.Oriented{}
	}
	e.oriented[k] = o
	return o, nil
}

// FromRow is the Result a stored measurement gives for runs timed passes:
// the median of its first runs samples when it has more (what a shorter
// measurement would have seen), +Inf for a failure.
func FromRow(r store.Row, runs int) Result {
	if r.Status != store.StatusOK {
		reason := string(r.Status)
		if r.Reason != "" {
			reason += ": " + r.Reason
		}
		return Result{Score: math.Inf(1), Reason: reason}
	}
	s := r.Samples
	score := r.MedianMs
	if runs > 0 && runs < len(s) {
		s = s[:runs]
		score = median(s)
	}
	return Result{Score: score, OK: true, Samples: slices.Clone(s)}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.Inf(1)
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1e3 }
