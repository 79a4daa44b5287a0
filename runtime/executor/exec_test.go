package executor_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// The fake device runs each class kernel as the CPU computation it stands
// for (the triangles of its items), so the executor's part — orientation,
// work lists, argument order, src, counts per class, repetitions, freeing —
// is checked without a GPU against the oracle. The kernels themselves are
// checked on the GPU (exec_gpu_test.go).

type fakeDevice struct {
	// mu serializes the fake's calls: the executor uploads the graph from
	// a goroutine of its own while it compiles and allocates (upload.go),
	// as the CUDA driver allows. Every method of the gpu interfaces takes
	// it; the helpers they share do not.
	mu      sync.Mutex
	mem     uint64
	kernels map[string]gen.Class // by symbol
	srcSyms map[string]bool      // the src kernels of the plans it knows
	outputs map[string]ir.Output // the local output of each class kernel's plan (local_fake_test.go)
	rowsFor map[string]gen.Class // dense rows kernels, by symbol, and their class (edge_bitmap_test.go)
	copies  map[string]bool      // the aligned lists' copy kernels (aligned_fake_test.go)
	carries map[string]bool      // the carry kernels of target items (aligned_fake_test.go)
	carried map[*fakeBuf]uint64  // items a carry kernel has widened, by list (aligned_fake_test.go)
	slices  *gen.SliceHelpers    // bit-slice helpers (bitwise_test.go)
	live    map[*fakeBuf]bool
	allocs  int
	launch  []string
	loaded  int
	timers  int
	// rec, while a capturingFake captures, collects the work the default
	// stream would run (graph_fake_test.go); replays counts its replays.
	rec     *[]func() error
	replays int

	phases map[string]fakePhase // wedge/radix phase kernels (wedge_radix_fake_test.go)
	pv     *fakePivot           // pivot kernels (pivot_fake_test.go)
	next   uint64               // next device address Alloc hands out
	// allocBytes sums every allocation, to check the prediction Prepare
	// makes before allocating (Result.DeviceBytes).
	allocBytes uint64
	fills      int // WriteFrom calls
	writes     int // Write calls
	// checkLies makes the list check find a bad entry in any lists, as a
	// copy that changed them on the way would.
	checkLies bool
	// passMs, when set, is what a timer reads: the time of the kernels
	// launched between its events (tune_final_fake_test.go).
	passMs func(launched []string) float64
	// events logs timer starts and stops and buffer zeroings in order
	// ("start", "stop", "zero <bytes>"), with how many timers were
	// running at each (measure_fake_test.go).
	events  []string
	running int
	// base is the index base of the launch in progress (unshift), which
	// the kernels reading edge ids from work lists take off.
	base uint64
	// shifted counts the launches that got shifted buffers.
	shifted int
	// limit, when set, fails an allocation that would hold more than
	// limit bytes live (partition_fake_test.go); peak is the most held.
	limit, peak uint64
	// streams queue work until the default stream needs it done
	// (streams_fake_test.go): prefer is the one that runs first when it
	// may, noWait the streams that ignore their waits, ran what ran in
	// order, pinned the host bytes pinned.
	streams  []*fakeStream
	prefer   int
	noWait   map[int]bool
	draining bool
	ran      []string
	pinned   uint64
}

func newFakeDevice(t *testing.T, p ir.Plan, mem uint64) *fakeDevice {
	out, err := gen.Generate(p, gen.Target{Arch: "compute_90", MaxSharedPerBlock: 227 << 10})
	if err != nil {
		t.Fatal(err)
	}
	d := &fakeDevice{mem: mem, kernels: map[string]gen.Class{}, outputs: map[string]ir.Output{}, live: map[*fakeBuf]bool{}, srcSyms: map[string]bool{}, rowsFor: map[string]gen.Class{}, copies: map[string]bool{}, carries: map[string]bool{}, carried: map[*fakeBuf]uint64{}}
	d.addPlan(t, out)
	return d
}

// addPlan teaches the device another plan's kernels (a tuner runs many
// plans on one device; tune_fake_test.go).
func (d *fakeDevice) addPlan(t *testing.T, out *gen.Output) {
	for _, v := range out.Manifest.Variants {
		for _, c := range v.Classes {
			if !c.Skip {
				d.kernels[c.Kernel] = c
				d.outputs[c.Kernel] = out.Manifest.Output
				d.addPhases(c) // wedge_radix_fake_test.go
				if c.Kind == gen.KindDense {
					d.rowsFor[c.Dense.Rows.Kernel] = c
				}
				if c.Kind == gen.KindAligned {
					d.copies[c.Aligned.Copy.Kernel] = true
					if c.Aligned.Carry != nil {
						d.carries[c.Aligned.Carry.Kernel] = true
					}
				}
			}
		}
	}
	if out.Manifest.Src != nil {
		d.srcSyms[out.Manifest.Src.Kernel] = true
	}
	if out.Manifest.Slices != nil {
		d.slices = out.Manifest.Slices
	}
	d.addPivot(t, out) // pivot_fake_test.go
}

func (d *fakeDevice) Facts() gpu.DeviceFacts {
	return gpu.DeviceFacts{Name: "fake", Major: 9, Minor: 0, SMs: 4, MemoryBytes: d.mem, SharedOptin: 227 << 10, L2Bytes: fakeL2}
}

// lock takes d.mu and returns its release, for a deferred call.
func (d *fakeDevice) lock() func() {
	d.mu.Lock()
	return d.mu.Unlock
}

func (d *fakeDevice) Alloc(n uint64) (gpu.Buffer, error) {
	defer d.lock()()
	// Disjoint address ranges, so that an address inside a buffer (Ptr()
	// plus an offset, as pivot.go passes) names it (pivot_fake_test.go).
	d.next = max(d.next, 1<<40)
	if live := d.liveBytes() + n; d.limit > 0 && live > d.limit {
		return nil, fmt.Errorf("fake: out of memory: %d bytes live with %d more, limit %d", live-n, n, d.limit)
	} else {
		d.peak = max(d.peak, live)
	}
	b := &fakeBuf{d: d, data: make([]byte, n), addr: d.next}
	d.next += (n+255)&^255 + 4096
	d.live[b] = true
	d.allocs++
	d.allocBytes += n
	return b, nil
}

func (d *fakeDevice) Load(img gpu.Image) (gpu.Module, error) {
	defer d.lock()()
	if img.Kind != "ptx" || len(img.Data) == 0 {
		return nil, fmt.Errorf("bad image")
	}
	d.loaded++
	return &fakeModule{d: d}, nil
}

func (d *fakeDevice) NewTimer() (gpu.Timer, error) { defer d.lock()(); return d.newTimer(), nil }
func (d *fakeDevice) newTimer() gpu.Timer          { d.timers++; return &fakeTimer{d: d} }
func (d *fakeDevice) Synchronize() error           { defer d.lock()(); return d.drain() }
func (d *fakeDevice) Close() error                 { return nil }

type fakeBuf struct {
	d    *fakeDevice
	data []byte
	addr uint64
}

func (b *fakeBuf) Ptr() uint64  { return b.addr }
func (b *fakeBuf) Size() uint64 { return uint64(len(b.data)) }
func (b *fakeBuf) Write(off uint64, src unsafe.Pointer, n uint64) error {
	defer b.d.lock()()
	if err := b.d.drain(); err != nil {
		return err
	}
	b.d.writes++
	copy(b.data[off:off+n], unsafe.Slice((*byte)(src), n))
	return nil
}

// WriteFrom fills the buffer as cuda.Buffer.WriteFrom does: pieces of
// whole 64 KiB units (the last shorter) from several goroutines at once.
func (b *fakeBuf) WriteFrom(off, n uint64, fill func(dst []byte, pos uint64) error) error {
	b.d.mu.Lock()
	b.d.fills++
	b.d.mu.Unlock()
	const unit = 64 << 10
	errs := make([]error, (n+unit-1)/unit)
	var wg sync.WaitGroup
	for i := range errs {
		lo := uint64(i) * unit
		wg.Go(func() { errs[i] = fill(b.data[off+lo:off+min(lo+unit, n)], lo) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (b *fakeBuf) Read(off uint64, dst unsafe.Pointer, n uint64) error {
	defer b.d.lock()()
	if b.d.rec != nil {
		return fmt.Errorf("fake: a read while capturing")
	}
	if err := b.d.drain(); err != nil {
		return err
	}
	copy(unsafe.Slice((*byte)(dst), n), b.data[off:off+n])
	return nil
}
func (b *fakeBuf) Zero() error {
	defer b.d.lock()()
	if b.d.recorded(b.zero) {
		return nil
	}
	return b.zero()
}
func (b *fakeBuf) zero() error {
	if err := b.d.drain(); err != nil {
		return err
	}
	b.d.events = append(b.d.events, fmt.Sprintf("zero %d running %d", len(b.data), b.d.running))
	clear(b.data)
	return nil
}
func (b *fakeBuf) Free() error {
	defer b.d.lock()()
	delete(b.d.live, b)
	return nil
}
func (b *fakeBuf) u64(i uint64) uint64 { return binary.LittleEndian.Uint64(b.data[8*i:]) }
func (b *fakeBuf) u32(i uint64) uint32 { return binary.LittleEndian.Uint32(b.data[4*i:]) }

type fakeModule struct{ d *fakeDevice }

func (m *fakeModule) Function(name string) (gpu.Function, error) {
	defer m.d.lock()()
	_, rows := m.d.rowsFor[name]
	if _, ok := m.d.kernels[name]; !ok && !rows && !m.d.copies[name] && !m.d.carries[name] && !m.d.srcSyms[name] && !m.d.isSliceKernel(name) && !m.d.isPivotKernel(name) && !isCheckKernel(name) && !isPartKernel(name) {
		return nil, fmt.Errorf("no kernel %s", name)
	}
	return &fakeFunc{d: m.d, name: name}, nil
}
func (m *fakeModule) Unload() error { defer m.d.lock()(); m.d.loaded--; return nil }

// fakeTimer keeps the state rules of cuda.Timer: Stop after Start, Elapsed
// after Stop.
type fakeTimer struct {
	d     *fakeDevice
	state int
	from  int // len(d.launch) at Start
}

func (t *fakeTimer) Start() error {
	defer t.d.lock()()
	if t.d.recorded(t.start) {
		return nil
	}
	return t.start()
}
func (t *fakeTimer) start() error {
	t.state, t.from = 1, len(t.d.launch)
	t.d.running++
	t.d.events = append(t.d.events, "start")
	return nil
}
func (t *fakeTimer) Stop() error {
	defer t.d.lock()()
	if t.d.recorded(t.stop) {
		return nil
	}
	return t.stop()
}
func (t *fakeTimer) stop() error {
	if t.state != 1 {
		return fmt.Errorf("fake timer stopped before it was started")
	}
	t.state = 2
	t.d.running--
	t.d.events = append(t.d.events, "stop")
	return nil
}
func (t *fakeTimer) Elapsed() (float64, error) {
	defer t.d.lock()()
	if t.state != 2 {
		return 0, fmt.Errorf("fake timer read before Start and Stop")
	}
	if t.d.passMs != nil {
		return t.d.passMs(t.d.launch[min(t.from, len(t.d.launch)):]), nil
	}
	return 0.5, nil
}
func (t *fakeTimer) Close() error { defer t.d.lock()(); t.d.timers--; return nil }

type fakeFunc struct {
	d    *fakeDevice
	name string
}

func (f *fakeFunc) Name() string                  { return f.name }
func (f *fakeFunc) SetMaxDynamicShared(int) error { return nil }

// intersect counts the common entries of two sorted lists.
func intersect(a, b []uint32) uint64 {
	var c uint64
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			c++
			i++
			j++
		}
	}
	return c
}

func (f *fakeFunc) Launch(grid, block gpu.Dim3, shared uint32, args ...any) error {
	defer f.d.lock()()
	if f.d.recorded(func() error { return f.launch(grid, block, shared, args...) }) {
		return nil
	}
	return f.launch(grid, block, shared, args...)
}

// launch runs the kernel, d.mu held (Launch, or a stream's queue).
func (f *fakeFunc) launch(grid, block gpu.Dim3, shared uint32, args ...any) error {
	if err := f.d.drain(); err != nil {
		return err
	}
	f.d.launch = append(f.d.launch, f.name)
	var err error
	if args, err = f.d.unshift(args); err != nil {
		return fmt.Errorf("%s: %w", f.name, err)
	}
	defer func() { f.d.base = 0 }()
	if grid.X == 0 {
		return fmt.Errorf("empty grid")
	}
	if f.d.srcSyms[f.name] {
		off, n, src := args[0].(*fakeBuf), args[1].(uint32), args[2].(*fakeBuf)
		for u := range uint64(n) {
			for e := off.u64(u); e < off.u64(u+1); e++ {
				binary.LittleEndian.PutUint32(src.data[4*e:], uint32(u))
			}
		}
		return nil
	}
	if f.name == executor.UnpackKernel { // templates/check_lists.cu: 3 bytes an entry
		packed, adj, m := args[0].(*fakeBuf), args[1].(*fakeBuf), args[2].(uint64)
		if uint64(len(packed.data)) < (m+3)/4*12 {
			return fmt.Errorf("unpack: %d packed bytes for %d entries", len(packed.data), m)
		}
		for e := range m {
			b := packed.data[3*e:]
			binary.LittleEndian.PutUint32(adj.data[4*e:], uint32(b[0])|uint32(b[1])<<8|uint32(b[2])<<16)
		}
		return nil
	}
	if ok, err := f.d.checkLaunch(f.name, args); ok {
		return err // check_fake_test.go
	}
	if ok, err := f.d.partPivotLaunch(f.name, grid, args); ok {
		return err // partition_pivot_fake_test.go
	}
	if ok, err := partLaunch(f.name, args); ok {
		return err // partition_fake_test.go
	}
	if c, ok := f.d.rowsFor[f.name]; ok {
		return f.d.launchRows(c, grid, block, args) // edge_bitmap_test.go
	}
	if f.d.copies[f.name] {
		return launchCopy(args) // aligned_fake_test.go
	}
	if f.d.carries[f.name] {
		return f.d.launchCarry(args) // aligned_fake_test.go
	}
	if ph, ok := f.d.phases[f.name]; ok {
		return f.d.launchPhase(ph, grid, block, shared, args) // wedge_radix_fake_test.go
	}
	if ok, err := f.d.pivotLaunch(f.name, grid, block, shared, args); ok {
		return err // pivot_fake_test.go
	}
	if ok, err := f.d.tcbwLaunch(f.name, grid, block, args); ok {
		return err // bitwise_test.go
	}
	if ok, err := f.d.wedgeLaunch(f.name, grid, block, shared, args); ok {
		return err // wedge_search_fake_test.go
	}
	c := f.d.kernels[f.name]
	out := f.d.outputs[f.name] // local_fake_test.go
	want := len(gen.KernelArgs)
	if out != "" {
		want++ // gen.LocalArg
	}
	if len(args) != want {
		return fmt.Errorf("%d args, want %d", len(args), want)
	}
	off, adj := args[0].(*fakeBuf), args[1].(*fakeBuf)
	n, m := args[3].(uint32), args[4].(uint64)
	nitems, counts := args[6].(uint64), args[7].(*fakeBuf)
	if uint64(len(off.data)) != (uint64(n)+1)*8 || uint64(len(adj.data)) != executor.AdjBytes(m) {
		return fmt.Errorf("sizes do not match n=%d m=%d", n, m)
	}
	// Scratch (gen.Scratch): none, or grid * groups slices of scratch_words
	// u64 words, zeroed at launch when the class needs it so.
	words := args[9].(uint64)
	if c.Kind == gen.KindAligned {
		if err := checkAligned(c, off, adj, n, args[8], words); err != nil { // aligned_fake_test.go
			return err
		}
	} else if s := c.Scratch; s == nil {
		if args[8] != any(uint64(0)) || words != 0 {
			return fmt.Errorf("scratch %v, %d words for a class without scratch", args[8], words)
		}
	} else if s.Square {
		sb, ok := args[8].(*fakeBuf)
		if !ok || words != gen.SquareWords(uint64(n)) || uint64(len(sb.data)) < gen.SquareBytes(uint64(n)) {
			return fmt.Errorf("square scratch %T, %d words a row for n=%d", args[8], words, n)
		}
	} else {
		sb, ok := args[8].(*fakeBuf)
		if !ok || words < s.WordsPerGroup(uint64(n)) || uint64(len(sb.data)) < uint64(grid.X)*uint64(s.Groups)*words*8 {
			return fmt.Errorf("scratch %T, %d words for grid %d of %+v", args[8], words, grid.X, s)
		}
		if s.Zeroed && slices.ContainsFunc(sb.data, func(b byte) bool { return b != 0 }) {
			return fmt.Errorf("scratch not zeroed at launch")
		}
	}
	if grid.X != c.Grid.Blocks(nitems, 4) || block.X != uint32(c.Block) || shared != uint32(c.DynamicSharedBytes) {
		return fmt.Errorf("launch shape %v %v %d for %d items of %+v", grid, block, shared, nitems, c)
	}
	list := func(i uint64) uint64 { return i }
	if b, ok := args[5].(*fakeBuf); ok {
		if c.Items == gen.ItemsVertices {
			list = func(i uint64) uint64 { return uint64(b.u32(i)) }
		} else {
			base := f.d.base
			if c.Target { // e << TargetLenBits | length, e raised by the base
				base <<= gen.TargetLenBits
			}
			list = func(i uint64) uint64 { return b.u64(i) - base }
			if c.Kind == gen.KindAligned && c.Aligned.Carry != nil { // 16 bytes an item: the item, N+(v)'s word
				if got := f.d.carried[b]; got != nitems {
					return fmt.Errorf("%s: %d of its %d items widened", f.name, got, nitems)
				}
				if err := checkCarried(b, nitems, base, adj, args[8].(*fakeBuf)); err != nil {
					return fmt.Errorf("%s: %w", f.name, err)
				}
				list = func(i uint64) uint64 { return b.u64(2*i) - base }
			}
		}
	} else if args[5].(uint64) != 0 {
		return fmt.Errorf("list argument %v", args[5])
	}
	nb := func(u uint64) []uint32 {
		var s []uint32
		for e := off.u64(u); e < off.u64(u+1); e++ {
			s = append(s, adj.u32(e))
		}
		return s
	}
	var total uint64
	for i := range nitems {
		id := list(i)
		if c.Items == gen.ItemsVertices && out != "" {
			for e := off.u64(id); e < off.u64(id+1); e++ {
				total += creditEdge(off, adj, args[10].(*fakeBuf), out, uint32(id), e) // local_fake_test.go
			}
			continue
		}
		if c.Items == gen.ItemsVertices {
			nu := nb(id)
			for _, v := range nu {
				total += intersect(nu, nb(uint64(v)))
			}
			continue
		}
		if c.Target { // target items (targetitems.go): e and N+(u) after v
			e, a := id>>gen.TargetLenBits, id&(1<<gen.TargetLenBits-1)
			if args[2] != any(uint64(0)) {
				return fmt.Errorf("%s: target items with a src argument", f.name)
			}
			var after []uint32
			for k := e + 1; k < e+1+a; k++ {
				after = append(after, adj.u32(k))
			}
			total += intersect(after, nb(uint64(adj.u32(e))))
			continue
		}
		src := args[2].(*fakeBuf)
		u, v := src.u32(id), adj.u32(id)
		if out != "" {
			total += creditEdge(off, adj, args[10].(*fakeBuf), out, u, id) // local_fake_test.go
			continue
		}
		if c.Kind == gen.KindDense {
			total += denseEdge(uint64(n), args[8].(*fakeBuf), words, u, v) // edge_bitmap_test.go
			continue
		}
		total += intersect(nb(uint64(u)), nb(uint64(v)))
	}
	if c.SelfReset {
		// tc::finish_count: the last block stores the class's total, and
		// the pass did not zero the slot.
		binary.LittleEndian.PutUint64(counts.data[8*c.Slot:], total)
		return nil
	}
	binary.LittleEndian.PutUint64(counts.data[8*c.Slot:], counts.u64(uint64(c.Slot))+total)
	return nil
}

// shifter is a buffer passed shifted back (RunOptions.IndexBase).
type shifter interface {
	Shift() (gpu.Buffer, uint64)
}

// unshift undoes RunOptions.IndexBase for the emulated kernels, which
// index Go slices: the shifted buffers (adj, src: u32 entries) are passed
// as themselves, the offsets (the first argument, when another is
// shifted) as a copy with the base taken off every entry, and d.base is
// the base the work lists' edge ids carry. Offsets not raised by the base
// of the shifted pointers are an error: the executor shifted one without
// the other.
func (d *fakeDevice) unshift(args []any) ([]any, error) {
	var base uint64
	out := slices.Clone(args)
	for i, a := range args {
		if s, ok := a.(shifter); ok {
			b, by := s.Shift()
			if base == 0 {
				base = by / 4 // adj or src, u32 entries, come first
			} else if by != 4*base && by != 8*base { // u32 entries, or u64 (the local counters per edge)
				return nil, fmt.Errorf("arguments shifted by %d entries and by %d bytes", base, by)
			}
			out[i] = b
		}
	}
	if base == 0 {
		return args, nil
	}
	d.base = base
	d.shifted++
	// The offsets come just before the first shifted buffer (off, adj),
	// else first (src's kernel: off, n, src).
	at := 0
	if i := slices.IndexFunc(args, func(a any) bool { _, ok := a.(shifter); return ok }); i > 0 {
		if _, ok := args[i-1].(*fakeBuf); ok {
			at = i - 1
		}
	}
	if off, ok := args[at].(*fakeBuf); ok {
		cp := &fakeBuf{d: d, data: slices.Clone(off.data), addr: off.addr}
		for i := range uint64(len(cp.data) / 8) {
			x := cp.u64(i)
			if x < base {
				return nil, fmt.Errorf("offset %d = %d, below the index base %d", i, x, base)
			}
			binary.LittleEndian.PutUint64(cp.data[8*i:], x-base)
		}
		out[at] = cp
	}
	return out, nil
}

type fakeCompiler struct {
	calls     atomic.Int64 // the tuner compiles ahead on other goroutines
	failCheck bool         // refuse the list check's module (upload.go)
}

func (c *fakeCompiler) Version() (int, int) { return 13, 0 }
func (c *fakeCompiler) Compile(in gpu.CompileInput) (gpu.Image, error) {
	c.calls.Add(1)
	if c.failCheck && in.Name == executor.CheckListsFile {
		return gpu.Image{}, fmt.Errorf("%s: refused (test)", in.Name)
	}
	if (!strings.HasPrefix(in.Source, gen.Header) && in.Name != executor.CheckListsFile && in.Name != executor.PartitionFile) || in.Arch != "sm_90" {
		return gpu.Image{}, fmt.Errorf("unexpected input %s %s", in.Name, in.Arch)
	}
	for _, inc := range includeRE.FindAllStringSubmatch(in.Source, -1) { // as NVRTC, which reads no header from disk
		if _, ok := in.Headers[inc[1]]; !ok {
			return gpu.Image{}, fmt.Errorf("%s: cannot open source file %q", in.Name, inc[1])
		}
	}
	return gpu.Image{Kind: "ptx", Data: []byte("ptx")}, nil
}

// includeRE finds a source's include directives.
var includeRE = regexp.MustCompile(`(?m)^#include "([^"]+)"`)

func TestExecFake(t *testing.T) {
	graphs := map[string]*graph.Graph{}
	for name, g := range map[string]graph.Generator{
		"rmat10": graph.DefaultRMAT(10),
		"er":     graph.ErdosRenyi{N: 300, M: 6000, Seed: 3},
		"wheel":  graph.Wheel{Rim: 500},
		"star":   graph.Star{Leaves: 100},
	} {
		gg, _, err := graph.Generate(g)
		if err != nil {
			t.Fatal(err)
		}
		graphs[name] = gg
	}
	plans := append(generatablePresets(), specPlans()...)
	rng := rand.New(rand.NewPCG(11, 0))
	for len(plans) < 40 {
		if p := ir.RandomPlan(rng); runnable(p) {
			plans = append(plans, p)
		}
	}
	for name, g := range graphs {
		want := graph.Oracle(g)
		for _, p := range plans {
			d := newFakeDevice(t, p, 1<<40)
			comp := &fakeCompiler{}
			res, err := executor.Run(context.Background(), d, comp, p, g, executor.RunOptions{Repeat: 3, Warmup: 1})
			if err != nil {
				t.Fatalf("%s on %s: %v", p.Prefix, name, err)
			}
			if res.Triangles != want {
				t.Errorf("%s (%s) on %s: %d triangles, want %d: %+v", p.Prefix, res.Plan, name, res.Triangles, want, res.PerClass)
			}
			if d.allocBytes > res.DeviceBytes {
				t.Errorf("%s on %s: allocated %d bytes, predicted %d before allocating: %+v", p.Prefix, name, d.allocBytes, res.DeviceBytes, p.Classes)
			}
			if len(d.live) != 0 || d.loaded != 0 || d.timers != 0 || comp.calls.Load() != 1 {
				t.Errorf("%s on %s: %d buffers, %d modules, %d timers left; %d compiles", p.Prefix, name, len(d.live), d.loaded, d.timers, comp.calls.Load())
			}
			if res.Runs != 3 || res.KernelMs.Median <= 0 && want > 0 {
				t.Errorf("%s on %s: runs %d, kernel %+v", p.Prefix, name, res.Runs, res.KernelMs)
			}
		}
	}
}

func TestExecTooLarge(t *testing.T) {
	p, _ := ir.Preset("polak")
	g, _, err := graph.Generate(graph.DefaultRMAT(10))
	if err != nil {
		t.Fatal(err)
	}
	d := newFakeDevice(t, p, 256<<20+1<<10) // the headroom and 1 KiB: less than the graph
	_, err = executor.Run(context.Background(), d, &fakeCompiler{}, p, g, executor.RunOptions{})
	var tl *executor.TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, executor.ErrTooLarge) {
		t.Fatalf("got %v, want a TooLargeError", err)
	}
	if d.allocs != 0 {
		t.Errorf("%d allocations before the refusal", d.allocs)
	}
	if !strings.Contains(err.Error(), p.Name()) {
		t.Errorf("error %q does not name the plan", err)
	}
}

func TestExecCompileErrorNamesPlan(t *testing.T) {
	p, _ := ir.Preset("trust")
	g, _, _ := graph.Generate(graph.DefaultRMAT(8))
	d := newFakeDevice(t, p, 1<<40)
	_, err := executor.Run(context.Background(), d, failingCompiler{}, p, g, executor.RunOptions{})
	if err == nil || !strings.Contains(err.Error(), p.Name()) || !strings.Contains(err.Error(), "THE LOG") || !strings.Contains(err.Error(), "tc_"+p.Name()+"_c1") {
		t.Fatalf("error %v should name the plan, its kernels and carry the log", err)
	}
	if len(d.live) != 0 {
		t.Errorf("%d buffers left", len(d.live))
	}
}

type failingCompiler struct{}

func (failingCompiler) Version() (int, int) { return 11, 8 }
func (failingCompiler) Compile(in gpu.CompileInput) (gpu.Image, error) {
	return gpu.Image{}, fmt.Errorf("nvrtc: compiling %s: error\nTHE LOG", in.Name)
}

// TestExecFakeOriented: a graph handed over already oriented (an oriented
// CSR file) counts like the graph it came from, for presets of its
// orientation; a plan of another orientation or relabelling is refused
// before anything is allocated, naming the convert flags that fit.
func TestExecFakeOriented(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(9))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	byName := map[string]ir.Plan{}
	for _, p := range append(generatablePresets(), specPlans()...) {
		byName[p.Prefix] = p
	}
	pivot, err := ir.Load("../../examples/pivot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	byName["pivot"] = pivot
	for _, tc := range []struct {
		plan    string
		by      graph.Orientation
		relabel bool
		ok      bool
	}{
		{"polak", graph.ByDegree, true, true},
		{"pivot", graph.ByDegree, true, true},
		{"trust", graph.ByDegree, true, true},
		{"grouptc", graph.ByID, false, true},
		{"grouptc", graph.ByID, true, true}, // relabelling by id is the identity
		{"polak", graph.ByDegree, false, false},
		{"polak", graph.ByID, false, false},
	} {
		p, found := byName[tc.plan]
		if !found {
			t.Fatalf("no plan %s", tc.plan)
		}
		o := graph.Orient(g, tc.by, tc.relabel)
		o = &graph.Oriented{CSR: o.CSR, By: o.By, Relabelled: tc.relabel} // as read from a file: no Perm
		d := newFakeDevice(t, p, 1<<40)
		res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, nil, executor.RunOptions{Oriented: o})
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s on %s/%v: %v", tc.plan, tc.by, tc.relabel, err)
		case tc.ok && res.Triangles != want:
			t.Errorf("%s on %s/%v: %d triangles, want %d", tc.plan, tc.by, tc.relabel, res.Triangles, want)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), "--orient")):
			t.Errorf("%s on %s/%v: %v, want a refusal naming --orient", tc.plan, tc.by, tc.relabel, err)
		case !tc.ok && d.allocs != 0:
			t.Errorf("%s on %s/%v: %d allocations before refusing", tc.plan, tc.by, tc.relabel, d.allocs)
		}
	}
}

// TestExecFakeDeferredCheck: an oriented CSR file read with its list checks
// deferred is checked by the upload (WriteFrom with the file's AdjCheck)
// when the plan reads no lists on the host, before it otherwise; a corrupt
// file is refused with its *graph.InputError before any kernel runs. A
// packed file's lists are sent as stored and unpacked on the device; the
// host never unpacks them.
func TestExecFakeDeferredCheck(t *testing.T) {
	for _, packed := range []bool{false, true} {
		t.Run(map[bool]string{false: "words", true: "packed"}[packed], func(t *testing.T) { testExecFakeDeferredCheck(t, packed) })
	}
}

func testExecFakeDeferredCheck(t *testing.T, packed bool) {
	g, _, err := graph.Generate(graph.DefaultRMAT(10))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	o := graph.Orient(g, graph.ByDegree, true)
	path := filepath.Join(t.TempDir(), "o.tcsr")
	meta := graph.CacheMeta{Orientation: graph.ByDegree, Relabelled: true, Packed: packed}
	if err := graph.WriteCSR(path, &graph.Graph{CSR: graph.CSR{Offsets: o.Offsets, Adj: o.Adj}}, meta); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	pivot, err := ir.Load("../../examples/pivot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var polak ir.Plan
	for _, p := range generatablePresets() {
		if p.Prefix == "polak" {
			polak = p
		}
	}
	var hostAdj []uint32 // the last run's host lists
	run := func(p ir.Plan) (*fakeDevice, *executor.Result, *graph.AdjCheck, error) {
		fg, rep, err := graph.Open(path, graph.ReadOptions{Map: true, DeferAdjCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		fo := graph.FileOriented(fg, rep)
		d := newFakeDevice(t, p, 1<<40)
		res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, nil, executor.RunOptions{Oriented: fo})
		hostAdj = fo.Adj
		return d, res, fo.AdjCheck(), err
	}
	for _, p := range []ir.Plan{pivot, polak} {
		d, res, ck, err := run(p)
		if err != nil || res.Triangles != want {
			t.Fatalf("%s: %v, %v triangles, want %d", p.Prefix, err, res, want)
		}
		checks, unpacks := 0, 0
		for _, k := range d.launch {
			switch k {
			case executor.CheckListsKernel:
				checks++
			case executor.UnpackKernel:
				unpacks++
			}
		}
		if packed && (unpacks != 1 || slices.Max(hostAdj) != 0) {
			t.Fatalf("%s: %d unpacks on the device, host lists unpacked %v; want 1 and false", p.Prefix, unpacks, slices.Max(hostAdj) != 0)
		}
		if ck == nil || ck.Finish() != nil || d.fills != 1 || checks != d.fills {
			t.Fatalf("%s: pending %v, %d uploads through the check and %d device checks, want 1 each", p.Prefix, ck != nil, d.fills, checks)
		}
		if !slices.Equal(hostAdj, o.Adj) {
			t.Fatalf("%s: the host's lists after Finish differ", p.Prefix)
		}
		if d.allocBytes > res.DeviceBytes {
			t.Errorf("%s: allocated %d bytes, predicted %d before allocating", p.Prefix, d.allocBytes, res.DeviceBytes)
		}
	}
	// An error after the upload started (the check module does not
	// compile): every buffer is freed, the packed section's too.
	{
		fg, rep, err := graph.Open(path, graph.ReadOptions{Map: true, DeferAdjCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		d := newFakeDevice(t, pivot, 1<<40)
		_, err = executor.Run(context.Background(), d, &fakeCompiler{failCheck: true}, pivot, nil, executor.RunOptions{Oriented: graph.FileOriented(fg, rep)})
		if err == nil || !strings.Contains(err.Error(), "refused (test)") || len(d.live) != 0 {
			t.Fatalf("check module refused: %v, %d buffers left", err, len(d.live))
		}
	}
	// Lists that pass on the host but not on the device: refused.
	{
		fg, rep, err := graph.Open(path, graph.ReadOptions{Map: true, DeferAdjCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		d := newFakeDevice(t, pivot, 1<<40)
		d.checkLies = true
		_, err = executor.Run(context.Background(), d, &fakeCompiler{}, pivot, nil, executor.RunOptions{Oriented: graph.FileOriented(fg, rep)})
		if err == nil || !strings.Contains(err.Error(), "the upload changed them") || !onlyChecks(d.launch) {
			t.Fatalf("device check disagreeing with the host: %v after launches %v", err, d.launch)
		}
	}
	// The same graph prepared again (its file closed by the first check).
	fg, rep, err := graph.Open(path, graph.ReadOptions{Map: true, DeferAdjCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	fo := graph.FileOriented(fg, rep)
	for range 2 {
		d := newFakeDevice(t, pivot, 1<<40)
		if res, err := executor.Run(context.Background(), d, &fakeCompiler{}, pivot, nil, executor.RunOptions{Oriented: fo}); err != nil || res.Triangles != want {
			t.Fatalf("pivot, same graph again: %v", err)
		}
	}
	// The last entry of the section, the largest id of the last list: past n.
	bad := slices.Clone(good)
	if packed {
		at := len(good) - 3 - (8-3*len(o.Adj)%8)%8
		bad[at], bad[at+1], bad[at+2] = byte(o.N()), byte(o.N()>>8), byte(o.N()>>16)
	} else {
		at := len(good) - 4 - (4*len(o.Adj))%8
		binary.LittleEndian.PutUint32(bad[at:], uint32(o.N()))
	}
	os.WriteFile(path, bad, 0o644)
	d, _, _, err := run(pivot)
	var ie *graph.InputError
	if !errors.Is(err, graph.ErrCorrupt) || !errors.As(err, &ie) || err != error(ie) || ie.File != path || !onlyChecks(d.launch) {
		t.Fatalf("corrupt file: %v after launches %v, want the file's corrupt error before any count", err, d.launch)
	}
	// Lists out of order under a valid checksum: the device's check finds
	// them, and the host names the entry as reading the file would.
	swapped := slices.Clone(o.Adj)
	for v := range o.N() {
		if lo, hi := o.Offsets[v], o.Offsets[v+1]; hi-lo >= 2 {
			swapped[lo], swapped[lo+1] = swapped[lo+1], swapped[lo]
			break
		}
	}
	if err := graph.WriteCSR(path, &graph.Graph{CSR: graph.CSR{Offsets: o.Offsets, Adj: swapped}}, meta); err != nil {
		t.Fatal(err)
	}
	_, _, want2 := graph.ReadCSR(path)
	d, _, _, err = run(pivot)
	if want2 == nil || err == nil || err.Error() != want2.Error() || !onlyChecks(d.launch) || len(d.launch) != map[bool]int{false: 1, true: 2}[packed] {
		t.Fatalf("lists out of order: %v after launches %v, want %v after the check alone", err, d.launch, want2)
	}
}

// onlyChecks reports whether every launch was the list check (or the
// unpacking or the degrees before it).
func onlyChecks(launches []string) bool {
	for _, k := range launches {
		if !isCheckKernel(k) {
			return false
		}
	}
	return true
}

// TestExecHighIndex runs every family with RunOptions.IndexBase 2^32: the
// executor raises the offsets and the work lists' edge ids and shifts the
// edge-indexed buffers consistently (the fake device undoes it, see
// unshift), and the counts stay the oracle's. On a GPU the same option runs
// the kernels at indices above 2^32 (TestExecGPUHighIndex).
func TestExecHighIndex(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(10))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	for _, p := range highIndexPlans(t) {
		d := newFakeDevice(t, p, 1<<40)
		res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, g, executor.RunOptions{Repeat: 1, IndexBase: 1 << 32})
		if err != nil {
			t.Errorf("%s: %v", p.Prefix, err)
			continue
		}
		if res.Triangles != want || d.shifted == 0 {
			t.Errorf("%s (%s): %d triangles, want %d; %d launches shifted: %+v", p.Prefix, res.Plan, res.Triangles, want, d.shifted, res.PerClass)
		}
	}
}

// TestExecFakeVariantOrientation: a guard variant with an orientation of
// its own counts the graph oriented its way, also when the caller hands
// over the graph oriented as the plan says (the tuner does); a graph read
// oriented cannot give the ids' locality the guard tests.
func TestExecFakeVariantOrientation(t *testing.T) {
	var p ir.Plan
	for _, q := range specPlans() {
		if q.Prefix == "spec_guard_orient" {
			p = q
		}
	}
	for _, tc := range []struct {
		gen     graph.Generator
		variant int
		by      ir.Orientation
	}{
		{graph.ErdosRenyi{N: 300, M: 6000, Seed: 3}, 0, ir.OrientTCBW}, // 40 ids a list in 10 words
		{graph.DefaultRMAT(10), 1, ir.OrientDegree},
	} {
		g, _, err := graph.Generate(tc.gen)
		if err != nil {
			t.Fatal(err)
		}
		want := graph.Oracle(g)
		for _, given := range []*graph.Oriented{nil, graph.Orient(g, graph.ByDegree, true)} {
			res, err := executor.Run(context.Background(), newFakeDevice(t, p, 1<<40), &fakeCompiler{}, p, g, executor.RunOptions{Oriented: given})
			if err != nil {
				t.Fatalf("%+v (oriented given %v): %v", tc.gen, given != nil, err)
			}
			if res.Triangles != want || res.Variant != tc.variant || res.Orientation != tc.by {
				t.Errorf("%+v (oriented given %v): %d triangles, variant %d by %s; want %d, %d by %s",
					tc.gen, given != nil, res.Triangles, res.Variant, res.Orientation, want, tc.variant, tc.by)
			}
		}
		_, err = executor.Run(context.Background(), newFakeDevice(t, p, 1<<40), &fakeCompiler{}, p, nil, executor.RunOptions{Oriented: graph.Orient(g, graph.ByDegree, true)})
		if err == nil || !strings.Contains(err.Error(), ir.FeatureWords) {
			t.Errorf("%+v read oriented: %v, want an error naming %s", tc.gen, err, ir.FeatureWords)
		}
	}
}

// TestExecFakeDefaultReadOriented: the default plan counts a file oriented
// by degree whose shape would take the bit slices' variant from the graph
// as read (long even lists): the locality is unknown there, so the next
// variant runs. A variant with an orientation of its own is refused on
// such a file, naming the variant.
func TestExecFakeDefaultReadOriented(t *testing.T) {
	g, _, err := graph.Generate(graph.WattsStrogatz{N: 150000, K: 32, P: 0.05, Seed: 1}) // 2.4 M edges, local ids
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	def := defaultPlan(t)
	res, err := executor.Run(context.Background(), newFakeDevice(t, def, 1<<40), &fakeCompiler{}, def, g, executor.RunOptions{})
	if err != nil || res.Triangles != want || res.Orientation != ir.OrientTCBW {
		t.Fatalf("as read: %v; want %d triangles by tcbw", err, want)
	}
	o := graph.Orient(g, graph.ByDegree, true)
	o = &graph.Oriented{CSR: o.CSR, By: o.By, Relabelled: true} // as read from a file
	res, err = executor.Run(context.Background(), newFakeDevice(t, def, 1<<40), &fakeCompiler{}, def, nil, executor.RunOptions{Oriented: o})
	if err != nil || res.Triangles != want || res.Orientation != ir.OrientDegree {
		t.Errorf("read oriented: %v; want %d triangles by degree", err, want)
	}
	p := def.Clone()
	// The small graphs' last variant (the edge merge), then the bit slices
	// for every graph of 2 M edges and more.
	last := slices.IndexFunc(p.Guard.Variants, func(v ir.Variant) bool { return v.Lo != 0 }) - 1
	bits := slices.IndexFunc(p.Guard.Variants, func(v ir.Variant) bool { return v.Orientation == ir.OrientTCBW })
	if last < 0 || bits <= last {
		t.Fatal("the default has no variant oriented by tcbw after its small graphs' variants")
	}
	p.Guard.Variants = []ir.Variant{{Lo: 0, Hi: 2000000, Classes: p.Guard.Variants[last].Classes}, p.Guard.Variants[bits]}
	p.Guard.Variants[1].When, p.Guard.Variants[1].Hi = nil, 0
	_, err = executor.Run(context.Background(), newFakeDevice(t, p, 1<<40), &fakeCompiler{}, p, nil, executor.RunOptions{Oriented: o})
	if err == nil || !strings.Contains(err.Error(), "guard variant 1 orients by tcbw") {
		t.Errorf("a variant oriented by tcbw on a file oriented by degree: %v", err)
	}
}
