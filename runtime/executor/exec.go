package executor

import (
	"context"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"slices"
	"time"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// RunOptions control one execution of a plan.
type RunOptions struct {
	// Repeat is the number of timed runs (0: 1).
	Repeat int
	// Warmup is the number of untimed runs before them.
	Warmup int
	// Arch overrides the NVRTC architecture ("" = compute_XY of the
	// device's compute capability X.Y).
	Arch string
	// Oriented, when set, is the graph already oriented (read from an
	// oriented CSR file): Prepare uses it instead of orienting its graph
	// argument, which may then be nil. Its orientation and relabelling must
	// be the plan's.
	Oriented *graph.Oriented
	// PassOnly records no events inside a pass: the pass is timed alone,
	// and the classes' and preparation kernels' own times are not measured
	// (their Timings stay zero and KernelMs is the pass; a plan launching
	// one class without preparation is timed as before, its class's time
	// being the pass).
	PassOnly bool
}

// ErrDeviceLost is matched (errors.Is) by driver errors after which the
// context is unusable (an illegal address, a failed or timed-out launch):
// every later call fails too, so a tuner stops instead of blaming the
// candidates that follow.
var ErrDeviceLost = errors.New("the GPU context is lost")

// prestager is a device that can make its upload buffers ahead of a large
// upload (cuda.Device.Prestage).
type prestager interface {
	Prestage(upload uint64)
}

// Run executes plan p on graph g: it prepares (orients g, builds the work
// lists, generates, compiles and loads the kernels, uploads the graph),
// runs opt.Warmup untimed and opt.Repeat timed passes, and frees everything.
func Run(ctx context.Context, dev gpu.Device, comp gpu.Compiler, p ir.Plan, g *graph.Graph, opt RunOptions) (*Result, error) {
	pr, err := Prepare(ctx, dev, comp, p, g, opt)
	if err != nil {
		return nil, err
	}
	res, err := pr.Run(ctx, opt)
	if cerr := pr.Close(); err == nil && cerr != nil {
		return nil, cerr
	}
	return res, err
}

// Prepared is a plan loaded on a device with its graph uploaded, ready to
// run repeatedly. Close frees it.
type Prepared struct {
	dev      gpu.Device
	name     string
	manifest gen.Manifest
	variant  int
	res      Result // the parts Prepare knows

	mod     gpu.Module
	buffers []gpu.Buffer
	off     gpu.Buffer
	adj     gpu.Buffer
	counts  gpu.Buffer
	srcBuf  gpu.Buffer // src[e] = first vertex of edge e; nil without edge classes
	scratch gpu.Buffer // per-group scratch of the classes (scratch.go); nil when none needs it
	square  gpu.Buffer // the dense classes' bit matrix (scratch.go, gen/dense.go); nil when none
	n       uint32
	m       uint64
	classes []prepClass
	timers  []gpu.Timer

	upload *graphUpload // the graph's upload until Prepare joins it (upload.go)
	radix  *radixHost   // wedge/radix classes (radix.go)
	pivot  *pivotHost   // pivot classes (pivot.go)
	// passTimer spans a whole pass: zeroing the counters, the device-side
	// preparation and every class kernel.
	passTimer gpu.Timer
}

type prepClass struct {
	c      gen.Class
	fn     gpu.Function
	items  uint64
	list   gpu.Buffer // nil: every item, no list
	grid   uint32
	shared uint32
	timer  gpu.Timer
	// scratchWords is the class's scratch_words argument (0: no scratch);
	// zeroFirst: zero the scratch before each launch (scratch.go).
	scratchWords uint64
	zeroFirst    bool
	// bitwise: a bitwise class's slices and passes (tcbw.go); nil otherwise.
	bitwise *bitwiseClass
	// rows: the kernel writing a dense class's rows (gen.Class.Rows), run
	// before the class kernel in every pass, on rowsGrid blocks.
	rows     gpu.Function
	rowsGrid uint32
}

// Prepare orients g as p says, picks p's guard variant, builds the work
// lists, generates and compiles p, loads the kernels, checks the device
// memory, uploads the graph and the lists (event-timed) and fills src.
func Prepare(ctx context.Context, dev gpu.Device, comp gpu.Compiler, p ir.Plan, g *graph.Graph, opt RunOptions) (pr *Prepared, err error) {
	facts := dev.Facts()
	name := p.Name()
	fail := func(format string, args ...any) error {
		return fmt.Errorf("plan %s: "+format, append([]any{name}, args...)...)
	}
	target := Target(facts, opt.Arch)
	arch := target.Arch

	clk := newPhaseClock()
	if ps, ok := dev.(prestager); ok { // pinning the upload's buffers overlaps the host's work below
		var arcs uint64
		switch {
		case opt.Oriented != nil:
			arcs = opt.Oriented.Arcs()
		case g != nil:
			arcs = g.Edges() // each edge once, as oriented
		}
		ps.Prestage(adjBytes(arcs))
	}
	t0 := time.Now()
	out, err := gen.Generate(p, target)
	if err != nil {
		return nil, err // gen names the plan
	}
	genMs := msSince(t0)
	clk.mark("generate")
	man := out.Manifest

	by, err := orientation(man.Orientation)
	if err != nil {
		return nil, fail("%v", err)
	}
	t0 = time.Now()
	o := opt.Oriented
	if o == nil {
		if g == nil {
			return nil, fail("no graph")
		}
		if ck := g.AdjCheck(); ck != nil { // orienting reads the lists
			if err := ck.Finish(); err != nil {
				return nil, err
			}
		}
		o = graph.Orient(g, by, man.Relabel)
	} else if o.By != by || (by != graph.ByID && o.Relabelled != man.Relabel) {
		return nil, fail("needs orientation %s (relabel %v), but the graph is oriented by %s (relabelled %v): convert the source with --orient %s%s",
			by, man.Relabel, o.By, o.Relabelled, by, map[bool]string{true: " --relabel"}[man.Relabel])
	}
	orientMs := msSince(t0)
	clk.mark("orient")
	if uint64(o.N()) > graph.MaxVertices {
		return nil, fail("%d vertices exceed the 32-bit ids the kernels use", o.N())
	}

	vi := 0
	var fval float64
	if man.Feature != "" {
		if fval, err = Feature(man.Feature, g, o); err != nil {
			return nil, fail("%v", err)
		}
		vi = pickVariant(man.Variants, fval)
	}
	variant := man.Variants[vi]
	// An oriented graph whose list checks were deferred (graph.ReadOptions.
	// DeferAdjCheck) is checked by its upload, piece by piece as it is read
	// into the staging buffers, unless the host reads the lists first.
	adjCheck := o.AdjCheck()
	if adjCheck != nil && hostReadsAdj(variant) {
		if err := adjCheck.Finish(); err != nil {
			return nil, err
		}
		adjCheck = nil
	}

	clk.mark("feature")
	t0 = time.Now()
	lists, err := BuildWorkLists(o, variant)
	if err != nil {
		return nil, fail("%v", err)
	}
	listsMs := msSince(t0)
	clk.mark("host lists")
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	for _, c := range variant.Classes {
		// A tiled merge pads its tiles with the ids 2^32-1 and 2^32-2.
		if c.Params[ir.ParamTile] > 1 && o.N() > 1<<32-2 {
			return nil, fail("class %s: %d vertices: a merge with tile %d takes at most %d", c.Name, o.N(), c.Params[ir.ParamTile], uint64(1<<32-2))
		}
	}
	needSrc := false
	for i, c := range variant.Classes {
		needSrc = needSrc || (c.NeedsSrc && lists[i].Count > 0)
	}
	rx, err := newRadixHost(g, o, man.IDOrdered, variant, lists) // wedge offsets, E in id order (radix.go)
	if err != nil {
		return nil, fail("%v", err)
	}
	n, m := uint64(o.N()), o.Arcs()
	pr = &Prepared{dev: dev, name: name, manifest: man, variant: vi, n: uint32(n), m: m}
	for i, c := range variant.Classes {
		pr.classes = append(pr.classes, prepClass{c: c, items: lists[i].Count})
	}
	var ph *pivotHost
	if variantHasPivot(variant) {
		grids := make([]uint32, len(lists)) // as the classes' formulas give them
		for i, c := range variant.Classes {
			grids[i] = c.Grid.Blocks(lists[i].Count, facts.SMs)
		}
		if ph, err = newPivotHost(man.Pivot, vi, o, variant, grids, facts.SMs); err != nil { // pivot.go
			return nil, fail("%v", err)
		}
	}

	// Memory: every buffer, summed before allocating.
	buffers := func(sp scratchPlan) []bufferSpec {
		b := pr.commonBuffers(needSrc, lists, adjCheck, sp)
		b = append(b, bitwiseBuffers(man, variant, lists, n, m)...) // bit slices (tcbw.go)
		if ph != nil {
			b = append(b, ph.buffers()...)
		}
		return append(b, rx.buffers()...) // wedge/radix (radix.go)
	}
	need := sumBytes(buffers(scratchPlan{}))
	have := usableMemory(dev)
	rxNeed, rxFits := rx.reserve(need, have) // wedge/radix batch buffers (radix.go)
	if !rxFits {
		return nil, &TooLargeError{Plan: name, Device: facts.Name, Need: rxNeed, Have: have}
	}
	need = rxNeed
	if need > have {
		return nil, &TooLargeError{Plan: name, Device: facts.Name, Need: need, Have: have}
	}
	// Per-group scratch (scratch.go): grids capped to what is left.
	counts := make([]uint64, len(lists))
	for i := range lists {
		counts[i] = lists[i].Count
	}
	sp, err := planScratch(scratchForDegrees(o, variant.Classes), counts, n, facts.SMs, have-need) // out-degree terms (scratch.go)
	if err != nil {
		var se *scratchError
		if errors.As(err, &se) {
			return nil, &TooLargeError{Plan: name, Device: facts.Name, Need: need + se.perBlock, Have: have}
		}
		return nil, fail("%v", err)
	}
	need = sumBytes(buffers(sp))
	clk.mark("memory plan")

	// The graph's upload starts now, every buffer predicted, and overlaps
	// compiling (or the kernel cache), the module loads and the other
	// allocations (graphUpload, upload.go).
	up, err := startGraphUpload(dev, o, adjCheck)
	if err != nil {
		return nil, fail("%w", err)
	}
	owned := false // the Prepared holds the upload (Close waits for it)
	defer func() {
		if !owned {
			up.free()
		}
	}()

	t0 = time.Now()
	major, minor := comp.Version()
	img, err := comp.Compile(gpu.CompileInput{Name: out.FileName, Source: out.Source, Arch: arch, Options: man.Options})
	if err != nil {
		return nil, fail("compiling %s (kernels %s): %w", out.FileName, kernelNames(variant), err)
	}
	compileMs := msSince(t0)
	clk.mark("compile")

	pr.res = Result{
		Plan: name, Device: facts, Arch: arch, NVRTC: [2]int{major, minor},
		Variant: vi, Feature: man.Feature, FeatureValue: fval,
		Vertices: n, Edges: m, DeviceBytes: need,
		OrientMs: orientMs, ListsMs: listsMs, GenerateMs: genMs, CompileMs: compileMs,
	}
	pr.upload, pr.off, pr.adj = up, up.off, up.adj
	pr.buffers = append(pr.buffers, up.off, up.adj)
	owned = true
	defer func() {
		if err != nil {
			pr.Close()
			pr = nil
		}
	}()
	if pr.mod, err = dev.Load(img); err != nil {
		return pr, fail("loading %s: %w (NVRTC log: %s)", out.FileName, err, img.Log)
	}
	clk.mark("module load")
	var lc *listChecker // deferred list checks run on the device (upload.go)
	if adjCheck != nil {
		if lc, err = loadListChecker(dev, comp, arch); err != nil {
			return pr, fail("%w", err)
		}
		defer lc.mod.Unload() // needed by the upload alone
		clk.mark("check module")
	}

	for i := range pr.classes {
		pc := &pr.classes[i]
		c := pc.c
		if c.Skip {
			continue
		}
		if pc.fn, err = pr.mod.Function(c.Kernel); err != nil {
			return pr, fail("kernel %s: %w", c.Kernel, err)
		}
		if c.DynamicSharedBytes > 0 {
			if err = pc.fn.SetMaxDynamicShared(c.DynamicSharedBytes); err != nil {
				return pr, fail("kernel %s: %d bytes of dynamic shared memory: %w", c.Kernel, c.DynamicSharedBytes, err)
			}
		}
		pc.grid = sp.grids[i]       // c.Grid.Blocks, capped for scratch
		if c.Grid.BlocksPerSM > 0 { // persistent blocks: one wave at most
			pc.grid = residentGrid(pc.fn, pc.grid, c.Block, c.DynamicSharedBytes, facts.SMs)
		}
		pc.scratchWords, pc.zeroFirst = sp.words[i], sp.zeroFirst[i]
		if c.Rows != nil && pc.items > 0 {
			if pc.rows, err = pr.mod.Function(c.Rows.Kernel); err != nil {
				return pr, fail("kernel %s: %w", c.Rows.Kernel, err)
			}
			pc.rowsGrid = c.Rows.Grid.Blocks(n, facts.SMs)
		}
		pc.shared = uint32(c.DynamicSharedBytes)
		if pc.timer, err = pr.newTimer(); err != nil {
			return pr, fail("kernel %s: %w", c.Kernel, err)
		}
	}
	clk.mark("functions")

	if err = pr.allocate(pr.commonBuffers(needSrc, lists, adjCheck, sp)); err != nil { // memory.go
		return pr, fail("%w", err)
	}
	clk.mark("alloc")
	up.wait()
	clk.mark("graph upload wait")
	err = up.finish(pr, lc, facts.SMs) // upload.go
	pr.upload = nil
	if err != nil {
		var ie *graph.InputError
		if errors.As(err, &ie) {
			return pr, err // the file's error, as loading it would have given
		}
		return pr, fail("uploading the graph: %w", err)
	}
	pr.res.UploadWallMs = up.wallMs
	clk.mark("list check, checksum join")

	// The work lists' upload, timed with events.
	copyTimer, err := pr.newTimer()
	if err != nil {
		return pr, fail("%w", err)
	}
	if err = copyTimer.Start(); err != nil {
		return pr, fail("copy timer: %w", err)
	}
	for i := range pr.classes {
		l := &lists[i]
		if b := pr.classes[i].list; b != nil {
			if l.Vertices != nil {
				err = gpu.WriteSlice(b, 0, l.Vertices)
			} else {
				err = gpu.WriteSlice(b, 0, l.Edges)
			}
			if err != nil {
				return pr, fail("uploading the work list of class %s: %w", pr.classes[i].c.Name, err)
			}
		}
	}
	if err = copyTimer.Stop(); err != nil {
		return pr, fail("copy timer: %w", err)
	}
	if pr.res.CopyMs, err = copyTimer.Elapsed(); err != nil {
		return pr, fail("copy: %w", err)
	}
	pr.res.CopyMs += up.ms
	clk.mark("copy lists")

	if needSrc {
		if err = pr.fillSrc(facts.SMs); err != nil {
			return pr, err
		}
	}
	if err = pr.prepareBitwise(o, variant, lists, facts.SMs); err != nil { // tcbw.go
		return pr, err
	}
	if err = pr.setupRadix(rx); err != nil { // radix.go
		return pr, err
	}
	clk.mark("src, slices, radix")
	if ph != nil {
		if err = ph.setup(pr); err != nil { // pivot.go
			return pr, err
		}
	}
	if pr.passTimer, err = pr.newTimer(); err != nil {
		return pr, fail("pass timer: %w", err)
	}
	clk.mark("pivot setup")
	pr.res.Phases = clk.phases
	return pr, nil
}

// hostReadsAdj reports whether preparing v reads the oriented lists on the
// host: work-keyed lists (the work of an edge needs d+ of its head), the
// radix classes' wedge offsets and TC-BW's bit slices. Out-degree keys and
// the pivot's device-built items need the offsets alone.
func hostReadsAdj(v gen.Variant) bool {
	for _, c := range v.Classes {
		if c.Skip {
			continue
		}
		if c.Key != ir.KeyOutDegree || len(c.Phases) > 0 || c.Bitwise != nil {
			return true
		}
	}
	return false
}

// src is allocated by fillSrc and passed to every class kernel.
func (pr *Prepared) fillSrc(sms int) error {
	h := pr.manifest.Src
	if h == nil {
		return fmt.Errorf("plan %s: edge classes but no src kernel in the manifest", pr.name)
	}
	fn, err := pr.mod.Function(h.Kernel)
	if err != nil {
		return fmt.Errorf("plan %s: kernel %s: %w", pr.name, h.Kernel, err)
	}
	src := pr.srcBuf // allocated with the common buffers (memory.go)
	t, err := pr.newTimer()
	if err != nil {
		return fmt.Errorf("plan %s: kernel %s: %w", pr.name, h.Kernel, err)
	}
	grid := h.Grid.Blocks(uint64(pr.n), sms)
	if err := t.Start(); err != nil {
		return fmt.Errorf("plan %s: kernel %s: %w", pr.name, h.Kernel, err)
	}
	if err := fn.Launch(gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(h.Block), Y: 1, Z: 1}, 0, pr.off, pr.n, src); err != nil {
		return fmt.Errorf("plan %s: kernel %s: %w", pr.name, h.Kernel, err)
	}
	if err := t.Stop(); err != nil {
		return fmt.Errorf("plan %s: kernel %s: %w", pr.name, h.Kernel, err)
	}
	if pr.res.SrcMs, err = t.Elapsed(); err != nil {
		return fmt.Errorf("plan %s: kernel %s: %w", pr.name, h.Kernel, err)
	}
	return nil
}

func (pr *Prepared) newTimer() (gpu.Timer, error) {
	t, err := pr.dev.NewTimer()
	if err != nil {
		return nil, err
	}
	pr.timers = append(pr.timers, t)
	return t, nil
}

// Manifest is the generated plan's manifest.
func (pr *Prepared) Manifest() gen.Manifest { return pr.manifest }

// Run launches every class kernel opt.Warmup + opt.Repeat times (counters
// zeroed before each pass), times each kernel with events, and checks that
// every pass counted the same.
func (pr *Prepared) Run(ctx context.Context, opt RunOptions) (*Result, error) {
	repeat := max(opt.Repeat, 1)
	warm := max(opt.Warmup, 0)
	res := pr.res
	res.Runs = repeat
	nc := len(pr.classes)
	perClass := make([][]float64, nc)
	var totals, passes, preps []float64
	var prepParts [5][]float64
	var first []uint64
	counts := make([]uint64, nc)
	srcArg := any(uint64(0))
	if pr.srcBuf != nil {
		srcArg = pr.srcBuf
	}
	// A pass whose launched classes all reset their own counters needs no
	// memset; one launched class without pivot preparation needs no class
	// timer either (its time is the pass's): a one-kernel plan's pass is
	// then an event, the launch and an event, as single-kernel codes are
	// timed.
	zero, launched := false, 0
	for i := range pr.classes {
		pc := &pr.classes[i]
		if pc.fn == nil || pc.items == 0 {
			continue
		}
		launched++
		zero = zero || !pc.c.SelfReset
	}
	classTimers := (launched > 1 || pr.pivot != nil || zero) && !opt.PassOnly // a memset is not kernel time
	prepTimers := pr.pivot != nil && !opt.PassOnly
	// untimed: PassOnly on a pass of several kernels, none timed apart.
	untimed := opt.PassOnly && (launched > 1 || pr.pivot != nil)
	for r := range warm + repeat {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := pr.passTimer.Start(); err != nil {
			return nil, fmt.Errorf("plan %s: pass timer: %w", pr.name, err)
		}
		if zero {
			if err := pr.counts.Zero(); err != nil {
				return nil, fmt.Errorf("plan %s: zeroing counts: %w", pr.name, err)
			}
		}
		if pr.pivot != nil {
			if prepTimers {
				if err := pr.pivot.timer.Start(); err != nil {
					return nil, fmt.Errorf("plan %s: preparation timer: %w", pr.name, err)
				}
			}
			if err := pr.preparePivot(prepTimers); err != nil { // pivot.go
				return nil, err
			}
			if prepTimers {
				if err := pr.pivot.timer.Stop(); err != nil {
					return nil, fmt.Errorf("plan %s: preparation timer: %w", pr.name, err)
				}
			}
		}
		rowsWritten := false // the dense classes of a pass share one matrix
		for i := range pr.classes {
			pc := &pr.classes[i]
			if pc.fn == nil || pc.items == 0 {
				continue
			}
			list := any(uint64(0))
			if pc.list != nil {
				list = pc.list
			}
			scratch := any(uint64(0))
			square := pc.c.Scratch != nil && pc.c.Scratch.Square
			if square {
				scratch = pr.square
			} else if pc.scratchWords > 0 {
				scratch = pr.scratch
				if pc.zeroFirst {
					if err := pr.scratch.Zero(); err != nil {
						return nil, fmt.Errorf("plan %s: zeroing the scratch: %w", pr.name, err)
					}
				}
			}
			kerr := func(err error) error {
				return fmt.Errorf("plan %s: kernel %s (class %s, %d items, grid %d x %d): %w",
					pr.name, pc.c.Kernel, pc.c.Name, pc.items, pc.grid, pc.c.Block, err)
			}
			if classTimers {
				if err := pc.timer.Start(); err != nil {
					return nil, kerr(err)
				}
			}
			if pc.rows != nil && pc.rowsGrid > 0 && !rowsWritten { // the dense rows of this pass (gen/dense.go), once
				if err := pc.rows.Launch(gpu.Dim3{X: pc.rowsGrid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(pc.c.Rows.Block), Y: 1, Z: 1}, 0,
					pr.off, pr.adj, pr.n, pr.square, pc.scratchWords); err != nil {
					return nil, kerr(err)
				}
				rowsWritten = true
			}
			if pc.bitwise != nil { // one launch per P1 x P2 block (tcbw.go)
				if err := pr.launchBitwise(pc, srcArg, list); err != nil {
					return nil, kerr(err)
				}
			} else if pc.c.Pivot { // items built on the device (pivot.go)
				if err := pr.launchPivot(pc); err != nil {
					return nil, kerr(err)
				}
			} else if len(pc.c.Phases) > 0 { // batches and levels (radix.go)
				if err := pr.runRadix(ctx, pc); err != nil {
					return nil, err
				}
			} else if err := pc.fn.Launch(gpu.Dim3{X: pc.grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(pc.c.Block), Y: 1, Z: 1}, pc.shared,
				pr.off, pr.adj, srcArg, pr.n, pr.m, list, pc.items, pr.counts, scratch, pc.scratchWords); err != nil {
				return nil, kerr(err)
			}
			if classTimers {
				if err := pc.timer.Stop(); err != nil {
					return nil, kerr(err)
				}
			}
		}
		if err := pr.passTimer.Stop(); err != nil {
			return nil, fmt.Errorf("plan %s: pass timer: %w", pr.name, err)
		}
		total := 0.0
		for i := range pr.classes {
			pc := &pr.classes[i]
			if pc.fn == nil || pc.items == 0 {
				if r >= warm {
					perClass[i] = append(perClass[i], 0)
				}
				continue
			}
			timer := pc.timer
			if !classTimers {
				timer = pr.passTimer // the class is the pass
			}
			if untimed {
				if r >= warm {
					perClass[i] = append(perClass[i], 0) // not measured
				}
				continue
			}
			ms, err := timer.Elapsed()
			if err != nil {
				return nil, fmt.Errorf("plan %s: kernel %s (class %s): %w", pr.name, pc.c.Kernel, pc.c.Name, err)
			}
			total += ms
			if r >= warm {
				perClass[i] = append(perClass[i], ms)
			}
		}
		if err := gpu.ReadSlice(pr.counts, 0, counts); err != nil {
			return nil, fmt.Errorf("plan %s: reading counts: %w", pr.name, err)
		}
		if first == nil {
			first = slices.Clone(counts)
		} else if !slices.Equal(first, counts) {
			return nil, fmt.Errorf("plan %s: pass %d counted %v per class, pass 0 counted %v: the kernels are not deterministic", pr.name, r, counts, first)
		}
		pass, err := pr.passTimer.Elapsed()
		if err != nil {
			return nil, fmt.Errorf("plan %s: pass timer: %w", pr.name, err)
		}
		if untimed {
			total = pass
		}
		if r >= warm {
			totals = append(totals, total)
			passes = append(passes, pass)
			if prepTimers {
				ms, err := pr.pivot.timer.Elapsed()
				if err != nil {
					return nil, fmt.Errorf("plan %s: preparation timer: %w", pr.name, err)
				}
				preps = append(preps, ms)
				parts, err := pr.pivot.prepTimes()
				if err != nil {
					return nil, fmt.Errorf("plan %s: preparation timers: %w", pr.name, err)
				}
				for i, x := range parts {
					prepParts[i] = append(prepParts[i], x)
				}
			}
		}
	}

	res.KernelMs = summarize(totals)
	res.GPUMs = summarize(passes)
	res.GPUSamples = passes
	res.PrepMs = summarize(preps)
	if prepTimers {
		res.PrepKernels = map[string]Timing{}
		for i, name := range pivotKernelNames {
			res.PrepKernels[name] = summarize(prepParts[i])
		}
	}
	res.PerClass = make([]ClassResult, nc)
	for i := range pr.classes {
		pc := &pr.classes[i]
		c := pc.c
		cr := ClassResult{
			Slot: c.Slot, Name: c.Name, Skip: c.Skip, Kernel: c.Kernel,
			Iterator: c.Iterator, Intersection: c.Intersection, Width: c.Width, Block: c.Block,
			Grid: pc.grid, SharedBytes: c.StaticSharedBytes + c.DynamicSharedBytes,
			Items: pc.items, ItemKind: c.Items, List: pc.list != nil,
			Triangles: first[i], Ms: summarize(perClass[i]),
		}
		cr.Radix = pr.radixStats(i) // radix.go
		res.Triangles += first[i]
		res.PerClass[i] = cr
	}
	return &res, nil
}

// Close frees the device buffers, the timers and the module. It may be
// called more than once.
func (pr *Prepared) Close() error {
	if u := pr.upload; u != nil { // an error before Prepare joined it
		u.wait()
		u.timer.Close()
		u.freePacked() // the offsets and lists are in pr.buffers
		pr.upload = nil
	}
	var errs []error
	for _, b := range pr.buffers {
		errs = append(errs, b.Free())
	}
	pr.buffers = nil
	pr.srcBuf = nil
	pr.scratch = nil
	pr.square = nil
	for _, t := range pr.timers {
		errs = append(errs, t.Close())
	}
	pr.timers = nil
	if pr.mod != nil {
		errs = append(errs, pr.mod.Unload())
		pr.mod = nil
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("plan %s: freeing: %w", pr.name, err)
	}
	return nil
}
