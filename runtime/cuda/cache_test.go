package cuda

import (
	"bytes"
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countingCompiler is a stand-in compiler for the cache's logic.
type countingCompiler struct {
	calls        int
	major, minor int
	fail         bool
}

func (c *countingCompiler) Compile(in gpu.CompileInput) (gpu.Image, error) {
	c.calls++
	if c.fail {
		return gpu.Image{}, fmt.Errorf("broken")
	}
	return gpu.Image{Kind: "ptx", Data: []byte("// ptx of " + in.Source + " for " + in.Arch), Log: "warning: x"}, nil
}

func (c *countingCompiler) Version() (int, int) { return c.major, c.minor }

var cacheInput = gpu.CompileInput{Name: "k.cu", Source: "kernel source", Arch: "compute_90", Options: []string{"-lineinfo"},
	Headers: map[string]string{"a.cuh": "header a", "b.cuh": "header b"}}

func TestCacheHitAndCorruption(t *testing.T) {
	inner := &countingCompiler{major: 11, minor: 8}
	var warnings []error
	c := &CachingCompiler{Inner: inner, Dir: filepath.Join(t.TempDir(), "kernels"), Warn: func(err error) { warnings = append(warnings, err) }}

	first, err := c.Compile(cacheInput)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Compile(cacheInput)
	if err != nil {
		t.Fatal(err)
	}
	if inner.calls != 1 {
		t.Fatalf("inner compiled %d times, want 1 (second compile should hit)", inner.calls)
	}
	if second.Kind != first.Kind || !bytes.Equal(second.Data, first.Data) || second.Log != first.Log {
		t.Fatalf("cached image %+v differs from %+v", second, first)
	}
	if h, m := c.Stats(); h != 1 || m != 1 {
		t.Errorf("stats %d hits %d misses", h, m)
	}

	// Flip one byte of the payload: the checksum catches it and the entry is rebuilt.
	path := c.Path(cacheInput)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw[len(raw)/2] ^= 0x40
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	third, err := c.Compile(cacheInput)
	if err != nil || !bytes.Equal(third.Data, first.Data) {
		t.Fatalf("after corruption: %+v, %v", third, err)
	}
	if inner.calls != 2 {
		t.Fatalf("inner compiled %d times, want 2 (corrupt entry recompiled)", inner.calls)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Error(), "checksum") {
		t.Errorf("warnings %v", warnings)
	}
	// The rebuilt entry is whole again.
	if _, err := c.Compile(cacheInput); err != nil || inner.calls != 2 {
		t.Errorf("rebuilt entry not served: calls %d, %v", inner.calls, err)
	}

	// Truncation is caught too.
	raw, _ = os.ReadFile(path)
	if err := os.WriteFile(path, raw[:len(raw)-7], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile(cacheInput); err != nil || inner.calls != 3 {
		t.Errorf("truncated entry: calls %d, %v", inner.calls, err)
	}

	// No temporary files are left behind.
	ents, _ := os.ReadDir(c.Dir)
	if len(ents) != 1 {
		t.Errorf("cache dir holds %d files, want 1", len(ents))
	}
}

func TestCacheKey(t *testing.T) {
	inner := &countingCompiler{major: 11, minor: 8}
	c := &CachingCompiler{Inner: inner, Dir: t.TempDir()}
	base := c.Key(cacheInput)
	if base != c.Key(cacheInput) || len(base) != 64 {
		t.Fatalf("key %q not stable", base)
	}
	variants := map[string]gpu.CompileInput{}
	v := cacheInput
	v.Source += " "
	variants["source"] = v
	v = cacheInput
	v.Arch = "compute_80"
	variants["arch"] = v
	v = cacheInput
	v.Options = []string{"-lineinfo", "-O3"}
	variants["options"] = v
	v = cacheInput
	v.Options = []string{"-line", "info"}
	variants["option split"] = v
	v = cacheInput
	v.Name = "j.cu"
	variants["name"] = v
	v = cacheInput
	v.Headers = map[string]string{"a.cuh": "header a", "b.cuh": "header b "}
	variants["header text"] = v
	v = cacheInput
	v.Headers = map[string]string{"a.cuh": "header a", "c.cuh": "header b"}
	variants["header name"] = v
	v = cacheInput
	v.Headers = map[string]string{"a.cuh": "header a"}
	variants["header count"] = v
	v = cacheInput
	v.Headers = map[string]string{"a.cuh": "header ab", "b.cuh": "header "}
	variants["header split"] = v
	for what, in := range variants {
		if c.Key(in) == base {
			t.Errorf("changing the %s keeps the key", what)
		}
	}
	inner.minor = 9
	if c.Key(cacheInput) == base {
		t.Error("changing the NVRTC version keeps the key")
	}
}

func TestCacheErrors(t *testing.T) {
	// Compile errors are passed on and not cached.
	inner := &countingCompiler{fail: true}
	c := &CachingCompiler{Inner: inner, Dir: t.TempDir()}
	for range 2 {
		if _, err := c.Compile(cacheInput); err == nil {
			t.Fatal("error swallowed")
		}
	}
	if inner.calls != 2 {
		t.Errorf("failed compile cached: %d calls", inner.calls)
	}

	// An unusable directory costs the cache, not the compile.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var warned int
	c = &CachingCompiler{Inner: &countingCompiler{}, Dir: filepath.Join(file, "sub"), Warn: func(error) { warned++ }}
	if img, err := c.Compile(cacheInput); err != nil || len(img.Data) == 0 {
		t.Fatalf("compile through a broken cache: %v", err)
	}
	if warned == 0 {
		t.Error("no warning for an unwritable cache")
	}
}

// The cache in front of the real NVRTC.
func TestCacheNVRTC(t *testing.T) {
	c := &CachingCompiler{Inner: newTestCompiler(t), Dir: t.TempDir()}
	in := gpu.CompileInput{Name: "kernels.cu", Source: testKernels, Arch: "compute_90"}
	first, err := c.Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	if h, m := c.Stats(); h != 1 || m != 1 {
		t.Fatalf("second compile: %d hits %d misses, want a hit", h, m)
	}
	if !bytes.Equal(first.Data, second.Data) || !bytes.Contains(second.Data, []byte(".entry add1")) {
		t.Fatal("cached PTX differs or lacks the kernel")
	}
	path := c.Path(in)
	raw, _ := os.ReadFile(path)
	raw[len(raw)-1] ^= 1 // the checksum itself
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	third, err := c.Compile(in)
	if err != nil || !bytes.Equal(third.Data, first.Data) {
		t.Fatalf("recompile after corruption: %v", err)
	}
	if h, m := c.Stats(); h != 1 || m != 2 {
		t.Fatalf("after corruption: %d hits %d misses, want a recompile", h, m)
	}
}
