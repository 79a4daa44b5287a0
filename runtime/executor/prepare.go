package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// Prepare orients g as p says, picks p's guard variant, builds the work
// lists, generates and compiles p, loads the kernels, checks the device
// memory, uploads the graph and the lists (event-timed), fills src and
// sets up every family of classes (family.go).
func Prepare(ctx context.Context, dev gpu.Device, comp gpu.Compiler, p ir.Plan, g *graph.Graph, opt RunOptions) (*Prepared, error) {
	s := newPreparation(ctx, dev, comp, p.Name(), g, opt)
	defer s.unloadChecker()
	s.prestage()
	if err := s.shared(p); err != nil {
		return nil, err
	}
	return s.onDevice()
}

func newPreparation(ctx context.Context, dev gpu.Device, comp gpu.Compiler, name string, g *graph.Graph, opt RunOptions) *preparation {
	s := hostPreparation(ctx, dev.Facts(), comp, name, g, opt)
	s.dev = dev
	return s
}

// hostPreparation is a preparation for a device with facts, before the
// device is open (PrepareHost).
func hostPreparation(ctx context.Context, facts gpu.DeviceFacts, comp gpu.Compiler, name string, g *graph.Graph, opt RunOptions) *preparation {
	s := &preparation{ctx: ctx, comp: comp, opt: opt, g: g, facts: facts, name: name, clk: newPhaseClock()}
	s.target = Target(facts, opt.Arch)
	return s
}

// onDevice is Prepare after the host's shared part: the device's families
// and memory plan, the upload, the kernels and the setup.
func (s *preparation) onDevice() (*Prepared, error) {
	if err := s.newPrepared(); err != nil {
		return nil, err
	}
	if err := s.planMemory(); err != nil {
		return nil, err
	}
	if err := s.startUpload(); err != nil {
		return nil, err
	}
	if err := s.device(); err != nil {
		s.pr.Close()
		return nil, err
	}
	s.pr.res.Phases = s.clk.phases
	return s.pr, nil
}

// preparation is Prepare's state from one step to the next.
type preparation struct {
	ctx    context.Context
	dev    gpu.Device
	comp   gpu.Compiler
	opt    RunOptions
	facts  gpu.DeviceFacts
	target gen.Target
	name   string
	clk    *phaseClock

	out     *gen.Output
	g       *graph.Graph // nil for a graph read oriented
	o       *graph.Oriented
	ck      *graph.AdjCheck // the lists' deferred checks, left to the upload (nil: none, or done on the host)
	variant int
	fvals   map[string]float64 // the guard's features measured on the graph
	lists   []WorkList
	needSrc bool
	sp      scratchPlan
	times   struct{ gen, orient, lists float64 }
	img     *compiled // the variant's image, compiled ahead (PrepareHost) or by compile
	pr      *Prepared
	lc      *listChecker // checks the lists on the device when their checks were deferred (upload.go)
	part    *devicePart  // this device's share of a run on several (multi.go); nil: all of it
}

func (s *preparation) fail(format string, args ...any) error {
	return fmt.Errorf("plan %s: "+format, append([]any{s.name}, args...)...)
}

// shared is the host's part that every device of a run shares, before any
// device memory is allocated: generate, orient, pick the variant, build the
// work lists. onDevice then makes the families and plans the memory.
func (s *preparation) shared(p ir.Plan) error {
	t0 := time.Now()
	out, err := gen.Generate(p, s.target)
	if err != nil {
		return err // gen names the plan
	}
	s.out, s.times.gen = out, msSince(t0)
	s.clk.mark("generate")
	if err := s.orient(); err != nil {
		return err
	}
	return s.buildLists()
}

// prestager is a device that can make its upload buffers ahead of a large
// upload (cuda.Device.Prestage).
type prestager interface {
	Prestage(upload uint64)
}

// prestage has the device pin the upload's buffers while the host works.
func (s *preparation) prestage() {
	ps, ok := s.dev.(prestager)
	if !ok {
		return
	}
	var arcs uint64
	switch {
	case s.opt.Oriented != nil:
		arcs = s.opt.Oriented.Arcs()
	case s.g != nil:
		arcs = s.g.Edges() // each edge once, as oriented
	}
	ps.Prestage(adjBytes(arcs))
}

// orient orients the graph and picks the guard's variant for its
// features. The features are measured on the plan's orientation, which is
// made only when one of them needs it; a variant with an orientation of its
// own (ir.Variant.Orientation) then takes the graph oriented its way. An
// oriented graph whose list checks were deferred (graph.ReadOptions.
// DeferAdjCheck) is checked by its upload, piece by piece as it is read
// into the staging buffers, unless the host reads the lists first.
func (s *preparation) orient() error {
	man := &s.out.Manifest
	var oerr error // orientBy's errors name the plan or the file already
	planned := func() (*graph.Oriented, error) {
		o, err := s.orientBy(man.Orientation)
		oerr = err
		return o, err
	}
	var err error
	if s.variant, s.fvals, err = chooseVariant(man, s.g, s.facts.BandwidthGBs(), planned); err != nil {
		if oerr != nil {
			return oerr
		}
		return s.fail("%v", err)
	}
	vo := man.VariantOrientation(s.variant)
	if vo != man.Orientation && s.g == nil {
		return s.fail("guard variant %d orients by %s, the plan by %s: it needs the graph as read (an edge list or a canonical CSR file), not a file converted with --orient",
			s.variant, vo, man.Orientation)
	}
	o, err := s.orientBy(vo)
	if err != nil {
		return err
	}
	s.o = o
	s.clk.mark("orient")
	if uint64(o.N()) > graph.MaxVertices {
		return s.fail("%d vertices exceed the 32-bit ids the kernels use", o.N())
	}
	s.ck = o.AdjCheck()
	if s.ck != nil && hostReadsAdj(man.Variants[s.variant]) {
		if err := s.ck.Finish(); err != nil {
			return err
		}
		s.ck = nil
	}
	return nil
}

// orientBy returns the graph oriented by o (relabelled as the plan says):
// the graph as read when it is oriented so, the last one made when it is,
// or the undirected graph oriented now.
func (s *preparation) orientBy(o ir.Orientation) (*graph.Oriented, error) {
	man := &s.out.Manifest
	by, err := orientation(o)
	if err != nil {
		return nil, s.fail("%v", err)
	}
	matches := func(x *graph.Oriented) bool {
		return x != nil && x.By == by && (by == graph.ByID || x.Relabelled == man.Relabel)
	}
	if matches(s.o) {
		return s.o, nil
	}
	t0 := time.Now()
	x := s.opt.Oriented
	switch {
	case matches(x):
	case s.g == nil && x == nil:
		return nil, s.fail("no graph")
	case s.g == nil:
		return nil, s.fail("needs orientation %s (relabel %v), but the graph is oriented by %s (relabelled %v): convert the source with --orient %s%s",
			by, man.Relabel, x.By, x.Relabelled, by, map[bool]string{true: " --relabel"}[man.Relabel])
	default:
		if ck := s.g.AdjCheck(); ck != nil { // orienting reads the lists
			if err := ck.Finish(); err != nil {
				return nil, err
			}
		}
		x = graph.Orient(s.g, by, man.Relabel)
	}
	s.o = x
	s.times.orient += msSince(t0)
	return x, nil
}

// buildLists builds the variant's work lists on the host.
func (s *preparation) buildLists() error {
	v := s.out.Manifest.Variants[s.variant]
	t0 := time.Now()
	lists, err := BuildWorkLists(s.o, v)
	if err != nil {
		return s.fail("%v", err)
	}
	if err := targetLists(s.o, v, lists, s.opt.IndexBase); err != nil {
		return s.fail("%w", err)
	}
	if s.opt.IndexBase != 0 {
		listAllEdges(lists) // highindex.go
	}
	s.lists, s.times.lists = lists, msSince(t0)
	s.clk.mark("host lists")
	if err := s.ctx.Err(); err != nil {
		return err
	}
	n := s.o.N()
	for i, c := range v.Classes {
		// A tiled merge pads its tiles with the ids 2^32-1 and 2^32-2.
		if c.Params[ir.ParamTile] > 1 && n > 1<<32-2 {
			return s.fail("%w", &LimitError{Why: fmt.Sprintf("class %s: %d vertices: a merge with tile %d takes at most %d", c.Name, n, c.Params[ir.ParamTile], uint64(1<<32-2))})
		}
		s.needSrc = s.needSrc || (c.NeedsSrc && lists[i].Count > 0)
	}
	return nil
}

// newPrepared makes the Prepared, its classes and their families (which
// do their host work now: wedge offsets, bitwise passes, pivot sizes).
func (s *preparation) newPrepared() error {
	man := s.out.Manifest
	v := man.Variants[s.variant]
	pr := &Prepared{dev: s.dev, name: s.name, manifest: man, variant: s.variant, sms: s.facts.SMs, n: uint32(s.o.N()), m: s.o.Arcs(), base: s.opt.IndexBase}
	if man.Output != "" {
		pr.o = s.o // the local counts index it
	}
	pr.res = Result{
		Plan: s.name, Device: s.facts, Arch: s.target.Arch,
		Variant: s.variant, Orientation: man.VariantOrientation(s.variant), Feature: man.Feature, FeatureValue: s.fvals[man.Feature], Features: s.fvals,
		Vertices: uint64(pr.n), Edges: pr.m, Output: man.Output,
		OrientMs: s.times.orient, ListsMs: s.times.lists, GenerateMs: s.times.gen,
	}
	fams, of, err := newFamilies(&planning{man: man, variant: s.variant, classes: v.Classes, lists: s.lists, g: s.g, o: s.o, sms: s.facts.SMs, part: s.part})
	if err != nil {
		return s.fail("%w", err) // a *LimitError stays matchable
	}
	pr.families = fams
	for i, c := range v.Classes {
		pr.classes = append(pr.classes, prepClass{c: c, items: s.lists[i].Count, fam: of[i]})
	}
	s.pr = pr
	return nil
}

// buffers lists every buffer of the run, the scratch of sp among them.
func (s *preparation) buffers(sp scratchPlan) []bufferSpec {
	b := s.pr.commonBuffers(s.needSrc, s.lists, s.ck, sp)
	for _, f := range s.pr.families {
		b = append(b, f.buffers()...)
	}
	return b
}

// planMemory sums the buffers and refuses a run that does not fit before
// anything is allocated; the families that grow (reserver) and then the
// per-group scratch (scratch.go) take what is left.
func (s *preparation) planMemory() error {
	pr := s.pr
	have := s.usable()
	tooLarge := func(need uint64) error {
		return &TooLargeError{Plan: s.name, Device: s.facts.Name, Need: need, Have: have}
	}
	need := sumBytes(s.buffers(scratchPlan{}))
	for _, f := range pr.families {
		if r, ok := f.(reserver); ok {
			var fits bool
			if need, fits = r.reserve(need, have); !fits {
				return tooLarge(need)
			}
		}
	}
	if need > have {
		return tooLarge(need)
	}
	classes := pr.manifest.Variants[s.variant].Classes
	items := make([]uint64, len(s.lists))
	for i := range s.lists {
		items[i] = s.lists[i].Count
	}
	sp, err := planScratch(scratchForDegrees(s.o, classes), items, uint64(pr.n), s.facts.SMs, have-need)
	if err != nil {
		var se *scratchError
		if errors.As(err, &se) {
			return tooLarge(need + se.perBlock)
		}
		return s.fail("%v", err)
	}
	s.sp = sp
	pr.res.DeviceBytes = sumBytes(s.buffers(sp))
	s.clk.mark("memory plan")
	return nil
}

// startUpload starts the graph's upload, every buffer predicted: it
// overlaps compiling (or the kernel cache), the module loads and the other
// allocations (graphUpload, upload.go). From now on the Prepared holds
// device memory, which Close frees.
func (s *preparation) startUpload() error {
	if err := checkIndexBase(s.opt.IndexBase, s.ck != nil); err != nil {
		return s.fail("%w", err)
	}
	up, err := startGraphUpload(s.dev, s.o, s.ck, s.opt.IndexBase)
	if err != nil {
		return s.fail("%w", err)
	}
	pr := s.pr
	pr.upload, pr.off, pr.adj = up, up.off, shift(up.adj, s.opt.IndexBase, 4)
	pr.buffers = append(pr.buffers, up.off, up.adj)
	return nil
}

// device is the device's part: compile and load the kernels, allocate the
// common buffers, join the upload, upload the lists, fill src and set up
// the families.
func (s *preparation) device() error {
	if err := s.compile(); err != nil {
		return err
	}
	if err := s.loadClasses(); err != nil {
		return err
	}
	pr := s.pr
	if err := pr.allocate(pr.commonBuffers(s.needSrc, s.lists, s.ck, s.sp)); err != nil {
		return s.fail("%w", err)
	}
	pr.srcBuf = shift(pr.srcBuf, s.opt.IndexBase, 4) // indexed by edge
	s.clk.mark("alloc")
	if err := s.finishUpload(); err != nil {
		return err
	}
	if err := s.uploadLists(); err != nil {
		return err
	}
	if s.needSrc {
		if err := pr.fillSrc(); err != nil {
			return err
		}
	}
	s.clk.mark("src")
	for _, f := range pr.families {
		if err := f.setup(pr); err != nil {
			return err
		}
		if p, ok := f.(preparer); ok {
			pr.preparers = append(pr.preparers, p)
		}
	}
	var err error
	if len(pr.preparers) > 0 {
		if pr.prepTimer, err = pr.newTimer(); err != nil {
			return s.fail("preparation timer: %w", err)
		}
	}
	if pr.passTimer, err = pr.newTimer(); err != nil {
		return s.fail("pass timer: %w", err)
	}
	s.clk.mark("family setup")
	return nil
}

// compiled is the variant's compiled image.
type compiled struct {
	name  string // the source's file name
	img   gpu.Image
	nvrtc [2]int
	ms    float64
}

// compileImage compiles the variant (or finds it in the compiler's cache).
func (s *preparation) compileImage() error {
	t0 := time.Now()
	major, minor := s.comp.Version()
	in, err := compileInput(s.out, s.variant, s.target.Arch)
	if err != nil {
		return s.fail("%v", err)
	}
	img, err := s.comp.Compile(in)
	if err != nil {
		return s.fail("compiling %s (kernels %s): %w", in.Name, kernelNames(s.out.Manifest.Variants[s.variant]), err)
	}
	s.img = &compiled{in.Name, img, [2]int{major, minor}, msSince(t0)}
	s.clk.mark("compile")
	return nil
}

// compile compiles the plan unless PrepareHost did and loads the module,
// and the list check's when the upload needs it.
func (s *preparation) compile() error {
	if s.img == nil {
		if err := s.compileImage(); err != nil {
			return err
		}
	}
	pr, c := s.pr, s.img
	pr.res.NVRTC, pr.res.CompileMs = c.nvrtc, c.ms
	var err error
	if pr.mod, err = s.dev.Load(c.img); err != nil {
		return s.fail("loading %s: %w (NVRTC log: %s)", c.name, err, c.img.Log)
	}
	s.clk.mark("module load")
	if s.ck != nil {
		if s.lc, err = loadListChecker(s.dev, s.comp, s.target.Arch); err != nil {
			return s.fail("%w", err)
		}
		s.clk.mark("check module")
	}
	return nil
}

// unloadChecker unloads the list check's module, needed by the upload
// alone.
func (s *preparation) unloadChecker() {
	if s.lc != nil {
		s.lc.mod.Unload()
		s.lc = nil
	}
}

// loadClasses looks up each class's kernel and sets its launch: the grid
// (capped for scratch, and to one wave of persistent blocks), its scratch
// and its timer.
func (s *preparation) loadClasses() error {
	pr := s.pr
	for i := range pr.classes {
		pc := &pr.classes[i]
		c := pc.c
		if c.Skip {
			continue
		}
		var err error
		if pc.fn, err = pr.mod.Function(c.Kernel); err != nil {
			return s.fail("kernel %s: %w", c.Kernel, err)
		}
		if c.DynamicSharedBytes > 0 {
			if err = pc.fn.SetMaxDynamicShared(c.DynamicSharedBytes); err != nil {
				return s.fail("kernel %s: %d bytes of dynamic shared memory: %w", c.Kernel, c.DynamicSharedBytes, err)
			}
		}
		pc.grid = s.sp.grids[i]     // c.Grid.Blocks, capped for scratch
		if c.Grid.BlocksPerSM > 0 { // persistent blocks: one wave at most
			pc.grid = residentGrid(pc.fn, pc.grid, c.Block, c.DynamicSharedBytes, s.facts.SMs)
		}
		pc.scratchWords, pc.zeroFirst = s.sp.words[i], s.sp.zeroFirst[i]
		pc.shared = uint32(c.DynamicSharedBytes)
		if pc.timer, err = pr.newTimer(); err != nil {
			return s.fail("kernel %s: %w", c.Kernel, err)
		}
	}
	s.clk.mark("functions")
	return nil
}

// finishUpload joins the graph's upload, checking the lists on the device
// when their checks were deferred (upload.go).
func (s *preparation) finishUpload() error {
	pr := s.pr
	up := pr.upload
	up.wait()
	s.clk.mark("graph upload wait")
	err := up.finish(pr, s.lc, s.facts.SMs)
	pr.upload = nil
	if err != nil {
		var ie *graph.InputError
		if errors.As(err, &ie) {
			return err // the file's error, as loading it would have given
		}
		return s.fail("uploading the graph: %w", err)
	}
	pr.res.UploadWallMs = up.wallMs
	pr.res.CopyMs = up.ms
	s.clk.mark("list check, checksum join")
	return nil
}

// uploadLists uploads the work lists, timed with events (Result.CopyMs,
// with the graph's upload).
func (s *preparation) uploadLists() error {
	pr := s.pr
	t, err := pr.newTimer()
	if err != nil {
		return s.fail("%w", err)
	}
	if err = t.Start(); err != nil {
		return s.fail("copy timer: %w", err)
	}
	for i := range pr.classes {
		l := &s.lists[i]
		if b := pr.classes[i].list; b != nil {
			if l.Vertices != nil {
				err = gpu.WriteSlice(b, 0, l.Vertices)
			} else {
				base := s.opt.IndexBase
				if pr.classes[i].c.Target { // the position sits above the length (targetitems.go)
					base <<= gen.TargetLenBits
				}
				err = gpu.WriteSlice(b, listOffset(pr.classes[i].c, l), raised(l.Edges, base))
			}
			if err != nil {
				return s.fail("uploading the work list of class %s: %w", pr.classes[i].c.Name, err)
			}
		}
	}
	if err = t.Stop(); err != nil {
		return s.fail("copy timer: %w", err)
	}
	ms, err := t.Elapsed()
	if err != nil {
		return s.fail("copy: %w", err)
	}
	pr.res.CopyMs += ms
	s.clk.mark("copy lists")
	return nil
}

// fillSrc launches the src kernel: src[e] is the first vertex of edge e,
// passed to every class kernel.
func (pr *Prepared) fillSrc() error {
	h := pr.manifest.Src
	if h == nil {
		return fmt.Errorf("plan %s: edge classes but no src kernel in the manifest", pr.name)
	}
	fail := func(err error) error { return fmt.Errorf("plan %s: kernel %s: %w", pr.name, h.Kernel, err) }
	fn, err := pr.mod.Function(h.Kernel)
	if err != nil {
		return fail(err)
	}
	t, err := pr.newTimer()
	if err != nil {
		return fail(err)
	}
	grid := h.Grid.Blocks(uint64(pr.n), pr.sms)
	if err := t.Start(); err != nil {
		return fail(err)
	}
	if err := fn.Launch(gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(h.Block), Y: 1, Z: 1}, 0, pr.off, pr.n, pr.srcBuf); err != nil {
		return fail(err)
	}
	if err := t.Stop(); err != nil {
		return fail(err)
	}
	if pr.res.SrcMs, err = t.Elapsed(); err != nil {
		return fail(err)
	}
	return nil
}
