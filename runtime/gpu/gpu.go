// Package gpu defines the small interfaces the executor needs of a GPU
// (Compiler, Device, Module, Function, Buffer, Timer). Package runtime/cuda
// implements them with the CUDA driver API and NVRTC, loaded at run time, and
// the executor's tests with a fake device, so everything above the last mile
// is testable on a machine without a GPU.
package gpu

import "unsafe"

// CompileInput is one CUDA translation unit to compile.
type CompileInput struct {
	Name   string // file name shown in compiler messages, e.g. "polak_1a2b3c4d.cu"
	Source string // CUDA C++ source; it includes nothing but Headers
	// Headers are the files Source may #include, by include name (e.g.
	// "tcgen.cuh"): the compiler reads no header from disk.
	Headers map[string]string
	Arch    string   // virtual or real architecture, e.g. "compute_90" or "sm_90"
	Options []string // extra compiler options (e.g. "-std=c++17")
}

// Image is a compiled module image the driver can load.
type Image struct {
	Kind string // "ptx" or "cubin"
	Data []byte
	Log  string // the compiler's log (warnings), kept for error messages
}

// Compiler compiles CUDA source at run time (NVRTC).
type Compiler interface {
	Compile(in CompileInput) (Image, error)
	// Version is the compiler's version, part of every cache key.
	Version() (major, minor int)
}

// DeviceFacts are what tuning keys and reports need to know about a GPU.
type DeviceFacts struct {
	Name         string `json:"name"`
	Major        int    `json:"cc_major"`
	Minor        int    `json:"cc_minor"`
	SMs          int    `json:"sms"`
	MemoryBytes  uint64 `json:"memory_bytes"`
	SharedPerSM  int    `json:"shared_per_sm"`
	SharedOptin  int    `json:"shared_per_block_optin"` // largest dynamic shared memory a block may opt into
	L2Bytes      int    `json:"l2_bytes"`
	Driver       int    `json:"driver_version"` // cuDriverGetVersion, e.g. 13000
	UUID         string `json:"uuid,omitempty"`
	ClockMHz     int    `json:"clock_mhz,omitempty"`
	MemClockMHz  int    `json:"mem_clock_mhz,omitempty"`
	MemBusBits   int    `json:"mem_bus_bits,omitempty"` // the DRAM interface's width
	TemperatureC int    `json:"temperature_c,omitempty"`
}

// BandwidthGBs is the DRAM bandwidth the memory clock and bus width give,
// in GB/s: two transfers a clock (3352 for an H100 SXM's 2619 MHz and 5120
// bits); 0 when either is unknown.
func (f DeviceFacts) BandwidthGBs() float64 {
	return float64(f.MemClockMHz) * float64(f.MemBusBits) / 4000
}

// Device is one GPU with its (primary) context made current.
type Device interface {
	Facts() DeviceFacts
	Alloc(bytes uint64) (Buffer, error)
	Load(img Image) (Module, error)
	NewTimer() (Timer, error)
	Synchronize() error
	Close() error
}

// Buffer is device memory.
type Buffer interface {
	Ptr() uint64 // device address, passed to kernels
	Size() uint64
	// Write copies len(src) bytes from host memory to the buffer at offset.
	Write(offset uint64, src unsafe.Pointer, n uint64) error
	// Read copies n bytes from the buffer at offset to host memory.
	Read(offset uint64, dst unsafe.Pointer, n uint64) error
	Zero() error
	Free() error
}

// FillWriter is a Buffer that uploads bytes a fill function writes in
// place (cuda.Buffer.WriteFrom): fill(dst, pos) puts bytes [pos,
// pos+len(dst)) of the upload into dst, from several goroutines at once for
// disjoint ranges of whole words; its first error stops the upload.
type FillWriter interface {
	WriteFrom(off, n uint64, fill func(dst []byte, pos uint64) error) error
}

// Module is a loaded image.
type Module interface {
	Function(name string) (Function, error)
	Unload() error
}

// Dim3 is a grid or block shape.
type Dim3 struct{ X, Y, Z uint32 }

// Function is a kernel of a loaded module.
type Function interface {
	Name() string
	// Launch enqueues the kernel. Each arg is a uint32, int32, uint64, int64,
	// float32, float64 or Buffer (passed as its device address).
	Launch(grid, block Dim3, sharedBytes uint32, args ...any) error
	// SetMaxDynamicShared raises the kernel's dynamic shared-memory limit
	// (needed above 48 KiB).
	SetMaxDynamicShared(bytes int) error
}

// Timer times a region of device work with CUDA events.
type Timer interface {
	Start() error
	Stop() error
	// Elapsed waits for the stop event and returns milliseconds.
	Elapsed() (float64, error)
	Close() error
}

// WriteSlice copies a host slice into b at byte offset off.
func WriteSlice[T any](b Buffer, off uint64, s []T) error {
	if len(s) == 0 {
		return nil
	}
	var z T
	return b.Write(off, unsafe.Pointer(&s[0]), uint64(len(s))*uint64(unsafe.Sizeof(z)))
}

// ReadSlice copies len(s) elements from b at byte offset off into s.
func ReadSlice[T any](b Buffer, off uint64, s []T) error {
	if len(s) == 0 {
		return nil
	}
	var z T
	return b.Read(off, unsafe.Pointer(&s[0]), uint64(len(s))*uint64(unsafe.Sizeof(z)))
}

// Capturer is a Device that records device work once and replays it with
// one launch (a CUDA graph): a pass of short kernels then does not wait on
// the host between them.
type Capturer interface {
	// Capture runs fn with the default-stream work its goroutine queues
	// (launches, zeroing, the events of default-stream timers) recorded
	// instead of run. fn must queue nothing else: a call that would run at
	// once (a copy, a fill, a synchronize, a timer's read, a stream's work)
	// fails, and the capture with it.
	Capture(fn func() error) (Replay, error)
}

// Replay is work a Capturer recorded.
type Replay interface {
	// Launch queues the recorded work on the default stream.
	Launch() error
	Close() error
}
