package cuda

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	goruntime "runtime"
	"sync"
	"sync/atomic"
)

// CUdevice_attribute values (cuda.h).
const (
	attrClockRate              cuDeviceAttribute = 13 // kHz; deprecated in CUDA 13, may fail
	attrMultiprocessorCount    cuDeviceAttribute = 16
	attrMemoryClockRate        cuDeviceAttribute = 36 // kHz; deprecated in CUDA 13, may fail
	attrGlobalMemoryBusWidth   cuDeviceAttribute = 37 // bits
	attrL2CacheSize            cuDeviceAttribute = 38
	attrComputeCapabilityMajor cuDeviceAttribute = 75
	attrComputeCapabilityMinor cuDeviceAttribute = 76
	attrMaxSharedPerMultiproc  cuDeviceAttribute = 81
	attrMaxSharedPerBlockOptin cuDeviceAttribute = 97
)

// Device is one GPU with its primary context. It implements gpu.Device
// and is safe for concurrent use.
type Device struct {
	drv     *driverLib
	dev     cuDevice
	ordinal int
	ctx     cuContext
	facts   gpu.DeviceFacts
	closed  atomic.Bool

	// Pinned staging for large uploads (staging.go), made on first use.
	stageOnce sync.Once
	stage     *staging
	stageErr  error
	prestage  sync.WaitGroup // Prestage's allocation, waited for by Close

	// capture is the stream a Capture records on (0: none), where the
	// default-stream work of the thread captureTID goes meanwhile;
	// graphStream is that stream, made on the first Capture, and
	// captureMu lets one Capture run at a time (graph.go).
	captureMu   sync.Mutex
	capture     atomic.Uintptr
	captureTID  atomic.Int64
	graphStream cuStream
}

var _ gpu.Device = (*Device)(nil)

// initDriver loads libcuda and initialises it. Any cuInit failure means the
// driver is there but no GPU can be used (no device, no kernel module,
// driver/library mismatch), which the command reports as "no usable GPU".
func initDriver() (*driverLib, error) {
	drv, err := loadDriver()
	if err != nil {
		return nil, err
	}
	if err := drv.cuInit(0); err != nil {
		if errors.Is(err, ErrNoDevice) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrNoDevice, err)
	}
	return drv, nil
}

// Init loads and initializes the driver (cuInit), the first half of
// opening a device (about 100 ms on an H100): a caller may start it before
// it knows which device it wants, and Start then finds it done.
func Init() error {
	_, err := initDriver()
	return err
}

func deviceCount(drv *driverLib) (int, error) {
	var n int32
	if err := drv.cuDeviceGetCount(&n); err != nil {
		return 0, err
	}
	return int(n), nil
}

// Devices returns the facts of every GPU the driver sees, without creating
// contexts. It fails with ErrNoDriver or ErrNoDevice where there is none.
func Devices() ([]gpu.DeviceFacts, error) {
	drv, err := initDriver()
	if err != nil {
		return nil, err
	}
	n, err := deviceCount(drv)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: the driver reports 0 devices", ErrNoDevice)
	}
	out := make([]gpu.DeviceFacts, 0, n)
	for i := range n {
		var dev cuDevice
		if err := drv.cuDeviceGet(&dev, int32(i)); err != nil {
			return nil, err
		}
		f, err := deviceFacts(drv, dev)
		if err != nil {
			return nil, fmt.Errorf("cuda: device %d: %w", i, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// Open retains device ordinal's primary context. Close releases it.
func Open(ordinal int, opt Options) (*Device, error) {
	o, err := Start(ordinal, opt)
	if err != nil {
		return nil, err
	}
	return o.Context()
}

// Opening is a device whose facts are read and whose context is not made
// yet: its user can plan work on the facts (generate and compile code)
// while the driver creates the context, about half of the 200-250 ms a
// device takes to open (docs/performance.md, "End to end").
type Opening struct {
	d     *Device // nil once Context has made it
	facts gpu.DeviceFacts
}

// Facts are the device's facts, as its Device will give them.
func (o *Opening) Facts() gpu.DeviceFacts { return o.facts }

// Context retains the device's primary context: the open Device, which
// Close releases. It is made once.
func (o *Opening) Context() (*Device, error) {
	d := o.d
	if d == nil {
		return nil, errors.New("cuda: the device's context was made already")
	}
	o.d = nil
	if err := d.drv.cuDevicePrimaryCtxRetain(&d.ctx, d.dev); err != nil {
		return nil, fmt.Errorf("cuda: device %d (%s): %w", d.ordinal, d.facts.Name, err)
	}
	return d, nil
}

// Start initializes the driver and reads device ordinal's facts, without a
// context (Opening.Context makes it).
func Start(ordinal int, opt Options) (*Opening, error) {
	_ = opt // the driver is always libcuda.so.1; Options is for symmetry with NewCompiler
	drv, err := initDriver()
	if err != nil {
		return nil, err
	}
	n, err := deviceCount(drv)
	if err != nil {
		return nil, err
	}
	if ordinal < 0 || ordinal >= n {
		return nil, fmt.Errorf("%w: device %d requested, the driver reports %d", ErrNoDevice, ordinal, n)
	}
	d := &Device{drv: drv, ordinal: ordinal}
	if err := drv.cuDeviceGet(&d.dev, int32(ordinal)); err != nil {
		return nil, err
	}
	if d.facts, err = deviceFacts(drv, d.dev); err != nil {
		return nil, fmt.Errorf("cuda: device %d: %w", ordinal, err)
	}
	return &Opening{d, d.facts}, nil
}

func deviceFacts(drv *driverLib, dev cuDevice) (gpu.DeviceFacts, error) {
	var f gpu.DeviceFacts
	var name [256]byte
	if err := drv.cuDeviceGetName(&name[0], int32(len(name)), dev); err != nil {
		return f, err
	}
	if i := bytes.IndexByte(name[:], 0); i >= 0 {
		f.Name = string(name[:i])
	}
	attr := func(a cuDeviceAttribute) (int, error) {
		var v int32
		err := drv.cuDeviceGetAttribute(&v, a, dev)
		return int(v), err
	}
	for _, q := range []struct {
		a   cuDeviceAttribute
		dst *int
	}{
		{attrComputeCapabilityMajor, &f.Major},
		{attrComputeCapabilityMinor, &f.Minor},
		{attrMultiprocessorCount, &f.SMs},
		{attrMaxSharedPerMultiproc, &f.SharedPerSM},
		{attrMaxSharedPerBlockOptin, &f.SharedOptin},
		{attrL2CacheSize, &f.L2Bytes},
	} {
		v, err := attr(q.a)
		if err != nil {
			return f, err
		}
		*q.dst = v
	}
	// Clocks are optional here (NVML gives the live ones).
	if v, err := attr(attrClockRate); err == nil {
		f.ClockMHz = v / 1000
	}
	if v, err := attr(attrMemoryClockRate); err == nil {
		f.MemClockMHz = v / 1000
	}
	if v, err := attr(attrGlobalMemoryBusWidth); err == nil {
		f.MemBusBits = v
	}
	var total uint64
	if err := drv.cuDeviceTotalMem(&total, dev); err != nil {
		return f, err
	}
	f.MemoryBytes = total
	var ver int32
	if err := drv.cuDriverGetVersion(&ver); err != nil {
		return f, err
	}
	f.Driver = int(ver)
	var u [16]byte
	if drv.cuDeviceGetUuid(&u, dev) == nil {
		f.UUID = formatUUID(u)
	}
	return f, nil
}

// formatUUID writes the UUID the way NVML and nvidia-smi do, so it can be
// used to find the same GPU through NVML (whose ordering differs from CUDA's).
func formatUUID(u [16]byte) string {
	return fmt.Sprintf("GPU-%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// Facts returns the GPU's facts (clock fields are the driver's nominal ones).
func (d *Device) Facts() gpu.DeviceFacts { return d.facts }

// Ordinal is the CUDA device ordinal given to Open.
func (d *Device) Ordinal() int { return d.ordinal }

// enter makes the primary context current on this OS thread and keeps the
// goroutine there until leave: the context is per thread and goroutines move.
func (d *Device) enter() error {
	if d.closed.Load() {
		return fmt.Errorf("cuda: device %d is closed", d.ordinal)
	}
	goruntime.LockOSThread()
	if err := d.drv.cuCtxSetCurrent(d.ctx); err != nil {
		goruntime.UnlockOSThread()
		return err
	}
	return nil
}

func (d *Device) leave() { goruntime.UnlockOSThread() }

// Synchronize waits for all work on the device. Errors of earlier
// asynchronous launches (illegal address, ...) surface here.
func (d *Device) Synchronize() error {
	if err := d.enterNow("synchronizing"); err != nil {
		return err
	}
	defer d.leave()
	return d.drv.cuCtxSynchronize()
}

// MemInfo returns the free and total device memory.
func (d *Device) MemInfo() (free, total uint64, err error) {
	if err := d.enter(); err != nil {
		return 0, 0, err
	}
	defer d.leave()
	err = d.drv.cuMemGetInfo(&free, &total)
	return free, total, err
}

// Close releases the primary context; memory and modules still held are
// freed with it when no one else retains it.
func (d *Device) Close() error {
	d.prestage.Wait()
	if st := d.stage; st != nil {
		st.mu.Lock() // an upload still running (a caller's background copy) ends first
		if err := d.enter(); err == nil {
			d.freeStaging(st)
			d.stage = nil
			d.leave()
		}
		st.mu.Unlock()
	}
	d.captureMu.Lock()
	if d.graphStream != 0 && d.enter() == nil {
		_ = d.drv.cuStreamDestroy(d.graphStream) // the context's release takes it anyway
		d.graphStream = 0
		d.leave()
	}
	d.captureMu.Unlock()
	if d.closed.Swap(true) {
		return nil
	}
	return d.drv.cuDevicePrimaryCtxRelease(d.dev)
}
