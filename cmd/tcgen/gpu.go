package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/runtime/nvml"
	"github.com/tcgen/tcgen/store"
)

// noGPU reports whether err means there is no usable GPU path here (no
// driver, no device, no NVRTC), as opposed to a failure on a GPU.
func noGPU(err error) bool {
	return errors.Is(err, cuda.ErrNoDriver) || errors.Is(err, cuda.ErrNoDevice) || errors.Is(err, cuda.ErrNoNVRTC)
}

// openGPU opens the device and a caching NVRTC compiler, NVRTC loading
// (a large library, slow from a cold disk) while the driver creates the
// context.
func (g *Globals) openGPU(f GPUFlags) (*cuda.Device, gpu.Compiler, error) {
	gs := g.startGPU(f, false)
	og, a := gs.open(), gs.ahead()
	if og.err != nil {
		return nil, nil, og.err
	}
	if a.err != nil {
		og.dev.Close()
		return nil, nil, a.err
	}
	return og.dev, a.comp, nil
}

// startedGPU is a device being opened in the background (startGPU):
// ahead gives its facts and the compiler once the driver has started and
// NVRTC is loaded, open the device once its context is made.
type startedGPU struct {
	ahead  func() aheadGPU
	open   func() openedGPU
	opened chan struct{} // closed once open has its result
}

// aheadGPU is what a count can plan with before the context is made.
type aheadGPU struct {
	facts gpu.DeviceFacts
	comp  gpu.Compiler
	err   error
}

// openedGPU is the open device and how long it took from the start.
type openedGPU struct {
	dev *cuda.Device
	err error
	ms  float64
}

// startGPU opens the device and the compiler in the background, so the
// driver starts (cuInit, the device's facts) and creates the context
// (200-250 ms in all on an H100) while the graph is read, and the plan is
// chosen, generated and compiled once the facts are known, about half way.
// NVRTC loads beside them, or, lazy, only where its version is not on
// record, else when a kernel is not in the cache. A command that ends
// before it asks leaves the context to the process's exit.
func (g *Globals) startGPU(f GPUFlags, lazy bool) startedGPU {
	opt := cuda.Options{NVRTCPath: f.NVRTC}
	type compiler struct {
		c   gpu.Compiler
		err error
	}
	cc, fc, dc := make(chan compiler, 1), make(chan aheadGPU, 1), make(chan openedGPU, 1)
	opened := make(chan struct{})
	t := time.Now()
	go func() {
		c, err := g.openCompiler(opt, lazy)
		cc <- compiler{c, err}
	}()
	go func() {
		defer close(opened)
		op, err := cuda.Start(f.Device, opt)
		if err != nil {
			err = withCode(exitNoGPU, err)
			fc <- aheadGPU{err: err}
			dc <- openedGPU{err: err}
			return
		}
		fc <- aheadGPU{facts: op.Facts()}
		dev, err := op.Context()
		if err != nil {
			err = withCode(exitNoGPU, err)
		}
		dc <- openedGPU{dev, err, msSince(t)}
	}()
	comp := sync.OnceValue(func() compiler { return <-cc })
	return startedGPU{
		ahead: sync.OnceValue(func() aheadGPU {
			a, c := <-fc, comp()
			if a.err == nil && c.err != nil {
				a.err = c.err
			}
			a.comp = c.c
			return a
		}),
		open:   sync.OnceValue(func() openedGPU { return <-dc }),
		opened: opened,
	}
}

// deviceWait is count's device, waited for once it is needed (get).
type deviceWait struct {
	gs     startedGPU
	dev    *cuda.Device
	err    error   // the context's failure
	waited float64 // ms waited for it
}

// errContext stands for the context's failure inside the preparation, so
// that it is not taken for a plan that does not fit (deviceWait.err is
// the error count reports).
var errContext = errors.New("the GPU context failed")

// get waits for the device, once; its time goes to res.
func (w *deviceWait) get(res *countResult) (*cuda.Device, error) {
	if w.dev == nil && w.err == nil {
		t := time.Now()
		og := w.gs.open()
		w.waited = msSince(t)
		w.dev, w.err, res.ContextMs = og.dev, og.err, og.ms
		res.ContextWaitMs += w.waited
	}
	if w.err != nil {
		return nil, errContext
	}
	return w.dev, nil
}

// ready reports whether the context is made already.
func (w *deviceWait) ready() bool {
	select {
	case <-w.gs.opened:
		return true
	default:
		return false
	}
}

// release closes the device, or, when the count ended without it, closes
// what the background open makes.
func (w *deviceWait) release() {
	if w.dev != nil {
		w.dev.Close()
		return
	}
	go func() {
		if og := w.gs.open(); og.dev != nil {
			og.dev.Close()
		}
	}()
}

// openCompiler opens NVRTC behind the kernel cache; lazy, only once a
// kernel is not in the cache where its version is on record
// (cuda.LazyCompiler: a count whose kernels are cached never loads it).
func (g *Globals) openCompiler(opt cuda.Options, lazy bool) (gpu.Compiler, error) {
	dir, err := g.cacheDir()
	if err != nil {
		return nil, err
	}
	dir = filepath.Join(dir, "kernels")
	var comp gpu.Compiler
	if lazy {
		comp, err = cuda.NewLazyCompiler(opt, dir)
	} else {
		comp, err = cuda.NewCompiler(opt)
	}
	if err != nil {
		return nil, withCode(exitNoGPU, err)
	}
	return &cuda.CachingCompiler{Inner: comp, Dir: dir,
		Warn: func(err error) { g.notice("kernel cache: %v", err) }}, nil
}

// countGPU prepares the plan on the device, runs it once (total_ms), then
// runs the warm-ups and timed repeats.
func (c *CountCmd) countGPU(g *Globals, gs startedGPU, p ir.Plan, gr *graph.Graph, o *graph.Oriented, res *countResult, loc *localCounts, start time.Time) error {
	nv := c.startNVML()
	defer func() { nv().Close() }()
	// The plan is chosen, generated and compiled on the device's facts
	// while the driver makes the context; the count waits for it only to
	// finish the preparation on the device.
	waitStart := time.Now()
	ah := gs.ahead()
	if ah.err != nil {
		return ah.err
	}
	facts, comp := ah.facts, ah.comp
	res.ContextWaitMs = msSince(waitStart)
	w := &deviceWait{gs: gs}
	var ran countRunner // closed before the device, both before the output
	defer func() {
		t := time.Now()
		if ran != nil {
			ran.Close()
		}
		w.release()
		res.ReleaseMs = msSince(t)
	}()
	factsStart := time.Now()
	switch {
	case c.localOutput() != ir.OutputTotal: // p is the local plan (localgpu.go)
	case c.Preset == "" && c.Spec == "":
		// The driver's facts, not NVML's live clocks: the store's GPU key
		// holds the nominal memory clock (autotune.GPUKey), as tune keyed it.
		p, res.PlanSource = g.choosePlan(p, gr, o, facts, comp)
	}
	res.Backend, res.Device, res.Plan = "gpu", facts.Name, p.Name()
	res.FactsMs = msSince(factsStart)
	prepStart := time.Now()
	run, p, src, err := c.prepareGPU(g, w, facts, comp, p, gr, o, res)
	if err != nil {
		return err
	}
	ran = run
	res.Plan, res.PlanSource = p.Name(), src
	res.PrepareMs = msSince(prepStart) - w.waited
	timed := executor.RunOptions{Repeat: c.Repeat, Warmup: c.Warmup, PassOnly: c.PassOnly, NoGraph: c.NoGraph, FlushL2: c.FlushL2}
	out, err := c.runGPU(g, run, p, timed, res, start, nil)
	if err != nil {
		return err
	}
	res.ClockSource = "driver"
	if nf, err := nv().Read(facts.UUID); err == nil {
		nf.Apply(&out.Device)
		res.ClockSource = "nvml"
	}
	loc.o, loc.perVertex, loc.support = out.Oriented, out.LocalPerVertex(), out.LocalSupport()
	return nil
}

// prepareGPU prepares p (or, where it cannot take the graph, a fallback
// plan, or the partitioned count) for w's device with facts: on the host
// while the context is made, then on the device; whole, as before, when
// the context came first (a large graph's read), so that the upload's
// buffers are pinned beside the host's work and the compile runs beside
// the upload.
func (c *CountCmd) prepareGPU(g *Globals, w *deviceWait, facts gpu.DeviceFacts, comp gpu.Compiler, p ir.Plan, gr *graph.Graph, o *graph.Oriented, res *countResult) (countRunner, ir.Plan, string, error) {
	popt := executor.RunOptions{DeviceMemory: c.deviceMemory(), ChunkBytes: c.chunkBytes()}
	if o != nil {
		gr, popt.Oriented = nil, o // already oriented: the plan must match it
	}
	pr, p, src, err := g.prepareChosen(p, res.PlanSource, func(p ir.Plan) (*executor.Prepared, error) {
		if w.ready() {
			d, err := w.get(res)
			if err != nil {
				return nil, err
			}
			return executor.Prepare(g.ctx, d, comp, p, gr, popt)
		}
		hp, err := executor.PrepareHost(g.ctx, facts, comp, p, gr, popt)
		if err != nil {
			return nil, err
		}
		d, err := w.get(res)
		if err != nil {
			return nil, err
		}
		return hp.OnDevice(d)
	})
	if w.err != nil {
		return nil, p, src, w.err
	}
	var run countRunner = pr
	if err != nil && c.partitionable(err) { // partition.go
		unfit := err
		d, err := w.get(res)
		if err != nil {
			return nil, p, src, w.err
		}
		if run, p, err = c.preparePartitioned(g, d, comp, p, gr, popt, unfit); err != nil {
			return nil, p, "partition", gpuError(err)
		}
		return run, p, "partition", nil
	}
	if err != nil {
		return nil, p, src, gpuError(err)
	}
	return run, p, src, nil
}

// startNVML starts NVML for timed passes (--repeat 2 and more), which
// report the clocks and temperature they ran at, read after the runs; it
// starts while the CUDA context is created. A single count reports the
// driver's facts: NVML's start and shutdown made a warm count of a small
// graph 18 ms longer (docs/performance.md, "End to end"). The getter
// gives nil without NVML or for a single count.
func (c *CountCmd) startNVML() func() *nvml.Session {
	if c.Repeat <= 1 {
		return func() *nvml.Session { return nil }
	}
	nvs := make(chan *nvml.Session, 1)
	go func() {
		s, _ := nvml.Open() // nil without NVML
		nvs <- s
	}()
	return sync.OnceValue(func() *nvml.Session { return <-nvs }) // received once, nil or not
}

// countRunner is a plan prepared on the device: the whole graph
// (executor.Prepared) or in partitions (executor.Partitioned).
type countRunner interface {
	Run(ctx context.Context, opt executor.RunOptions) (*executor.Result, error)
	Close() error
}

// runGPU runs the prepared plan once (total_ms), then between (nil: nothing)
// with that run, then the warm-ups and timed repeats of timed, and fills
// res with the timed runs, whose count must be the first run's, or the
// run between returns (count --mpi: a rank's count moves with its share).
func (c *CountCmd) runGPU(g *Globals, run countRunner, p ir.Plan, timed executor.RunOptions, res *countResult, start time.Time, between func(first *executor.Result) (*executor.Result, error)) (*executor.Result, error) {
	runStart := time.Now()
	first, err := run.Run(g.ctx, executor.RunOptions{Repeat: 1})
	if err != nil {
		return nil, gpuError(err)
	}
	res.FirstRunMs = msSince(runStart)
	res.TotalMs = msSince(start)
	ref := first // the count the timed runs must give
	if between != nil {
		if ref, err = between(first); err != nil {
			return nil, err
		}
	}
	out, err := run.Run(g.ctx, timed)
	if err != nil {
		return nil, gpuError(err)
	}
	if out.Triangles != ref.Triangles {
		// The same kernels on the same data must agree: a difference is a
		// race in generated code.
		return nil, errorf(exitMismatch, "plan %s: runs disagree (%d then %d triangles): nondeterministic kernel", p.Name(), ref.Triangles, out.Triangles)
	}
	res.Triangles = out.Triangles
	res.GPU = out
	res.KernelMs, res.KernelMinMs, res.KernelMaxMs = out.KernelMs.Median, out.KernelMs.Min, out.KernelMs.Max
	res.GPUMs, res.GPUMinMs, res.GPUMaxMs = out.GPUMs.Median, out.GPUMs.Min, out.GPUMs.Max
	res.Runs = out.Runs
	if out.Pass.Passes > 0 { // the timing routine's (a run on several devices has none)
		res.Measurement = &out.Pass
	}
	res.CountMs = out.KernelMs.Median
	return out, nil
}

// gpuError attaches the exit code of a failure on the GPU path.
func gpuError(err error) error {
	var ce *cuda.CompileError
	var le *cuda.LoadModuleError
	var la *cuda.LaunchError
	var ie *graph.InputError
	switch {
	case errors.As(err, &ie): // a CSR file whose deferred checks failed in the upload: the file's own error
		return ie
	case errors.Is(err, executor.ErrTooLarge), errors.Is(err, cuda.ErrOutOfMemory):
		return withCode(exitTooLarge, err)
	case errors.As(err, &ce), errors.As(err, &le), errors.As(err, &la):
		return withCode(exitCompile, err)
	case noGPU(err):
		return withCode(exitNoGPU, err)
	}
	return fmt.Errorf("gpu: %w", err)
}

// staleNotice says why the store's better-ranked rows were not used.
func staleNotice(n int) string {
	return fmt.Sprintf("store: %d better-ranked rows of other generated code ignored (measured by another tcgen build; tcgen tune measures this one's)", n)
}

// choosePlan picks count's plan when none is given: the tuning store's best
// for this graph on this GPU (among rows of the code this build generates), else the model's prediction from the graphs
// tuned on it and on other GPUs (autotune.Model), else def (the built-in default). It says which on stderr;
// a store that cannot be read only costs the notice.
func (g *Globals) choosePlan(def ir.Plan, gr *graph.Graph, o *graph.Oriented, facts gpu.DeviceFacts, comp gpu.Compiler) (ir.Plan, string) {
	fallback := func(why string) (ir.Plan, string) {
		g.notice("plan: %s, the built-in default (examples/default.yaml)%s", def.Name(), why)
		return def, "default"
	}
	if g.NoStore {
		return fallback("")
	}
	if g.Store == "" { // the default store: read it if it exists, never create it here
		path, err := store.DefaultPath()
		if err != nil {
			return fallback("")
		}
		if _, err := os.Stat(path); err != nil {
			return fallback("; nothing tuned yet (tcgen tune)")
		}
	}
	st, err := g.openStore()
	if err != nil {
		return fallback(fmt.Sprintf("; the tuning store: %v", err))
	}
	defer st.Close()
	target := executor.Target(facts, "")
	usable := func(p ir.Plan) bool { return autotune.Restrict(p, target) == nil }
	major, minor := comp.Version()
	key := autotune.GPUKey(facts, major, minor)
	fp := graph.Fingerprint(&gr.CSR) // an oriented file: its own CSR, as tune keyed it
	row, skipped, ok, err := st.Best(fp, key, autotune.CodeMatcher(facts))
	if skipped > 0 {
		g.notice("%s", staleNotice(skipped))
	}
	if err == nil && ok {
		if p, err := ir.Parse([]byte(row.Spec), "the tuning store's plan "+row.Plan); err == nil && usable(p) {
			g.notice("plan: %s, the tuning store's best for this graph on this GPU (%.4f ms median of %d passes when tuned, tcgen %s)", p.Name(), row.MedianMs, row.Runs, row.Version)
			return p, "store"
		}
	}
	rows, err := st.Rows(store.Filter{}) // every GPU's, failures too: a plan that counted wrong is never predicted
	switch {
	case err != nil || len(rows) == 0:
		return fallback("; nothing tuned to predict from (tcgen tune)")
	case o != nil:
		return fallback("; the model needs the undirected graph's features, this file is oriented")
	}
	on := autotune.DeviceGPU(facts, key)
	p, pred, m, ok := predictPlan(rows, graph.ComputeFeatures(gr), on, fp, target, def)
	graphs, gpus := m.Reach(on)
	switch {
	case !ok && graphs == 0:
		return fallback("; nothing tuned on this GPU, and the other GPUs' rows, or this GPU, lack the GPU facts the model needs to use them (tuning store schema 5, the driver's memory clock and bus width)")
	case !ok:
		return fallback("; the model knows no plan that fits this GPU")
	case !pred.Confident:
		return fallback(fmt.Sprintf("; the model's nearest tuned graph (%s) lies %.1f away (feature spreads, and factors of two of the GPU's facts), beyond the %g it trusts: tune this graph (tcgen tune)",
			pred.Neighbors[0], pred.Distance, autotune.ConfidentDistance))
	}
	gpuWord := "GPUs"
	if gpus == 1 {
		gpuWord = "GPU"
	}
	kept := ""
	if p.Name() == def.Name() {
		kept = fmt.Sprintf("; the default, as they found no plan %.0f%% faster", (autotune.DefaultMargin-1)*100)
	}
	g.notice("plan: %s, predicted from %d tuned graphs on %d %s (nearest: %s; %.2fx their best there%s)", p.Name(), graphs, gpus, gpuWord, strings.Join(pred.Neighbors, ", "), pred.Score, kept)
	return p, "model"
}
