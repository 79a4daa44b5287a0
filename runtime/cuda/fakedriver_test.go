package cuda

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The fake driver is embedded so the compiled test binary needs no files.
//
//go:embed testdata/fakecuda.c
var fakeCUDASource []byte

type fakeDriver struct {
	setNoDevice, ctxRefs, hostAllocs, asyncCopies uintptr
	lastStream, liveStreams, registered           uintptr
	lastGraphOps                                  uintptr
}

func (f fakeDriver) count(sym uintptr) int {
	r, _, _ := purego.SyscallN(sym)
	return int(int32(uint32(r)))
}

func (f fakeDriver) noDevice(v bool) {
	var a uintptr
	if v {
		a = 1
	}
	purego.SyscallN(f.setNoDevice, a)
}

func (f fakeDriver) refs() int {
	r, _, _ := purego.SyscallN(f.ctxRefs)
	return int(int32(uint32(r)))
}

// useFakeDriver builds testdata/fakecuda.c into a libcuda.so.1 and makes
// the package load it for the rest of the test.
func useFakeDriver(t *testing.T) fakeDriver {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler (%s) to build the fake driver", cc)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "fakecuda.c")
	lib := filepath.Join(dir, "libcuda.so.1")
	if err := os.WriteFile(src, fakeCUDASource, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-O1", "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
		t.Fatalf("building the fake driver: %v\n%s", err, out)
	}
	driverMu.Lock()
	saved := struct {
		path string
		inst *driverLib
		err  error
		done bool
	}{driverPath, driverInst, driverErr, driverDone}
	driverPath, driverDone = lib, false
	driverMu.Unlock()
	t.Cleanup(func() {
		driverMu.Lock()
		driverPath, driverInst, driverErr, driverDone = saved.path, saved.inst, saved.err, saved.done
		driverMu.Unlock()
	})
	h, err := purego.Dlopen(lib, purego.RTLD_LAZY|purego.RTLD_LOCAL)
	if err != nil {
		t.Fatal(err)
	}
	var f fakeDriver
	if f.setNoDevice, err = purego.Dlsym(h, "fake_set_no_device"); err != nil {
		t.Fatal(err)
	}
	if f.ctxRefs, err = purego.Dlsym(h, "fake_ctx_refs"); err != nil {
		t.Fatal(err)
	}
	if f.hostAllocs, err = purego.Dlsym(h, "fake_host_allocs"); err != nil {
		t.Fatal(err)
	}
	if f.asyncCopies, err = purego.Dlsym(h, "fake_async_copies"); err != nil {
		t.Fatal(err)
	}
	for sym, dst := range map[string]*uintptr{"fake_last_stream": &f.lastStream, "fake_live_streams": &f.liveStreams, "fake_registered": &f.registered, "fake_last_graph_ops": &f.lastGraphOps} {
		if *dst, err = purego.Dlsym(h, sym); err != nil {
			t.Fatal(err)
		}
	}
	f.noDevice(false)
	return f
}

// openFakeAdd1 opens the fake driver's device, closed when the test ends,
// and returns it with its add1 kernel (fakecuda.c).
func openFakeAdd1(t *testing.T) (*Device, gpu.Function) {
	t.Helper()
	d, err := Open(0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	m, err := d.Load(gpu.Image{Kind: "ptx", Data: []byte(".version 8.0")})
	if err != nil {
		t.Fatal(err)
	}
	add1, err := m.Function("add1")
	if err != nil {
		t.Fatal(err)
	}
	return d, add1
}

func TestFakeDriverNoDevice(t *testing.T) {
	f := useFakeDriver(t)
	f.noDevice(true)
	_, err := Open(0, Options{})
	if !errors.Is(err, ErrNoDevice) {
		t.Fatalf("Open: %v, want ErrNoDevice", err)
	}
	var de *DriverError
	if !errors.As(err, &de) || de.Call != "cuInit" || de.Name != "CUDA_ERROR_NO_DEVICE" || de.Message == "" {
		t.Errorf("error %v lacks the driver's name and text", err)
	}
	if _, err := Devices(); !errors.Is(err, ErrNoDevice) {
		t.Errorf("Devices: %v", err)
	}
}

func TestFakeDriverFacts(t *testing.T) {
	useFakeDriver(t)
	d, err := Open(0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	want := gpu.DeviceFacts{Name: "Fake GPU", Major: 9, Minor: 0, SMs: 132, MemoryBytes: 1 << 30,
		SharedPerSM: 233472, SharedOptin: 232448, L2Bytes: 52428800, Driver: 13000,
		UUID: "GPU-00112233-4455-6677-8899-aabbccddeeff", ClockMHz: 1980, MemClockMHz: 2619}
	if got := d.Facts(); got != want {
		t.Errorf("facts\n got %+v\nwant %+v", got, want)
	}
	all, err := Devices()
	if err != nil || len(all) != 1 || all[0] != want {
		t.Errorf("Devices = %+v, %v", all, err)
	}
	if _, err := Open(1, Options{}); !errors.Is(err, ErrNoDevice) {
		t.Errorf("Open(1): %v, want ErrNoDevice", err)
	}
}

func TestFakeDriverMemory(t *testing.T) {
	f := useFakeDriver(t)
	d, err := Open(0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Alloc(64)
	if err != nil {
		t.Fatal(err)
	}
	in := []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	if err := gpu.WriteSlice(b, 0, in); err != nil {
		t.Fatal(err)
	}
	out := make([]uint32, 4)
	if err := gpu.ReadSlice(b, 8, out); err != nil || out[0] != 3 || out[3] != 6 {
		t.Errorf("read at offset 8: %v, %v", out, err)
	}
	if err := gpu.ReadSlice(b, 60, out); err == nil {
		t.Error("read past the end succeeded")
	}
	if err := b.Write(65, unsafe.Pointer(&in[0]), 0); err == nil {
		t.Error("write at an offset past the end succeeded")
	}
	c, _ := d.Alloc(64)
	if err := c.(*Buffer).CopyFrom(0, b.(*Buffer), 0, 64); err != nil {
		t.Fatal(err)
	}
	if err := b.(*Buffer).Fill32(0xffffffff); err != nil {
		t.Fatal(err)
	}
	if err := gpu.ReadSlice(b, 0, out); err != nil || out[2] != 0xffffffff {
		t.Errorf("after Fill32: %x, %v", out, err)
	}
	if err := b.Zero(); err != nil {
		t.Fatal(err)
	}
	if err := gpu.ReadSlice(b, 0, out); err != nil || out[1] != 0 {
		t.Errorf("after Zero: %v, %v", out, err)
	}
	if err := gpu.ReadSlice(c, 60, out[:1]); err != nil || out[0] != 16 {
		t.Errorf("copy: %v, %v", out[:1], err)
	}
	if err := b.Free(); err != nil {
		t.Fatal(err)
	}
	if err := b.Free(); err != nil {
		t.Errorf("second Free: %v", err)
	}
	if err := b.Zero(); err == nil {
		t.Error("Zero after Free succeeded")
	}
	if z, err := d.Alloc(0); err != nil || z.Ptr() != 0 || z.Zero() != nil || z.Free() != nil {
		t.Errorf("empty buffer: %v", err)
	}
	_, err = d.Alloc(3 << 30)
	if !errors.Is(err, ErrOutOfMemory) || !strings.Contains(err.Error(), "free") || !strings.Contains(err.Error(), "3221225472") {
		t.Errorf("oversized Alloc: %v, want ErrOutOfMemory naming the sizes", err)
	}
	if free, total, err := d.MemInfo(); err != nil || total != 1<<30 || free != total-64 {
		t.Errorf("MemInfo = %d, %d, %v", free, total, err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if f.refs() != 0 {
		t.Errorf("primary context still retained %d times after Close", f.refs())
	}
	if _, err := d.Alloc(8); err == nil {
		t.Error("Alloc after Close succeeded")
	}
}

func TestFakeDriverModules(t *testing.T) {
	useFakeDriver(t)
	d, err := Open(0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	_, err = d.Load(gpu.Image{Kind: "ptx", Data: []byte("//bad ptx")})
	var le *LoadModuleError
	if !errors.As(err, &le) || !strings.Contains(le.Log, "syntax error") || !strings.Contains(err.Error(), "CUDA_ERROR_INVALID_PTX") {
		t.Fatalf("bad module: %v, want the JIT log", err)
	}
	if _, err := d.Load(gpu.Image{Kind: "fatbin", Data: []byte("x")}); err == nil {
		t.Error("unknown image kind loaded")
	}
	m, err := d.Load(gpu.Image{Kind: "ptx", Data: []byte(".version 8.0")})
	if err != nil {
		t.Fatal(err)
	}
	if m.(*Module).JITLog() != "fake jit: ok" {
		t.Errorf("JIT info log %q", m.(*Module).JITLog())
	}
	if _, err := m.Function("nope"); err == nil || !strings.Contains(err.Error(), "nope") || !strings.Contains(err.Error(), "CUDA_ERROR_NOT_FOUND") {
		t.Errorf("missing kernel: %v", err)
	}

	// Every argument type reaches the kernel with its value and width.
	args, err := m.Function("args")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := d.Alloc(6 * 8)
	if err := args.Launch(gpu.Dim3{X: 1}, gpu.Dim3{X: 1}, 0, out, uint32(0xdeadbeef), int32(-5), uint64(1<<40+3), int64(-7), float32(1.5), 2.25); err != nil {
		t.Fatal(err)
	}
	got := make([]uint64, 6)
	if err := gpu.ReadSlice(out, 0, got); err != nil {
		t.Fatal(err)
	}
	want := []uint64{0xdeadbeef, uint64(math.MaxUint64 - 4), 1<<40 + 3, uint64(math.MaxUint64 - 6), uint64(math.Float32bits(1.5)), math.Float64bits(2.25)}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("argument %d arrived as %#x, want %#x", i, got[i], want[i])
		}
	}
	err = args.Launch(gpu.Dim3{X: 1}, gpu.Dim3{X: 1}, 0, out, 3)
	var lerr *LaunchError
	if !errors.As(err, &lerr) || lerr.Kernel != "args" || !strings.Contains(err.Error(), "int") {
		t.Errorf("untyped int argument: %v", err)
	}
	if err := args.Launch(gpu.Dim3{}, gpu.Dim3{X: 32}, 0); err != nil {
		t.Errorf("empty grid: %v", err)
	}

	// Dynamic shared memory above 48 KiB needs the opt-in attribute.
	add1, err := m.Function("add1")
	if err != nil {
		t.Fatal(err)
	}
	buf, _ := d.Alloc(4 * 1000)
	err = add1.Launch(gpu.Dim3{X: 4}, gpu.Dim3{X: 256}, 64<<10, buf, uint32(1000))
	if !errors.As(err, &lerr) || lerr.Kernel != "add1" || !strings.Contains(err.Error(), "CUDA_ERROR_INVALID_VALUE") {
		t.Errorf("launch over 48 KiB without opt-in: %v", err)
	}
	if err := add1.SetMaxDynamicShared(64 << 10); err != nil {
		t.Fatal(err)
	}
	if err := add1.SetMaxDynamicShared(1 << 20); err == nil || !strings.Contains(err.Error(), "add1") {
		t.Errorf("opt-in beyond the device: %v", err)
	}
	if a, err := add1.(*Function).Attrs(); err != nil || a.Registers != 32 || a.MaxThreadsPerBlock != 1024 {
		t.Errorf("Attrs = %+v, %v", a, err)
	}
	// Occupancy: the fake SM holds 2048 threads and 228 KiB.
	for _, c := range []struct{ block, dyn, want int }{{256, 0, 8}, {32, 0, 32}, {256, 100 << 10, 2}} {
		if got, err := add1.(*Function).MaxActiveBlocksPerSM(c.block, c.dyn); err != nil || got != c.want {
			t.Errorf("MaxActiveBlocksPerSM(%d, %d) = %d, %v; want %d", c.block, c.dyn, got, err, c.want)
		}
	}
	if _, err := add1.(*Function).MaxActiveBlocksPerSM(4096, 0); err == nil || !strings.Contains(err.Error(), "add1") {
		t.Errorf("occupancy of 4096-thread blocks: %v", err)
	}

	// Launch from many goroutines: each call must find the context current
	// on whatever thread it runs (the fake fails calls without it).
	tm, err := d.NewTimer()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tm.Elapsed(); err == nil {
		t.Error("Elapsed before Start succeeded")
	}
	if err := tm.Start(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := d.Alloc(4 * 1000)
			if err == nil {
				err = b.Zero()
			}
			for i := 0; err == nil && i < g+1; i++ {
				err = add1.Launch(gpu.Dim3{X: 4}, gpu.Dim3{X: 256}, 64<<10, b, uint32(1000))
			}
			v := make([]uint32, 1000)
			if err == nil {
				err = gpu.ReadSlice(b, 0, v)
			}
			if err == nil && (v[0] != uint32(g+1) || v[999] != uint32(g+1)) {
				err = errors.New("wrong sums")
			}
			if err == nil {
				err = b.Free()
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if err := tm.Stop(); err != nil {
		t.Fatal(err)
	}
	if ms, err := tm.Elapsed(); err != nil || ms < 0 {
		t.Errorf("Elapsed = %v, %v", ms, err)
	}
	if err := tm.Close(); err != nil {
		t.Error(err)
	}
	if err := d.Synchronize(); err != nil {
		t.Error(err)
	}
	if err := m.Unload(); err != nil {
		t.Error(err)
	}
	if _, err := m.Function("add1"); err == nil {
		t.Error("Function after Unload succeeded")
	}
}

// TestFakeDriverStagedUpload: large writes go through the two pinned
// staging buffers chunk by chunk, arrive intact at every offset, and the
// buffers are freed with the device.
func TestFakeDriverStagedUpload(t *testing.T) {
	f := useFakeDriver(t)
	savedMin, savedChunk := stagedMin, stageChunk
	stagedMin, stageChunk = 1<<20, 256<<10
	t.Cleanup(func() { stagedMin, stageChunk = savedMin, savedChunk })
	d, err := Open(0, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3<<20 + 12345 // not a multiple of the chunk
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i*7 + i>>9)
	}
	buf, err := d.Alloc(n + 64)
	if err != nil {
		t.Fatal(err)
	}
	copies := f.count(f.asyncCopies)
	if err := buf.Write(64, unsafe.Pointer(&src[0]), n); err != nil {
		t.Fatal(err)
	}
	if got := f.count(f.asyncCopies) - copies; got != (n+int(stageChunk)-1)/int(stageChunk) {
		t.Errorf("%d asynchronous copies, want one per %d-byte chunk", got, stageChunk)
	}
	if f.count(f.hostAllocs) != 2 {
		t.Errorf("%d pinned buffers, want 2", f.count(f.hostAllocs))
	}
	back := make([]byte, n)
	if err := buf.Read(64, unsafe.Pointer(&back[0]), n); err != nil {
		t.Fatal(err)
	}
	for i := range back {
		if back[i] != src[i] {
			t.Fatalf("byte %d: %d, wrote %d", i, back[i], src[i])
		}
	}
	// WriteFrom: the fill writes into the staging buffers, in whole 64 KiB
	// units from several goroutines; its first error stops the upload
	// before the failing range is sent.
	var mu sync.Mutex
	var calls [][2]uint64
	fill := func(dst []byte, pos uint64) error {
		mu.Lock()
		calls = append(calls, [2]uint64{pos, uint64(len(dst))})
		mu.Unlock()
		copy(dst, src[pos:])
		return nil
	}
	if err := buf.(*Buffer).WriteFrom(0, n, fill); err != nil {
		t.Fatal(err)
	}
	if err := buf.Read(0, unsafe.Pointer(&back[0]), n); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, src) {
		t.Fatal("WriteFrom: the buffer holds other bytes than the fill wrote")
	}
	covered := uint64(0)
	for _, c := range calls {
		covered += c[1]
		if c[0]%copyAlign != 0 || (c[1]%copyAlign != 0 && c[0]+c[1] != n && (c[0]+c[1])%stageChunk != 0) {
			t.Fatalf("fill of %d bytes at %d: not whole %d-byte units", c[1], c[0], copyAlign)
		}
	}
	if covered != n {
		t.Fatalf("fills covered %d bytes, want %d", covered, n)
	}
	copies = f.count(f.asyncCopies)
	bad := errors.New("bad piece")
	err = buf.(*Buffer).WriteFrom(0, n, func(dst []byte, pos uint64) error {
		if pos+uint64(len(dst)) > stageChunk+1000 {
			return bad
		}
		return nil
	})
	if !errors.Is(err, bad) || f.count(f.asyncCopies)-copies != 1 {
		t.Fatalf("failing fill: %v after %d copies, want the fill's error after 1", err, f.count(f.asyncCopies)-copies)
	}
	// A small write takes the plain path.
	copies = f.count(f.asyncCopies)
	if err := buf.Write(0, unsafe.Pointer(&src[0]), 64); err != nil {
		t.Fatal(err)
	}
	if f.count(f.asyncCopies) != copies {
		t.Error("a 64-byte write was staged")
	}
	if err := buf.Free(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if f.count(f.hostAllocs) != 0 {
		t.Errorf("%d pinned buffers left after Close", f.count(f.hostAllocs))
	}
}

func TestParallelFill(t *testing.T) {
	for _, n := range []int{0, 1, copyPiece - 1, 3*copyPiece + 5} {
		src := make([]byte, n+1)
		for i := range src {
			src[i] = byte(i % 251)
		}
		dst := make([]byte, n+1)
		if n > 0 {
			if err := parallelFill(dst[:n], 0, copyFrom(unsafe.Pointer(&src[0]))); err != nil {
				t.Fatal(err)
			}
		}
		for i := range n {
			if dst[i] != src[i] {
				t.Fatalf("n=%d: byte %d differs", n, i)
			}
		}
		if dst[n] != 0 {
			t.Fatalf("n=%d: wrote past the end", n)
		}
	}
	// The error of the lowest failing piece is returned.
	var mu sync.Mutex
	lowest := uint64(math.MaxUint64)
	err := parallelFill(make([]byte, 8*copyPiece), 0, func(dst []byte, pos uint64) error {
		if pos == 0 {
			return nil
		}
		mu.Lock()
		lowest = min(lowest, pos)
		mu.Unlock()
		return fmt.Errorf("at %d", pos)
	})
	if goruntime.GOMAXPROCS(0) > 1 && (err == nil || err.Error() != fmt.Sprintf("at %d", lowest)) {
		t.Fatalf("got %v, want the error at %d", err, lowest)
	}
}
