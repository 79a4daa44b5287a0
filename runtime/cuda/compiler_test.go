package cuda

import (
	"bytes"
	"errors"
	"github.com/tcgen/tcgen/runtime/gpu"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testKernels is self-contained (Debian's NVRTC ships no headers) and uses
// only what NVRTC 11.8 and 13 both provide.
const testKernels = `
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;

extern "C" __global__ void add1(u32 *a, u32 n) {
	u32 i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) a[i] += 1;
}

extern "C" __global__ void sum64(const u32 *a, u32 n, u64 *out) {
	u64 s = 0;
	for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += a[i];
	atomicAdd(out, s);
}

extern "C" __global__ void args(u64 *out, u32 a, i32 b, u64 c, i64 d, float e, double f) {
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		out[0] = a;
		out[1] = (u64)(i64)b;
		out[2] = c;
		out[3] = (u64)d;
		out[4] = __float_as_uint(e);
		out[5] = (u64)__double_as_longlong(f);
	}
}

// spin keeps one thread busy for about cycles clocks (a graph's timer test).
extern "C" __global__ void spin(i64 cycles) {
	const i64 t0 = clock64();
	while (clock64() - t0 < cycles) {
	}
}

extern "C" __global__ void bigshared(u32 *out, u32 words) {
	extern __shared__ u32 buf[];
	for (u32 i = threadIdx.x; i < words; i += blockDim.x) buf[i] = i;
	__syncthreads();
	if (threadIdx.x == 0) out[0] = buf[words - 1];
}
`

func TestCompilePTX(t *testing.T) {
	c := newTestCompiler(t)
	for _, arch := range []string{"compute_80", "compute_90"} {
		img, err := c.Compile(gpu.CompileInput{Name: "kernels.cu", Source: testKernels, Arch: arch})
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if img.Kind != "ptx" {
			t.Errorf("%s: kind %q, want ptx", arch, img.Kind)
		}
		ptx := string(img.Data)
		for _, want := range []string{".target sm_" + strings.TrimPrefix(arch, "compute_"), ".entry add1", ".entry sum64", ".entry args", ".entry bigshared"} {
			if !strings.Contains(ptx, want) {
				t.Errorf("%s: PTX lacks %q", arch, want)
			}
		}
		if strings.ContainsRune(ptx, 0) {
			t.Errorf("%s: PTX holds a NUL byte", arch)
		}
	}
}

func TestCompileCubin(t *testing.T) {
	c := newTestCompiler(t)
	out, err := c.CompileAll(gpu.CompileInput{Name: "kernels.cu", Source: testKernels, Arch: "sm_80"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out.Cubin, []byte("\x7fELF")) {
		t.Errorf("cubin is not an ELF file (%d bytes)", len(out.Cubin))
	}
	if !bytes.Contains(out.PTX, []byte(".entry add1")) {
		t.Error("no PTX beside the cubin")
	}
	img, err := c.Compile(gpu.CompileInput{Name: "kernels.cu", Source: testKernels, Arch: "sm_80"})
	if err != nil || img.Kind != "cubin" {
		t.Errorf("Compile for sm_80: kind %q, %v", img.Kind, err)
	}
}

// A source includes the headers it is given, by name, and nothing else.
func TestCompileHeaders(t *testing.T) {
	c := newTestCompiler(t)
	in := gpu.CompileInput{
		Name:    "inc.cu",
		Source:  "#include \"types.cuh\"\n#include \"add.cuh\"\nextern \"C\" __global__ void inc(u32 *a) { a[0] = add(a[0], ONE); }\n",
		Headers: map[string]string{"types.cuh": "#pragma once\ntypedef unsigned int u32;\n", "add.cuh": "#pragma once\n#include \"types.cuh\"\nconstexpr u32 ONE = 1;\n__device__ u32 add(u32 a, u32 b) { return a + b; }\n"},
		Arch:    "compute_80",
	}
	img, err := c.Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(img.Data, []byte(".entry inc")) {
		t.Error("PTX lacks the kernel")
	}
	delete(in.Headers, "add.cuh")
	var ce *CompileError
	if _, err := c.Compile(in); !errors.As(err, &ce) || !strings.Contains(ce.Log, "add.cuh") {
		t.Errorf("a missing header: %v, want a CompileError naming it", err)
	}
}

func TestCompileError(t *testing.T) {
	c := newTestCompiler(t)
	_, err := c.Compile(gpu.CompileInput{
		Name:   "broken_1a2b3c4d.cu",
		Source: "extern \"C\" __global__ void k(int *a) { a[0] = undefined_thing; }\n",
		Arch:   "compute_80",
	})
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T), want *CompileError", err, err)
	}
	if ce.Name != "broken_1a2b3c4d.cu" || ce.Arch != "compute_80" {
		t.Errorf("CompileError names %q for %q", ce.Name, ce.Arch)
	}
	if !strings.Contains(ce.Log, "undefined_thing") || !strings.Contains(ce.Log, "broken_1a2b3c4d.cu") {
		t.Errorf("log lacks the error: %q", ce.Log)
	}
	if !strings.Contains(err.Error(), ce.Log[:20]) {
		t.Errorf("message lacks the log: %v", err)
	}
	var ne *NVRTCError
	if !errors.As(err, &ne) || ne.Message != "NVRTC_ERROR_COMPILATION" {
		t.Errorf("cause %v, want NVRTC_ERROR_COMPILATION", ce.Err)
	}
}

func TestCompileBadArch(t *testing.T) {
	c := newTestCompiler(t)
	_, err := c.Compile(gpu.CompileInput{Name: "k.cu", Source: testKernels, Arch: "sm_12"})
	var ce *CompileError
	if !errors.As(err, &ce) || !strings.Contains(ce.Log, "arch") {
		t.Fatalf("error %v, want a CompileError whose log names the architecture", err)
	}
	_, err = c.Compile(gpu.CompileInput{Name: "k.cu", Source: testKernels})
	if !errors.As(err, &ce) {
		t.Fatalf("no arch: %v, want a CompileError", err)
	}
}

// NVRTC may be called from many goroutines (the tuner compiles in parallel).
func TestCompileConcurrent(t *testing.T) {
	c := newTestCompiler(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := testKernels + strings.Repeat("\n", i)
			if _, err := c.Compile(gpu.CompileInput{Name: "k.cu", Source: src, Arch: "compute_80"}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestNVRTCOptions(t *testing.T) {
	got := NVRTCOptions(gpu.CompileInput{Arch: "compute_90", Options: []string{"-lineinfo"}})
	if strings.Join(got, " ") != "-arch=compute_90 -std=c++17 -lineinfo" {
		t.Errorf("options %q", got)
	}
	got = NVRTCOptions(gpu.CompileInput{Arch: "sm_80", Options: []string{"--std=c++20"}})
	if strings.Join(got, " ") != "-arch=sm_80 --std=c++20" {
		t.Errorf("options %q", got)
	}
}

func TestNVRTCMissing(t *testing.T) {
	_, err := NewCompiler(Options{NVRTCPath: "/nonexistent/libnvrtc.so.99"})
	var le *LoadError
	if !errors.Is(err, ErrNoNVRTC) || !errors.As(err, &le) {
		t.Fatalf("error %v, want ErrNoNVRTC", err)
	}
	if len(le.Tried) != 1 || !strings.Contains(le.Tried[0], "/nonexistent/libnvrtc.so.99") {
		t.Errorf("tried %q", le.Tried)
	}
	// A file that is not a shared library is reported, not loaded.
	bogus := filepath.Join(t.TempDir(), "libnvrtc.so.12")
	if err := os.WriteFile(bogus, []byte("not ELF"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewCompiler(Options{NVRTCPath: bogus}); !errors.Is(err, ErrNoNVRTC) {
		t.Errorf("bogus library: %v, want ErrNoNVRTC", err)
	}
}

func TestNVRTCCandidates(t *testing.T) {
	home := t.TempDir()
	lib64 := filepath.Join(home, "lib64")
	if err := os.MkdirAll(lib64, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.13.0.48", "libnvrtc-builtins.so.13"} {
		if err := os.WriteFile(filepath.Join(lib64, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CUDA_HOME", home)
	cands, _ := nvrtcCandidates(Options{})
	want := []string{
		filepath.Join(lib64, "libnvrtc.so.13.0.48"),
		filepath.Join(lib64, "libnvrtc.so.13"),
		filepath.Join(lib64, "libnvrtc.so"),
	}
	if len(cands) < len(want)+3 {
		t.Fatalf("candidates %q", cands)
	}
	for i, w := range want {
		if cands[i] != w {
			t.Errorf("candidate %d = %q, want %q", i, cands[i], w)
		}
	}
	tail := cands[len(cands)-3:]
	if strings.Join(tail, " ") != "libnvrtc.so.13 libnvrtc.so.12 libnvrtc.so.11.2" {
		t.Errorf("sonames %q", tail)
	}
	if c, _ := nvrtcCandidates(Options{NVRTCPath: "/x/libnvrtc.so"}); len(c) != 1 {
		t.Errorf("explicit path gives %q", c)
	}
}
