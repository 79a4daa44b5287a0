package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
	"github.com/tcgen/tcgen/templates"
)

// A count in partitions, for a graph whose memory plan does not fit the
// device (or RunOptions.DeviceMemory): the host cuts the oriented graph
// into blocks and chunks (partition_plan.go); the device holds every
// vertex's offsets and a window of rows, a block followed by two slots of
// a chunk each. The offsets of the block's vertices and the chunk's are
// rewritten to their rows' places in the window as they arrive, so the plan's own edge
// kernel, given the window as adj and the offsets as off, reads N+(u) and
// N+(v) where they are, as it would in the whole graph. A chunk is copied
// on a stream of its own while the pair before it counts
// (partition_run.go), from the graph's rows pinned. tcgen_part_list
// (templates/partition.cu) lists each pair's edges on the device, the
// edge kernel counts them, and tcgen_part_add adds the pair's count to
// the pass's u64 sum: exact, whatever the order. A plan whose variant for
// the graph is the pivot counts each pair with the pivot instead
// (partition_pivot.go): the partition plan picks it where the default
// plan would.

// partitionHelpers are the helper kernels' file and names.
const (
	partitionFile    = "tcgen_partition.cu"
	partSrcKernel    = "tcgen_part_src"
	partListKernel   = "tcgen_part_list"
	partAddKernel    = "tcgen_part_add"
	partRebaseKernel = "tcgen_part_rebase"
	partitionBlock   = 256 // the helpers' launch bounds
	partitionWaves   = 8   // helper blocks per SM: a thread per vertex, strided
	partitionTimers  = 2   // per step: its copy and its kernels
)

// PartitionStats is what a count in partitions did in a pass.
type PartitionStats struct {
	CapBytes    uint64 `json:"cap_bytes"`    // the memory it was planned under
	Blocks      int    `json:"blocks"`       // resident blocks
	Chunks      int    `json:"chunks"`       // streamed chunks (blocks are whole chunks)
	Pairs       int    `json:"pairs"`        // (block, targets) pairs with edges: kernel launches
	BlockBytes  uint64 `json:"block_bytes"`  // the largest block's rows
	ChunkBytes  uint64 `json:"chunk_bytes"`  // the largest chunk's rows
	BytesCopied uint64 `json:"bytes_copied"` // rows and offsets copied per pass
	// Pinned: the graph's rows are page-locked, so the copies overlap the
	// kernels (else they stage through the driver's pageable path).
	Pinned bool `json:"pinned"`
	// Family is what counts each pair: "merge" (the tiled edge merge
	// over the pair's edges) or "pivot" (the pivot over its in-edges);
	// CoreIDs is the pivot's core kept in partitions (0: none, or dropped
	// because the cut does not fit the cap with its matrix).
	Family  string `json:"family"`
	CoreIDs int    `json:"core_ids,omitempty"`
	// CopyMs and KernelMs sum a pass's copies and its kernels (lists,
	// src, counts), medians over the timed passes; OverlapMs is how much
	// of them ran at once: copy + kernel - pass (0: one after the other).
	CopyMs    Timing  `json:"copy_ms"`
	KernelMs  Timing  `json:"kernel_ms"`
	OverlapMs float64 `json:"overlap_ms"`
}

// Partitioned is a plan prepared to count in partitions. Close frees it.
type Partitioned struct {
	dev       gpu.Device
	name      string
	o         *graph.Oriented
	part      *partition
	cls       gen.Class  // the merge's edge class
	pv        *partPivot // the pivot's classes and buffers (nil: the merge)
	sms       int
	res       Result
	mod, hmod gpu.Module
	fn        gpu.Function // the class kernel
	srcFn     gpu.Function
	listFn    gpu.Function
	addFn     gpu.Function
	rebaseFn  gpu.Function
	buffers   []gpu.Buffer
	off, adj  gpu.Buffer
	src       gpu.Buffer
	list      gpu.Buffer
	counts    gpu.Buffer
	fill      gpu.Buffer // the list's fill counter
	sum       gpu.Buffer // the pass's count
	steps     []partStep
	timers    []gpu.Timer
	pass      gpu.Timer
	have      uint64 // the memory it was planned under
	// The copy and compute streams and the events ordering them
	// (partition_run.go); unpin releases the pinned rows.
	copier, compute gpu.Stream
	idle, blockIn   gpu.Event
	copied, freed   [2]gpu.Event
	events          []gpu.Event
	unpin           []func() error
}

// partStep is one step of a pass: a block's arrival (pair < 0) or one
// pair's, with their timers (no copyT for a diagonal pair).
type partStep struct {
	block, pair   int
	copyT, kernel gpu.Timer
}

// PreparePartitioned prepares plan p to count g in partitions under
// opt.DeviceMemory (or the device's usable memory when 0), with chunks of
// opt.ChunkBytes (0: the default share). The plan's variant for the graph
// must be one edge class of KernelArgs (an edge iterator, no scratch) or
// pivot classes, in an id-ordered orientation: examples/partition.yaml,
// the tiled edge merge or the pivot as the default plan picks them, is the
// one tcgen uses.
func PreparePartitioned(ctx context.Context, dev gpu.Device, comp gpu.Compiler, p ir.Plan, g *graph.Graph, opt RunOptions) (*Partitioned, error) {
	s := newPreparation(ctx, dev, comp, p.Name(), g, opt)
	out, err := gen.Generate(p, s.target)
	if err != nil {
		return nil, err
	}
	s.out = out
	s.clk.mark("generate")
	if err := s.orient(); err != nil {
		return nil, err
	}
	if s.ck != nil { // the rows go up a piece at a time: checked on the host
		if err := s.ck.Finish(); err != nil {
			return nil, err
		}
	}
	man := &s.out.Manifest
	classes, pivot, err := partitionClasses(man, s.variant)
	if err != nil {
		return nil, s.fail("%v", err)
	}
	have := s.usable()
	var part *partition
	if pivot {
		if _, why := pivotWedges(s.o.Offsets); why != "" {
			return nil, s.fail("%w", &LimitError{Why: why})
		}
		part, err = cutPivot(man, s.variant, classes, s.o, s.facts.SMs, have, opt.ChunkBytes)
	} else {
		var blockRoom, chunkCap uint64
		if blockRoom, chunkCap, err = partitionCaps(uint64(s.o.N()), maxRow(s.o), have, opt.ChunkBytes, partCost{}); err == nil {
			part, err = cutPartition(s.o, blockRoom, chunkCap, partCost{})
		}
	}
	if err != nil {
		return nil, s.fail("counting in partitions: %v: %w", err, ErrTooLarge)
	}
	pt := &Partitioned{dev: dev, name: s.name, o: s.o, part: part, sms: s.facts.SMs, have: have}
	if pivot {
		pt.pv = newPartPivot(man, s.variant, classes, part, s.facts.SMs)
	} else {
		pt.cls = classes[0]
	}
	s.clk.mark("partition")
	return pt.setup(s, have)
}

// partitionClasses returns the variant's classes a count in partitions
// launches and whether they are pivot classes, or says why it cannot:
// one edge class without scratch (the merge), or pivot classes alone.
func partitionClasses(man *gen.Manifest, variant int) ([]gen.Class, bool, error) {
	v := man.Variants[variant]
	switch {
	case man.Output != "":
		return nil, false, fmt.Errorf("a count in partitions gives the total only, not output %s", man.Output)
	case !man.IDOrdered:
		return nil, false, fmt.Errorf("a count in partitions needs ids in the orientation's order (orientation id, or relabelled)")
	}
	var pivots []gen.Class
	for _, c := range v.Classes {
		if isPivot(c) {
			pivots = append(pivots, c)
		}
	}
	if len(pivots) > 0 && !slices.ContainsFunc(v.Classes, func(c gen.Class) bool { return !c.Skip && !isPivot(c) }) {
		return pivots, true, nil
	}
	if len(v.Classes) != 1 {
		return nil, false, fmt.Errorf("a count in partitions launches one edge class or pivot classes; variant %d has %d classes", variant, len(v.Classes))
	}
	c := v.Classes[0]
	if c.Skip || c.Kind != gen.KindSingle || c.Items != gen.ItemsEdges || c.Iterator != ir.IterEdge || c.Scratch != nil {
		return nil, false, fmt.Errorf("a count in partitions launches an edge class without scratch, or pivot classes; class %s is a %s %s class", c.Name, c.Iterator, c.Intersection)
	}
	if c.Target { // its kernel reads target items (targetitems.go); the partitions list edge ids
		return nil, false, fmt.Errorf("a count in partitions lists its edges by source; class %s groups them by target (target: 1)", c.Name)
	}
	return []gen.Class{c}, false, nil
}

// setup compiles and loads the kernels, allocates the buffers (the
// partition's plan, at most have) and makes the timers.
func (pt *Partitioned) setup(s *preparation, have uint64) (*Partitioned, error) {
	part := pt.part
	pt.res = Result{Plan: s.name, Device: s.facts, Arch: s.target.Arch, Variant: s.variant, Orientation: s.out.Manifest.VariantOrientation(s.variant),
		Feature: s.out.Manifest.Feature, FeatureValue: s.fvals[s.out.Manifest.Feature], Features: s.fvals,
		Vertices: uint64(part.n), Edges: s.o.Arcs(), OrientMs: s.times.orient, DeviceBytes: part.deviceBytes()}
	if need := part.deviceBytes(); need > have { // the caps keep it below: a defect if not
		return nil, &TooLargeError{Plan: s.name, Device: s.facts.Name, Need: need, Have: have}
	}
	if err := pt.load(s); err != nil {
		pt.Close()
		return nil, err
	}
	if err := pt.allocate(); err != nil {
		pt.Close()
		return nil, s.fail("%w", err)
	}
	s.clk.mark("alloc")
	pt.res.Phases = s.clk.phases
	return pt, nil
}

// load compiles and loads the plan's module and the helpers'.
func (pt *Partitioned) load(s *preparation) error {
	t0 := time.Now()
	in, err := compileInput(s.out, s.variant, s.target.Arch)
	if err != nil {
		return s.fail("%v", err)
	}
	img, err := s.comp.Compile(in)
	if err != nil {
		return s.fail("compiling %s: %w", in.Name, err)
	}
	himg, err := s.comp.Compile(gpu.CompileInput{Name: partitionFile, Source: templates.Partition, Headers: templates.Headers(), Arch: s.target.Arch})
	if err != nil {
		return s.fail("compiling %s: %w", partitionFile, err)
	}
	major, minor := s.comp.Version()
	pt.res.NVRTC, pt.res.CompileMs = [2]int{major, minor}, msSince(t0)
	s.clk.mark("compile")
	if pt.mod, err = s.dev.Load(img); err != nil {
		return s.fail("loading %s: %w", in.Name, err)
	}
	if pt.hmod, err = s.dev.Load(himg); err != nil {
		return s.fail("loading %s: %w", partitionFile, err)
	}
	helpers := map[string]*gpu.Function{partAddKernel: &pt.addFn, partRebaseKernel: &pt.rebaseFn}
	if pt.pv != nil {
		if err := pt.pv.load(pt.mod, pt.hmod); err != nil {
			return s.fail("%w", err)
		}
	} else {
		if err := pt.loadMerge(); err != nil {
			return s.fail("%w", err)
		}
		helpers[partSrcKernel], helpers[partListKernel] = &pt.srcFn, &pt.listFn
	}
	for name, fn := range helpers {
		if *fn, err = pt.hmod.Function(name); err != nil {
			return s.fail("kernel %s: %w", name, err)
		}
	}
	s.clk.mark("module load")
	return nil
}

// loadMerge looks up the merge's edge kernel.
func (pt *Partitioned) loadMerge() error {
	var err error
	if pt.fn, err = pt.mod.Function(pt.cls.Kernel); err != nil {
		return fmt.Errorf("kernel %s: %w", pt.cls.Kernel, err)
	}
	if c := pt.cls; c.DynamicSharedBytes > 0 {
		if err := pt.fn.SetMaxDynamicShared(c.DynamicSharedBytes); err != nil {
			return fmt.Errorf("kernel %s: %d bytes of dynamic shared memory: %w", c.Kernel, c.DynamicSharedBytes, err)
		}
	}
	return nil
}

// allocate allocates the buffers (partition.buffers) and the timers, and
// zeroes the window (the tiled merges read the padding past the last row)
// and the counters; the pivot's core matrix is written.
func (pt *Partitioned) allocate() error {
	dst := map[partBuf]*gpu.Buffer{bufOff: &pt.off, bufAdj: &pt.adj, bufSrc: &pt.src, bufList: &pt.list,
		bufCounts: &pt.counts, bufFill: &pt.fill, bufSum: &pt.sum}
	zero := []*gpu.Buffer{&pt.adj, &pt.counts}
	if pt.pv != nil {
		for id, b := range pt.pv.buffers() {
			dst[id] = b
		}
		zero = append(zero, &pt.pv.wrk) // every pair's bin leaves it zeroed again
	}
	for _, sp := range pt.part.buffers() {
		b, err := pt.dev.Alloc(sp.bytes)
		if err != nil {
			return fmt.Errorf("%s: %w", sp.name, err)
		}
		pt.buffers = append(pt.buffers, b)
		*dst[sp.id] = b
	}
	for _, b := range zero {
		if err := (*b).Zero(); err != nil {
			return err
		}
	}
	if pt.pv != nil {
		if err := pt.pv.writeCore(pt.o); err != nil {
			return fmt.Errorf("the core matrix: %w", err)
		}
	}
	if err := pt.streams(); err != nil {
		return err
	}
	return pt.makeTimers()
}

// makeTimers makes the pass's timer and each step's.
func (pt *Partitioned) makeTimers() error {
	part := pt.part
	var err error
	if pt.pass, err = pt.newTimer(pt.dev.NewTimer); err != nil {
		return err
	}
	i := 0
	for a := range part.numBlocks() {
		if !part.visited(a) {
			continue
		}
		pt.steps = append(pt.steps, partStep{block: a, pair: -1})
		for ; i < len(part.pairs) && part.pairs[i].block == a; i++ {
			pt.steps = append(pt.steps, partStep{block: a, pair: i})
		}
	}
	for i := range pt.steps {
		st := &pt.steps[i]
		if st.pair < 0 || part.pairs[st.pair].streamed() { // a diagonal or an own chunk copies nothing
			if st.copyT, err = pt.newTimer(pt.copier.NewTimer); err != nil {
				return err
			}
		}
		if st.kernel, err = pt.newTimer(pt.compute.NewTimer); err != nil {
			return err
		}
	}
	return nil
}

func (pt *Partitioned) newTimer(newT func() (gpu.Timer, error)) (gpu.Timer, error) {
	t, err := newT()
	if err != nil {
		return nil, err
	}
	pt.timers = append(pt.timers, t)
	return t, nil
}

// Close frees the buffers, the timers and the modules. It may be called
// more than once.
func (pt *Partitioned) Close() error {
	var errs []error
	if pt.copier != nil { // nothing queued may run on what is freed
		errs = append(errs, pt.dev.Synchronize())
	}
	for _, b := range pt.buffers {
		errs = append(errs, b.Free())
	}
	pt.buffers = nil
	for _, t := range pt.timers {
		errs = append(errs, t.Close())
	}
	pt.timers = nil
	for _, e := range pt.events {
		errs = append(errs, e.Close())
	}
	pt.events = nil
	for _, st := range []*gpu.Stream{&pt.copier, &pt.compute} {
		if *st != nil {
			errs = append(errs, (*st).Close())
			*st = nil
		}
	}
	for _, un := range pt.unpin {
		errs = append(errs, un())
	}
	pt.unpin = nil
	for _, m := range []*gpu.Module{&pt.mod, &pt.hmod} {
		if *m != nil {
			errs = append(errs, (*m).Unload())
			*m = nil
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("plan %s: freeing: %w", pt.name, err)
	}
	return nil
}

// usable is the memory a run may allocate: the device's usable memory,
// capped by RunOptions.DeviceMemory.
func (s *preparation) usable() uint64 {
	have := usableMemory(s.dev)
	if c := s.opt.DeviceMemory; c > 0 {
		have = min(have, c)
	}
	return have
}

// Stats is what each pass will do (the times are the Run's).
func (pt *Partitioned) Stats() PartitionStats {
	p := pt.part
	st := PartitionStats{CapBytes: pt.have, Blocks: p.numBlocks(), Chunks: p.numChunks(), Pairs: len(p.pairs),
		BlockBytes: 4 * p.maxBlock, ChunkBytes: 4 * p.maxChunk, BytesCopied: p.copiedBytes(pt.o.Offsets), Pinned: len(pt.unpin) > 0, Family: "merge"}
	if pt.pv != nil {
		st.Family, st.CoreIDs = "pivot", pt.pv.coreIDs
	}
	return st
}

// DeviceBytes is the device memory it allocated.
func (pt *Partitioned) DeviceBytes() uint64 { return pt.res.DeviceBytes }

// streams makes the copy and compute streams and their events, and pins
// the graph's rows and offsets so that their copies run asynchronously; a
// pin the driver refuses leaves the copies correct, only not overlapped.
func (pt *Partitioned) streams() error {
	ss := gpu.StreamsOf(pt.dev)
	var err error
	if pt.copier, err = ss.NewStream(); err != nil {
		return err
	}
	if pt.compute, err = ss.NewStream(); err != nil {
		return err
	}
	for _, e := range []*gpu.Event{&pt.idle, &pt.blockIn, &pt.copied[0], &pt.copied[1], &pt.freed[0], &pt.freed[1]} {
		if *e, err = ss.NewEvent(); err != nil {
			return err
		}
		pt.events = append(pt.events, *e)
	}
	if _, serial := ss.(gpu.Serial); serial {
		return nil
	}
	adj, off := pt.o.Adj, pt.o.Offsets
	for _, r := range []struct {
		p unsafe.Pointer
		n uint64
	}{{unsafe.Pointer(unsafe.SliceData(adj)), 4 * uint64(len(adj))}, {unsafe.Pointer(unsafe.SliceData(off)), 8 * uint64(len(off))}} {
		if r.n == 0 {
			continue
		}
		un, err := ss.Pin(r.p, r.n)
		if err != nil {
			break
		}
		pt.unpin = append(pt.unpin, un)
	}
	return nil
}
