package cuda

import (
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"strings"
	"unsafe"
)

// CUresult codes the package treats specially.
const (
	cudaSuccess          = 0
	cudaErrorOutOfMemory = 2
	cudaErrorNoDevice    = 100
)

// DriverError is a failed CUDA driver call.
type DriverError struct {
	Call    string // exported symbol, e.g. "cuMemAlloc_v2"
	Code    int    // CUresult
	Name    string // e.g. "CUDA_ERROR_OUT_OF_MEMORY"
	Message string // cuGetErrorString text
}

func (e *DriverError) Error() string {
	return fmt.Sprintf("%s: %s (%d): %s", e.Call, e.Name, e.Code, e.Message)
}

// Is lets errors.Is match the sentinels the command maps to exit codes.
func (e *DriverError) Is(target error) bool {
	switch target {
	case ErrOutOfMemory:
		return e.Code == cudaErrorOutOfMemory
	case ErrNoDevice:
		return e.Code == cudaErrorNoDevice
	case executor.ErrDeviceLost:
		return stickyCodes[e.Code]
	}
	return false
}

// stickyCodes are the CUresults that leave the context unusable (CUDA's
// documentation of cudaError: "the process must be terminated"):
// 700 illegal address, 702 launch timeout, 714 hardware stack error,
// 715 illegal instruction, 716 misaligned address, 717 invalid address
// space, 718 invalid PC, 719 launch failed, 999 unknown.
var stickyCodes = map[int]bool{700: true, 702: true, 714: true, 715: true, 716: true, 717: true, 718: true, 719: true, 999: true}

// check maps a CUresult to an error carrying the driver's own name and text.
func (l *driverLib) check(sym string, r uintptr) error {
	code := cuResult(int32(uint32(r)))
	if code == cudaSuccess {
		return nil
	}
	e := &DriverError{Call: sym, Code: int(code), Name: fmt.Sprintf("CUresult(%d)", code)}
	var p unsafe.Pointer
	if l.cuGetErrorName(code, unsafe.Pointer(&p)) == cudaSuccess && p != nil {
		e.Name = goString(uintptr(p))
	}
	p = nil
	if l.cuGetErrorString(code, unsafe.Pointer(&p)) == cudaSuccess && p != nil {
		e.Message = goString(uintptr(p))
	}
	return e
}

// NVRTCError is a failed NVRTC call.
type NVRTCError struct {
	Call    string
	Code    int
	Message string // nvrtcGetErrorString text, e.g. "NVRTC_ERROR_COMPILATION"
}

func (e *NVRTCError) Error() string {
	return fmt.Sprintf("%s: %s (%d)", e.Call, e.Message, e.Code)
}

func (l *nvrtcLib) check(sym string, r uintptr) error {
	code := nvrtcResult(int32(uint32(r)))
	if code == 0 {
		return nil
	}
	return &NVRTCError{Call: sym, Code: int(code), Message: l.nvrtcGetErrorString(code)}
}

// CompileError is a failed NVRTC compilation with the full compiler log.
type CompileError struct {
	Name    string   // source name, e.g. "polak_1a2b3c4d.cu"
	Arch    string   // e.g. "compute_90"
	Options []string // every option passed to NVRTC
	Log     string   // the NVRTC program log
	Err     error    // the NVRTC call that failed
}

func (e *CompileError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "nvrtc: compiling %s for %s: %v", e.Name, e.Arch, e.Err)
	if log := strings.TrimSpace(e.Log); log != "" {
		b.WriteString("\n")
		b.WriteString(log)
	}
	return b.String()
}

func (e *CompileError) Unwrap() error { return e.Err }

// LoadModuleError is a module the driver would not load, with the JIT log.
type LoadModuleError struct {
	Kind string // "ptx" or "cubin"
	Log  string // the driver's JIT error log
	Err  error
}

func (e *LoadModuleError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cuda: loading %s module: %v", e.Kind, e.Err)
	if log := strings.TrimSpace(e.Log); log != "" {
		b.WriteString("\n")
		b.WriteString(log)
	}
	return b.String()
}

func (e *LoadModuleError) Unwrap() error { return e.Err }

// LaunchError is a kernel launch the driver refused.
type LaunchError struct {
	Kernel      string
	Grid, Block [3]uint32
	Shared      uint32
	Err         error
}

func (e *LaunchError) Error() string {
	return fmt.Sprintf("cuda: launching %s (grid %v, block %v, %d B dynamic shared): %v",
		e.Kernel, e.Grid, e.Block, e.Shared, e.Err)
}

func (e *LaunchError) Unwrap() error { return e.Err }
