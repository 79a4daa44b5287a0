package cuda

import (
	"bytes"
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"maps"
	goruntime "runtime"
	"slices"
	"strings"
	"unsafe"
)

// Compiler compiles CUDA C++ with NVRTC. It implements gpu.Compiler and
// is safe for concurrent use.
type Compiler struct {
	lib          *nvrtcLib
	major, minor int
	archs        []int // the real architectures this NVRTC compiles for (90 for sm_90); nil if it cannot say
}

var _ gpu.Compiler = (*Compiler)(nil)

// NewCompiler loads NVRTC (Options.NVRTCPath, then $CUDA_HOME/lib64,
// /usr/local/cuda/lib64, then the sonames of NVRTC 13, 12 and 11.2). It fails
// with an error matching ErrNoNVRTC that lists what was tried.
func NewCompiler(opt Options) (*Compiler, error) {
	lib, err := loadNVRTC(opt)
	if err != nil {
		return nil, err
	}
	c := &Compiler{lib: lib}
	var major, minor int32
	if err := lib.nvrtcVersion(&major, &minor); err != nil {
		return nil, fmt.Errorf("cuda: %s: %w", lib.path, err)
	}
	c.major, c.minor = int(major), int(minor)
	var n int32
	if lib.nvrtcGetNumSupportedArchs(&n) == nil && n > 0 {
		archs := make([]int32, n)
		if lib.nvrtcGetSupportedArchs(&archs[0]) == nil {
			for _, a := range archs {
				c.archs = append(c.archs, int(a))
			}
		}
	}
	return c, nil
}

// effectiveArch is what NVRTC is asked for when in asks for arch: a real
// architecture (sm_XY) this NVRTC does not know, on a GPU newer than it,
// becomes the PTX of the newest one it knows below it (compute_XY), which
// the driver compiles when it loads the module.
func effectiveArch(arch string, supported []int) string {
	var want int
	if _, err := fmt.Sscanf(arch, "sm_%d", &want); err != nil || supported == nil || slices.Contains(supported, want) {
		return arch
	}
	best := 0
	for _, a := range supported {
		if a <= want && a > best {
			best = a
		}
	}
	if best == 0 {
		return arch // nothing older either: NVRTC's own error says why
	}
	return fmt.Sprintf("compute_%d", best)
}

// Version is NVRTC's version, e.g. 11, 8.
func (c *Compiler) Version() (major, minor int) { return c.major, c.minor }

// Path is the library that was loaded.
func (c *Compiler) Path() string { return c.lib.path }

// Output is everything one compilation produced.
type Output struct {
	PTX   []byte // without the trailing NUL
	Cubin []byte // only for a real architecture (sm_XX)
	Log   string
}

// NVRTCOptions returns the NVRTC options used for in: -arch, -std=c++17 unless
// in.Options sets a standard, then in.Options.
func NVRTCOptions(in gpu.CompileInput) []string {
	opts := []string{"-arch=" + in.Arch}
	hasStd := false
	for _, o := range in.Options {
		if strings.HasPrefix(o, "-std") || strings.HasPrefix(o, "--std") {
			hasStd = true
		}
	}
	if !hasStd {
		opts = append(opts, "-std=c++17")
	}
	return append(opts, in.Options...)
}

// Compile compiles in and returns the cubin for a real architecture (sm_XX,
// when this NVRTC can emit one) or else the PTX.
func (c *Compiler) Compile(in gpu.CompileInput) (gpu.Image, error) {
	out, err := c.CompileAll(in)
	if err != nil {
		return gpu.Image{}, err
	}
	if out.Cubin != nil {
		return gpu.Image{Kind: "cubin", Data: out.Cubin, Log: out.Log}, nil
	}
	return gpu.Image{Kind: "ptx", Data: out.PTX, Log: out.Log}, nil
}

// CompileAll compiles in and returns the PTX, the cubin where there is one,
// and the log. A failure is a *CompileError carrying the full log.
func (c *Compiler) CompileAll(in gpu.CompileInput) (Output, error) {
	var out Output
	opts := NVRTCOptions(in)
	fail := func(err error, log string) (Output, error) {
		return Output{}, &CompileError{Name: in.Name, Arch: in.Arch, Options: opts, Log: log, Err: err}
	}
	if in.Arch == "" {
		return fail(fmt.Errorf("no target architecture (want compute_XX or sm_XX)"), "")
	}
	in.Arch = effectiveArch(in.Arch, c.archs)
	opts = NVRTCOptions(in)
	name := in.Name
	if name == "" {
		name = "kernel.cu"
	}
	l := c.lib
	// The string arrays point at Go byte slices, so each is pinned.
	var pin goruntime.Pinner
	cstrings := func(ss []string) unsafe.Pointer {
		if len(ss) == 0 {
			return nil
		}
		cs := make([]*byte, len(ss))
		for i, s := range ss {
			cs[i] = cString(s)
			pin.Pin(cs[i])
		}
		pin.Pin(&cs[0])
		return unsafe.Pointer(&cs[0])
	}
	// Headers in name order, so one input always makes the same program.
	names := slices.Sorted(maps.Keys(in.Headers))
	texts := make([]string, len(names))
	for i, n := range names {
		texts[i] = in.Headers[n]
	}
	var prog nvrtcProgram
	src, cname := cString(in.Source), cString(name)
	pin.Pin(src)
	pin.Pin(cname)
	err := l.nvrtcCreateProgram(&prog, src, cname, int32(len(names)), cstrings(texts), cstrings(names))
	pin.Unpin()
	if err != nil {
		return fail(err, "")
	}
	defer l.nvrtcDestroyProgram(&prog)

	cerr := l.nvrtcCompileProgram(prog, int32(len(opts)), cstrings(opts))
	pin.Unpin()

	log, lerr := c.programLog(prog)
	if cerr != nil {
		return fail(cerr, log)
	}
	if lerr != nil {
		return fail(lerr, "")
	}
	out.Log = log

	var n uint64
	if err := l.nvrtcGetPTXSize(prog, &n); err != nil {
		return fail(err, log)
	}
	ptx := make([]byte, n+1)
	if err := l.nvrtcGetPTX(prog, &ptx[0]); err != nil {
		return fail(err, log)
	}
	out.PTX = bytes.TrimRight(ptx, "\x00")

	if strings.HasPrefix(in.Arch, "sm_") && l.addr.nvrtcGetCUBIN != 0 {
		if err := l.nvrtcGetCUBINSize(prog, &n); err != nil {
			return fail(err, log)
		}
		if n > 0 {
			cubin := make([]byte, n)
			if err := l.nvrtcGetCUBIN(prog, &cubin[0]); err != nil {
				return fail(err, log)
			}
			out.Cubin = cubin
		}
	}
	return out, nil
}

func (c *Compiler) programLog(prog nvrtcProgram) (string, error) {
	var n uint64
	if err := c.lib.nvrtcGetProgramLogSize(prog, &n); err != nil {
		return "", err
	}
	buf := make([]byte, n+1)
	if err := c.lib.nvrtcGetProgramLog(prog, &buf[0]); err != nil {
		return "", err
	}
	if i := bytes.IndexByte(buf, 0); i >= 0 {
		buf = buf[:i]
	}
	return string(buf), nil
}
