package cuda

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tcgen/tcgen/runtime/gpu"
)

// TestLazyCompilerRecord: without a record of the library it would load,
// the lazy compiler loads NVRTC at once (and fails as NewCompiler does on a
// file that is no NVRTC); with one it answers its version without loading
// and loads at the first compile; a changed file makes the record stale.
func TestLazyCompilerRecord(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "libnvrtc.so.99")
	if err := os.WriteFile(lib, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	opt := Options{NVRTCPath: lib}
	if _, err := NewLazyCompiler(opt, dir); !errors.Is(err, ErrNoNVRTC) {
		t.Fatalf("no record: %v, want ErrNoNVRTC", err)
	}
	rec, got := nvrtcRecord(opt, dir)
	if rec == "" || got != lib {
		t.Fatalf("record %q of %q, want one of %q", rec, got, lib)
	}
	if err := os.WriteFile(rec, []byte("nvrtc 12.4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lc, err := NewLazyCompiler(opt, dir)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := lc.Version(); a != 12 || b != 4 || lc.c != nil {
		t.Fatalf("version %d.%d, loaded %v: want 12.4 from the record, not loaded", a, b, lc.c != nil)
	}
	if _, err := lc.Compile(gpu.CompileInput{Name: "k.cu", Source: "", Arch: "sm_90"}); !errors.Is(err, ErrNoNVRTC) {
		t.Fatalf("compile: %v, want the load's ErrNoNVRTC", err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(lib, later, later); err != nil {
		t.Fatal(err)
	}
	if _, err := NewLazyCompiler(opt, dir); !errors.Is(err, ErrNoNVRTC) {
		t.Fatalf("library changed since the record: %v, want a load and ErrNoNVRTC", err)
	}
	if rec, _ := nvrtcRecord(Options{NVRTCPath: "libnvrtc.so.13"}, dir); rec != "" {
		t.Errorf("a soname has a record %q", rec)
	}
}

// TestLazyCompilerNVRTC (where NVRTC is installed): the first lazy
// compiler loads NVRTC and records its version, the second answers from the
// record and compiles once asked.
func TestLazyCompilerNVRTC(t *testing.T) {
	var lib string
	for _, pattern := range []string{"/usr/local/cuda/lib64/libnvrtc.so.*", "/usr/lib/x86_64-linux-gnu/libnvrtc.so.*"} {
		m, _ := filepath.Glob(pattern)
		for _, f := range m {
			if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && lib == "" {
				lib = f
			}
		}
	}
	if lib == "" {
		t.Skip("no NVRTC library file found")
	}
	dir, opt := t.TempDir(), Options{NVRTCPath: lib}
	first, err := NewLazyCompiler(opt, dir)
	if err != nil {
		t.Skipf("NVRTC at %s does not load: %v", lib, err)
	}
	second, err := NewLazyCompiler(opt, dir)
	if err != nil {
		t.Fatal(err)
	}
	a1, b1 := first.Version()
	a2, b2 := second.Version()
	if first.c == nil || second.c != nil || a1 != a2 || b1 != b2 {
		t.Fatalf("first loaded %v (%d.%d), second loaded %v (%d.%d): want the first loaded, the second from its record", first.c != nil, a1, b1, second.c != nil, a2, b2)
	}
	img, err := second.Compile(gpu.CompileInput{Name: "k.cu", Source: `extern "C" __global__ void k(int *p) { *p = 1; }`, Arch: "compute_75"}) // NVRTC 11.8 and 13 both take it (13 dropped compute_60)
	if err != nil || len(img.Data) == 0 {
		t.Fatalf("compile after the record: %v (%d bytes)", err, len(img.Data))
	}
}
