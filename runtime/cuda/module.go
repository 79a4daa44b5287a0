package cuda

import (
	"bytes"
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"math"
	goruntime "runtime"
	"sync/atomic"
	"unsafe"
)

// CUjit_option values (cuda.h).
const (
	jitInfoLogBuffer      cuJitOption = 3
	jitInfoLogBufferSize  cuJitOption = 4
	jitErrorLogBuffer     cuJitOption = 5
	jitErrorLogBufferSize cuJitOption = 6
)

// CUfunction_attribute values (cuda.h).
const (
	funcMaxThreadsPerBlock cuFunctionAttribute = 0
	funcSharedSizeBytes    cuFunctionAttribute = 1
	funcConstSizeBytes     cuFunctionAttribute = 2
	funcLocalSizeBytes     cuFunctionAttribute = 3
	funcNumRegs            cuFunctionAttribute = 4
	funcMaxDynamicShared   cuFunctionAttribute = 8
)

const jitLogBytes = 32 << 10

// Module is a loaded image. It implements gpu.Module.
type Module struct {
	d        *Device
	mod      cuModule
	kind     string
	jitLog   string
	unloaded atomic.Bool
}

var _ gpu.Module = (*Module)(nil)

// Load loads a PTX or cubin image. PTX is JIT-compiled by the driver for
// this GPU; a failure carries the driver's JIT error log.
func (d *Device) Load(img gpu.Image) (gpu.Module, error) {
	if img.Kind != "ptx" && img.Kind != "cubin" {
		return nil, fmt.Errorf("cuda: unknown image kind %q (want ptx or cubin)", img.Kind)
	}
	if len(img.Data) == 0 {
		return nil, fmt.Errorf("cuda: empty %s image", img.Kind)
	}
	data := img.Data
	if img.Kind == "ptx" && data[len(data)-1] != 0 {
		// The driver reads PTX as a NUL-terminated string.
		data = append(append(make([]byte, 0, len(data)+1), data...), 0)
	}
	infoLog := make([]byte, jitLogBytes)
	errLog := make([]byte, jitLogBytes)
	opts := []cuJitOption{jitInfoLogBuffer, jitInfoLogBufferSize, jitErrorLogBuffer, jitErrorLogBufferSize}
	// Option values are void*: buffers by address, sizes by value. The
	// driver writes the used log sizes back into the size slots.
	vals := []uintptr{
		uintptr(unsafe.Pointer(&infoLog[0])), jitLogBytes,
		uintptr(unsafe.Pointer(&errLog[0])), jitLogBytes,
	}
	// vals holds the log addresses as integers, so the GC must be told
	// they stay put and alive while C writes to them.
	var pin goruntime.Pinner
	pin.Pin(&infoLog[0])
	pin.Pin(&errLog[0])
	pin.Pin(&data[0])
	pin.Pin(&opts[0])
	pin.Pin(&vals[0])
	defer pin.Unpin()

	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	m := &Module{d: d, kind: img.Kind}
	err := d.drv.cuModuleLoadDataEx(&m.mod, unsafe.Pointer(&data[0]), uint32(len(opts)), &opts[0], unsafe.Pointer(&vals[0]))
	m.jitLog = cLog(infoLog, vals[1])
	if err != nil {
		return nil, &LoadModuleError{Kind: img.Kind, Log: cLog(errLog, vals[3]), Err: err}
	}
	return m, nil
}

// cLog returns the NUL-terminated text the driver wrote into buf.
func cLog(buf []byte, n uintptr) string {
	if n < uintptr(len(buf)) {
		buf = buf[:n]
	}
	if i := bytes.IndexByte(buf, 0); i >= 0 {
		buf = buf[:i]
	}
	return string(buf)
}

// JITLog is the driver's info log from loading (empty for most cubins).
func (m *Module) JITLog() string { return m.jitLog }

// Function looks a kernel up by its (extern "C") symbol.
func (m *Module) Function(name string) (gpu.Function, error) {
	if m.unloaded.Load() {
		return nil, fmt.Errorf("cuda: kernel %s: module unloaded", name)
	}
	if err := m.d.enter(); err != nil {
		return nil, err
	}
	defer m.d.leave()
	f := &Function{m: m, name: name}
	if err := m.d.drv.cuModuleGetFunction(&f.fn, m.mod, cString(name)); err != nil {
		return nil, fmt.Errorf("cuda: kernel %s not in the %s module: %w", name, m.kind, err)
	}
	return f, nil
}

// Unload unloaded the module; a second Unload does nothing.
func (m *Module) Unload() error {
	if m.unloaded.Swap(true) {
		return nil
	}
	if err := m.d.enter(); err != nil {
		return err
	}
	defer m.d.leave()
	return m.d.drv.cuModuleUnload(m.mod)
}

// Function is a kernel. It implements gpu.Function.
type Function struct {
	m    *Module
	fn   cuFunction
	name string
}

var _ gpu.Function = (*Function)(nil)

// Name is the kernel's symbol.
func (f *Function) Name() string { return f.name }

// Launch enqueues the kernel on the default stream. Each argument is a
// uint32, int32, uint64, int64, float32, float64 or gpu.Buffer (its
// device address). A grid with X == 0 launches nothing: an empty class.
// Y and Z of 0 mean 1.
func (f *Function) Launch(grid, block gpu.Dim3, sharedBytes uint32, args ...any) error {
	return f.launchOn(0, grid, block, sharedBytes, args...)
}

// launchOn enqueues the kernel on stream s (0: the default stream).
func (f *Function) launchOn(s cuStream, grid, block gpu.Dim3, sharedBytes uint32, args ...any) error {
	grid, block = fix(grid), fix(block)
	lerr := func(err error) error {
		return &LaunchError{Kernel: f.name, Grid: [3]uint32{grid.X, grid.Y, grid.Z},
			Block: [3]uint32{block.X, block.Y, block.Z}, Shared: sharedBytes, Err: err}
	}
	if grid.X == 0 {
		return nil
	}
	if block.X == 0 {
		return lerr(fmt.Errorf("empty block"))
	}
	// Every value gets an 8-byte slot; the driver reads as many bytes as the
	// kernel's parameter has, and little-endian puts 32-bit values first.
	slots := make([]uint64, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case uint32:
			slots[i] = uint64(v)
		case int32:
			slots[i] = uint64(uint32(v))
		case uint64:
			slots[i] = v
		case int64:
			slots[i] = uint64(v)
		case float32:
			slots[i] = uint64(math.Float32bits(v))
		case float64:
			slots[i] = math.Float64bits(v)
		case gpu.Buffer:
			slots[i] = v.Ptr()
		default:
			return lerr(fmt.Errorf("argument %d has type %T (want uint32, int32, uint64, int64, float32, float64 or a Buffer)", i, a))
		}
	}
	var params unsafe.Pointer
	var pin goruntime.Pinner
	defer pin.Unpin()
	if len(args) > 0 {
		// kernelParams is an array of pointers into Go memory handed to C:
		// both the array and what it points to must be pinned.
		ptrs := make([]unsafe.Pointer, len(args))
		for i := range slots {
			ptrs[i] = unsafe.Pointer(&slots[i])
		}
		pin.Pin(&slots[0])
		pin.Pin(&ptrs[0])
		params = unsafe.Pointer(&ptrs[0])
	}
	d := f.m.d
	if err := d.enter(); err != nil {
		return lerr(err)
	}
	defer d.leave()
	if c := d.defaultStream(); s == 0 {
		s = c
	} else if c != 0 {
		return lerr(fmt.Errorf("a launch on a stream of its own while capturing a graph (it would run now, not when the graph runs)"))
	}
	if err := d.drv.cuLaunchKernel(f.fn, grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, sharedBytes, s, params, nil); err != nil {
		return lerr(err)
	}
	return nil
}

func fix(d gpu.Dim3) gpu.Dim3 {
	if d.Y == 0 {
		d.Y = 1
	}
	if d.Z == 0 {
		d.Z = 1
	}
	return d
}

// MaxActiveBlocksPerSM returns how many blocks of block threads, each with
// dynShared bytes of dynamic shared memory, an SM holds at once: the limit
// of the kernel's registers, shared memory, threads and the SM's block
// slots, as the driver computes it.
func (f *Function) MaxActiveBlocksPerSM(block, dynShared int) (int, error) {
	d := f.m.d
	if err := d.enter(); err != nil {
		return 0, err
	}
	defer d.leave()
	var n int32
	if err := d.drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f.fn, int32(block), uint64(dynShared)); err != nil {
		return 0, fmt.Errorf("cuda: kernel %s: occupancy of blocks of %d threads: %w", f.name, block, err)
	}
	return int(n), nil
}

// SetMaxDynamicShared lets the kernel use up to bytes of dynamic shared
// memory (required above 48 KiB).
func (f *Function) SetMaxDynamicShared(bytes int) error {
	d := f.m.d
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	if err := d.drv.cuFuncSetAttribute(f.fn, funcMaxDynamicShared, int32(bytes)); err != nil {
		return fmt.Errorf("cuda: kernel %s: setting max dynamic shared memory to %d bytes (device allows %d): %w",
			f.name, bytes, d.facts.SharedOptin, err)
	}
	return nil
}

// FuncAttrs are a compiled kernel's resource needs.
type FuncAttrs struct {
	Registers          int `json:"registers"`
	StaticSharedBytes  int `json:"static_shared_bytes"`
	LocalBytes         int `json:"local_bytes"` // spills and local arrays, per thread
	ConstBytes         int `json:"const_bytes"`
	MaxThreadsPerBlock int `json:"max_threads_per_block"`
}

// Attrs reads the kernel's register count, static shared memory and more.
func (f *Function) Attrs() (FuncAttrs, error) {
	var a FuncAttrs
	d := f.m.d
	if err := d.enter(); err != nil {
		return a, err
	}
	defer d.leave()
	for _, q := range []struct {
		attr cuFunctionAttribute
		dst  *int
	}{
		{funcNumRegs, &a.Registers},
		{funcSharedSizeBytes, &a.StaticSharedBytes},
		{funcLocalSizeBytes, &a.LocalBytes},
		{funcConstSizeBytes, &a.ConstBytes},
		{funcMaxThreadsPerBlock, &a.MaxThreadsPerBlock},
	} {
		var v int32
		if err := d.drv.cuFuncGetAttribute(&v, q.attr, f.fn); err != nil {
			return a, fmt.Errorf("cuda: kernel %s: %w", f.name, err)
		}
		*q.dst = int(v)
	}
	return a, nil
}

// Timer times device work on the default stream with a pair of events.
// It implements gpu.Timer.
type Timer struct {
	d           *Device
	start, stop cuEvent
	state       int      // 0 new, 1 started, 2 stopped
	stream      cuStream // where its events are recorded (0: the default stream)
}

var _ gpu.Timer = (*Timer)(nil)

// NewTimer creates the two events.
func (d *Device) NewTimer() (gpu.Timer, error) { return d.newTimer(0) }

// newTimer is a timer whose events are recorded on stream s.
func (d *Device) newTimer(s cuStream) (*Timer, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	t := &Timer{d: d, stream: s}
	if err := d.drv.cuEventCreate(&t.start, 0); err != nil {
		return nil, err
	}
	if err := d.drv.cuEventCreate(&t.stop, 0); err != nil {
		_ = d.drv.cuEventDestroy(t.start)
		return nil, err
	}
	return t, nil
}

func (t *Timer) record(ev cuEvent) error {
	if err := t.d.enter(); err != nil {
		return err
	}
	defer t.d.leave()
	if s := t.d.defaultStream(); s != 0 {
		if t.stream != 0 {
			return fmt.Errorf("cuda: a stream's timer while capturing a graph (it would run now, not when the graph runs)")
		}
		return t.d.drv.cuEventRecordWithFlags(ev, s, cuEventRecordExternal) // a node of the graph
	}
	return t.d.drv.cuEventRecord(ev, t.stream)
}

// Start records the start event.
func (t *Timer) Start() error {
	if err := t.record(t.start); err != nil {
		return err
	}
	t.state = 1
	return nil
}

// Stop records the stop event.
func (t *Timer) Stop() error {
	if t.state != 1 {
		return fmt.Errorf("cuda: timer stopped before it was started")
	}
	if err := t.record(t.stop); err != nil {
		return err
	}
	t.state = 2
	return nil
}

// Elapsed waits for the stop event and returns the milliseconds between
// the two events (resolution about half a microsecond).
func (t *Timer) Elapsed() (float64, error) {
	if t.state != 2 {
		return 0, fmt.Errorf("cuda: timer read before Start and Stop")
	}
	if err := t.d.enterNow("reading a timer"); err != nil {
		return 0, err
	}
	defer t.d.leave()
	if err := t.d.drv.cuEventSynchronize(t.stop); err != nil {
		return 0, err
	}
	var ms float32
	if err := t.d.drv.cuEventElapsedTime(&ms, t.start, t.stop); err != nil {
		return 0, err
	}
	return float64(ms), nil
}

// Close destroys the events.
func (t *Timer) Close() error {
	if t.start == 0 {
		return nil
	}
	if err := t.d.enter(); err != nil {
		return err
	}
	defer t.d.leave()
	err1 := t.d.drv.cuEventDestroy(t.start)
	err2 := t.d.drv.cuEventDestroy(t.stop)
	t.start, t.stop = 0, 0
	if err1 != nil {
		return err1
	}
	return err2
}
