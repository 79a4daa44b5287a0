package executor

import (
	"context"
	"errors"
	"fmt"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// The executor: Prepare (prepare.go) plans a run on the host, allocates
// the buffers of its memory plan (memory.go), uploads the graph and sets
// up each family of classes (family.go); Prepared.Run (run.go) times its
// passes.

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
	// oriented CSR file, or oriented ahead by the tuner): Prepare uses it
	// where its orientation and relabelling are the ones the plan (or the
	// guard variant taken) needs, and orients the graph argument otherwise.
	// A nil graph argument then needs them to match; guard conditions on
	// features only the undirected graph gives (max_degree,
	// words_per_neighbour) do not hold.
	Oriented *graph.Oriented
	// PassOnly records no events inside a pass: the pass is timed alone,
	// and the classes' and preparation kernels' own times are not measured
	// (their Timings stay zero and KernelMs is the pass; a plan launching
	// one class without preparation is timed as before, its class's time
	// being the pass).
	PassOnly bool
	// NoGraph launches every pass kernel by kernel. By default, with Repeat
	// 2 and more, the passes after the first warm-up replay its launches
	// as one CUDA graph, which spares the GPU the host's time between
	// launches (4-5 us each on an H200, docs/performance.md), where the
	// device and the plan allow (with no warm-up, every pass replays), and
	// a single timed pass does not pay for the capture.
	NoGraph bool
	// FlushL2 writes a buffer of twice the device's L2 (FlushBytes) before
	// each timed pass, outside the pass timer, so no pass finds the graph
	// in L2 from the one before (Result.Pass says so).
	FlushL2 bool
	// IndexBase, a test aid, raises every edge index the kernels see by
	// this base (highindex.go): 1<<32 runs a small graph's kernels at the
	// indices of one of billions of edges. 0 in normal use.
	IndexBase uint64
	// DeviceMemory, when not 0, caps the device memory the run's memory
	// plan may use (bytes), below what the device has: a plan above it is
	// refused (TooLargeError) and PreparePartitioned plans under it.
	DeviceMemory uint64
	// ChunkBytes is the size of a streamed chunk of rows in a count in
	// partitions (partition_plan.go); 0: 1/32 of the rows' memory.
	ChunkBytes uint64
}

// ErrDeviceLost is matched (errors.Is) by driver errors after which the
// context is unusable (an illegal address, a failed or timed-out launch):
// every later call fails too, so a tuner stops instead of blaming the
// candidates that follow.
var ErrDeviceLost = errors.New("the GPU context is lost")

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
	sms      int
	res      Result // the parts Prepare knows

	mod     gpu.Module
	buffers []gpu.Buffer
	timers  []gpu.Timer
	off     gpu.Buffer
	adj     gpu.Buffer
	counts  gpu.Buffer
	srcBuf  gpu.Buffer // src[e] = first vertex of edge e; nil without edge classes
	scratch gpu.Buffer // per-group scratch of the classes (scratch.go); nil when none needs it
	square  gpu.Buffer // the dense classes' bit matrix (scratch.go, edge_bitmap.go); nil when none
	// local holds the local counters of a plan with a local output
	// (local.go), zeroed before each pass; nil for the total alone.
	local   gpu.Buffer
	o       *graph.Oriented // the graph the local counts index (nil for the total alone)
	n       uint32
	m       uint64
	base    uint64 // RunOptions.IndexBase (highindex.go)
	classes []prepClass

	families  []family     // of the variant's classes, in familyID order
	preparers []preparer   // the families with work at the start of a pass
	upload    *graphUpload // the graph's upload until Prepare joins it (upload.go)
	// passTimer spans a whole pass: zeroing the counters, the device-side
	// preparation and every class kernel; prepTimer the preparation
	// (nil without preparers).
	passTimer, prepTimer gpu.Timer
	// flush is the L2 flush buffer (measure.go), allocated by the first
	// Run with FlushL2; nil before.
	flush gpu.Buffer
}

// prepClass is one class of the chosen variant, ready to launch.
type prepClass struct {
	c      gen.Class
	fam    family // nil for a skip class
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
}

// launched reports whether a pass launches the class.
func (pc *prepClass) launched() bool { return pc.fn != nil && pc.items > 0 }

// square reports whether the class's scratch is the dense rows' matrix.
func (pc *prepClass) square() bool { return pc.c.Scratch != nil && pc.c.Scratch.Square }

// listArg is the class's work list argument: null for every item.
func (pc *prepClass) listArg() any { return bufArg(pc.list) }

// srcArg is the src argument of the class kernels: null without it.
func (pr *Prepared) srcArg() any { return bufArg(pr.srcBuf) }

// scratchArg is class pc's scratch argument: the dense rows' matrix, the
// per-group scratch, or null.
func (pr *Prepared) scratchArg(pc *prepClass) any {
	switch {
	case pc.square():
		return pr.square
	case pc.scratchWords > 0:
		return pr.scratch
	}
	return uint64(0)
}

// bufArg passes b to a kernel, a null pointer when b is nil.
func bufArg(b gpu.Buffer) any {
	if b == nil {
		return uint64(0)
	}
	return b
}

// kernelErr names the plan and the class a launch failed for.
func (pr *Prepared) kernelErr(pc *prepClass, err error) error {
	return fmt.Errorf("plan %s: kernel %s (class %s, %d items, grid %d x %d): %w",
		pr.name, pc.c.Kernel, pc.c.Name, pc.items, pc.grid, pc.c.Block, err)
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
	pr.flush = nil
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
