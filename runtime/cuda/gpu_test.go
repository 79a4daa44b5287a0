package cuda

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/tcgen/tcgen/runtime/nvml"
)

// TestGPU runs the whole path on a real GPU: NVRTC, cubin and PTX loading,
// copies, launches with every argument type, an atomic uint64 reduction,
// opt-in shared memory, events, and the typed errors.
func TestGPU(t *testing.T) {
	d := openGPU(t)
	f := d.Facts()
	t.Logf("device: %+v", f)
	if f.Name == "" || f.SMs <= 0 || f.Major < 5 || f.MemoryBytes == 0 || f.SharedOptin <= 0 || f.L2Bytes <= 0 || f.Driver < 10000 {
		t.Errorf("implausible facts %+v", f)
	}
	if !strings.HasPrefix(f.UUID, "GPU-") || len(f.UUID) != 40 {
		t.Errorf("UUID %q not in NVML's form", f.UUID)
	}
	all, err := Devices()
	if err != nil || len(all) == 0 || all[0] != f {
		t.Errorf("Devices()[0] = %+v, %v; Open gave %+v", all, err, f)
	}
	// The UUID finds the same GPU through NVML (when the build has it).
	if nf, err := nvml.Read(f.UUID); err == nil {
		t.Logf("NVML: %+v", nf)
		if nf.Name != f.Name || nf.UUID != f.UUID {
			t.Errorf("NVML by UUID found %q %q, want %q %q", nf.Name, nf.UUID, f.Name, f.UUID)
		}
	} else {
		t.Logf("no NVML facts: %v", err)
	}

	c := newTestCompiler(t)
	for _, arch := range []string{fmt.Sprintf("sm_%d%d", f.Major, f.Minor), fmt.Sprintf("compute_%d%d", f.Major, f.Minor)} {
		t.Run(arch, func(t *testing.T) {
			img, err := c.Compile(gpu.CompileInput{Name: "gpu_test.cu", Source: testKernels, Arch: arch})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s image: %d bytes", img.Kind, len(img.Data))
			m, err := d.Load(img)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Unload()
			runKernels(t, d, m)
		})
	}

	t.Run("errors", func(t *testing.T) {
		_, err := d.Load(gpu.Image{Kind: "ptx", Data: []byte(".version 99.0\n.target sm_999\nthis is not ptx\n")})
		var le *LoadModuleError
		if !errors.As(err, &le) {
			t.Fatalf("bad PTX: %v, want *LoadModuleError", err)
		}
		t.Logf("bad PTX: %v", err)
		if strings.TrimSpace(le.Log) == "" {
			t.Error("no JIT error log")
		}
		_, err = d.Alloc(2 * f.MemoryBytes)
		if !errors.Is(err, ErrOutOfMemory) {
			t.Errorf("allocating twice the memory: %v, want ErrOutOfMemory", err)
		}
		t.Logf("oversized: %v", err)
		if err := d.Synchronize(); err != nil {
			t.Errorf("Synchronize after the expected errors: %v", err)
		}
	})
}

func runKernels(t *testing.T, d *Device, m gpu.Module) {
	fn := func(name string) gpu.Function {
		t.Helper()
		k, err := m.Function(name)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	add1, sum64, args, bigshared := fn("add1"), fn("sum64"), fn("args"), fn("bigshared")
	if _, err := m.Function("no_such_kernel"); err == nil || !strings.Contains(err.Error(), "no_such_kernel") {
		t.Errorf("missing kernel: %v", err)
	}
	if a, err := add1.(*Function).Attrs(); err != nil || a.Registers <= 0 {
		t.Errorf("Attrs = %+v, %v", a, err)
	}
	// A small kernel fills an SM by threads: 2048 / 256 blocks on every
	// GPU tcgen targets (sm_70 to sm_90), fewer only if it needed more
	// registers than add1 does.
	if per, err := add1.(*Function).MaxActiveBlocksPerSM(256, 0); err != nil || per < 4 || per > 32 {
		t.Errorf("MaxActiveBlocksPerSM(256, 0) = %d, %v", per, err)
	}

	// add1 over a length that is not a multiple of the block, timed.
	const n = 1<<22 + 3
	host := make([]uint32, n)
	for i := range host {
		host[i] = uint32(i) * 7
	}
	buf, err := d.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	if err := gpu.WriteSlice(buf, 0, host); err != nil {
		t.Fatal(err)
	}
	tm, err := d.NewTimer()
	if err != nil {
		t.Fatal(err)
	}
	defer tm.Close()
	if err := tm.Start(); err != nil {
		t.Fatal(err)
	}
	if err := add1.Launch(gpu.Dim3{X: (n + 255) / 256}, gpu.Dim3{X: 256}, 0, buf, uint32(n)); err != nil {
		t.Fatal(err)
	}
	if err := tm.Stop(); err != nil {
		t.Fatal(err)
	}
	ms, err := tm.Elapsed()
	if err != nil || ms <= 0 {
		t.Errorf("event time %v ms, %v", ms, err)
	}
	t.Logf("add1 on %d elements: %.4f ms (%.0f GB/s)", n, ms, 8*float64(n)/ms/1e6)
	got := make([]uint32, n)
	if err := gpu.ReadSlice(buf, 0, got); err != nil {
		t.Fatal(err)
	}
	var want uint64
	for i := range got {
		if got[i] != host[i]+1 {
			t.Fatalf("a[%d] = %d, want %d", i, got[i], host[i]+1)
		}
		want += uint64(got[i])
	}

	// uint64 atomicAdd reduction (the sum passes 2^32).
	out, err := d.Alloc(8)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Free()
	if err := out.Zero(); err != nil {
		t.Fatal(err)
	}
	if err := sum64.Launch(gpu.Dim3{X: uint32(4 * d.Facts().SMs)}, gpu.Dim3{X: 256}, 0, buf, uint32(n), out); err != nil {
		t.Fatal(err)
	}
	sum := make([]uint64, 1)
	if err := gpu.ReadSlice(out, 0, sum); err != nil {
		t.Fatal(err)
	}
	if sum[0] != want || want < 1<<32 {
		t.Errorf("sum64 = %d, want %d", sum[0], want)
	}

	// Every argument type arrives with its width and sign.
	vals, err := d.Alloc(6 * 8)
	if err != nil {
		t.Fatal(err)
	}
	defer vals.Free()
	if err := args.Launch(gpu.Dim3{X: 1}, gpu.Dim3{X: 32}, 0, vals, uint32(0xdeadbeef), int32(-5), uint64(1<<40+3), int64(-7), float32(1.5), 2.25); err != nil {
		t.Fatal(err)
	}
	gotArgs := make([]uint64, 6)
	if err := gpu.ReadSlice(vals, 0, gotArgs); err != nil {
		t.Fatal(err)
	}
	wantArgs := []uint64{0xdeadbeef, ^uint64(4), 1<<40 + 3, ^uint64(6), 0x3fc00000, 0x4002000000000000}
	for i := range wantArgs {
		if gotArgs[i] != wantArgs[i] {
			t.Errorf("argument %d arrived as %#x, want %#x", i, gotArgs[i], wantArgs[i])
		}
	}

	// Dynamic shared memory above 48 KiB: refused without the opt-in,
	// works with it.
	optin := d.Facts().SharedOptin
	if optin > 48<<10 {
		words := uint32(optin / 4)
		err := bigshared.Launch(gpu.Dim3{X: 1}, gpu.Dim3{X: 256}, uint32(optin), out, words)
		var lerr *LaunchError
		if !errors.As(err, &lerr) || lerr.Kernel != "bigshared" {
			t.Errorf("launch over 48 KiB without opt-in: %v, want a LaunchError naming bigshared", err)
		}
		if err := bigshared.SetMaxDynamicShared(optin); err != nil {
			t.Fatal(err)
		}
		if err := bigshared.Launch(gpu.Dim3{X: 1}, gpu.Dim3{X: 256}, uint32(optin), out, words); err != nil {
			t.Fatal(err)
		}
		last := make([]uint32, 1)
		if err := gpu.ReadSlice(out, 0, last); err != nil || last[0] != words-1 {
			t.Errorf("bigshared wrote %d, want %d (%v)", last[0], words-1, err)
		}
	}

	// Launches from several goroutines (threads) share the context.
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := d.Alloc(4 * 1000)
			if err == nil {
				defer b.Free()
				err = b.Zero()
			}
			for i := 0; err == nil && i <= g; i++ {
				err = add1.Launch(gpu.Dim3{X: 4}, gpu.Dim3{X: 256}, 0, b, uint32(1000))
			}
			v := make([]uint32, 1000)
			if err == nil {
				err = gpu.ReadSlice(b, 0, v)
			}
			if err == nil && (v[0] != uint32(g+1) || v[999] != uint32(g+1)) {
				err = fmt.Errorf("goroutine %d: got %d, %d", g, v[0], v[999])
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
	if err := d.Synchronize(); err != nil {
		t.Fatal(err)
	}
}

// TestGPUStagedUpload: a write above stagedMin goes through the pinned
// staging buffers and arrives intact; its speed is logged beside the
// pageable path's.
func TestGPUStagedUpload(t *testing.T) {
	d := openGPU(t)
	n := uint64(stagedMin + stageChunk/2 + 4099)
	src := make([]byte, n)
	for i := range src {
		src[i] = byte(i*131 + i>>13)
	}
	buf, err := d.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	for _, staged := range []bool{false, true} {
		saved := stagedMin
		if !staged {
			stagedMin = n + 1
		}
		start := time.Now()
		err := buf.Write(0, unsafe.Pointer(&src[0]), n)
		el := time.Since(start)
		stagedMin = saved
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("staged %v: %d MiB in %v (%.1f GB/s)", staged, n>>20, el, float64(n)/el.Seconds()/1e9)
		back := make([]byte, n)
		if err := buf.Read(0, unsafe.Pointer(&back[0]), n); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back, src) {
			t.Fatalf("staged %v: the data read back differs", staged)
		}
	}
	// WriteFrom: the fill writes the staging buffers directly (twice: the
	// first run's time includes nothing the second lacks, the buffers exist).
	clear(src[:4096])
	for i := range 2 {
		start := time.Now()
		err := buf.(*Buffer).WriteFrom(0, n, func(dst []byte, pos uint64) error {
			copy(dst, src[pos:])
			return nil
		})
		el := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("WriteFrom run %d: %d MiB in %v (%.1f GB/s)", i+1, n>>20, el, float64(n)/el.Seconds()/1e9)
	}
	back := make([]byte, n)
	if err := buf.Read(0, unsafe.Pointer(&back[0]), n); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, src) {
		t.Fatal("WriteFrom: the data read back differs")
	}
}

// TestGPUGraph: a captured pass on a real GPU runs at each replay, not
// before; its timer's events are nodes of the graph, so they time the
// replay (a kernel that spins about 1 ms); a read while capturing is
// refused, and the device works on after it.
func TestGPUGraph(t *testing.T) {
	d := openGPU(t)
	f := d.Facts()
	img, err := newTestCompiler(t).Compile(gpu.CompileInput{Name: "gpu_test.cu", Source: testKernels, Arch: fmt.Sprintf("sm_%d%d", f.Major, f.Minor)})
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.Load(img)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unload()
	add1, err := m.Function("add1")
	if err != nil {
		t.Fatal(err)
	}
	spin, err := m.Function("spin")
	if err != nil {
		t.Fatal(err)
	}
	const n = 1000
	buf, err := d.Alloc(4 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	tm, err := d.NewTimer()
	if err != nil {
		t.Fatal(err)
	}
	defer tm.Close()
	read := func() []uint32 {
		t.Helper()
		got := make([]uint32, n)
		if err := gpu.ReadSlice(buf, 0, got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if err := gpu.WriteSlice(buf, 0, make([]uint32, n)); err != nil {
		t.Fatal(err)
	}
	cycles := int64(f.ClockMHz) * 1000 // about 1 ms at the reported clock
	if cycles <= 0 {
		cycles = 2_000_000
	}
	g, err := d.Capture(func() error {
		if err := buf.Zero(); err != nil {
			return err
		}
		if err := tm.Start(); err != nil {
			return err
		}
		if err := spin.Launch(gpu.Dim3{X: 1}, gpu.Dim3{X: 1}, 0, cycles); err != nil {
			return err
		}
		if err := add1.Launch(gpu.Dim3{X: 4}, gpu.Dim3{X: 256}, 0, buf, uint32(n)); err != nil {
			return err
		}
		return tm.Stop()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if got := read(); got[0] != 0 || got[n-1] != 0 {
		t.Fatalf("the capture ran its work: %d %d", got[0], got[n-1])
	}
	for i := range 3 {
		if err := gpu.WriteSlice(buf, 0, slices.Repeat([]uint32{9}, n)); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := g.Launch(); err != nil {
			t.Fatal(err)
		}
		ms, err := tm.Elapsed()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("replay %d: %.3f ms by the graph's events, %.3f ms on the host", i, ms, time.Since(start).Seconds()*1e3)
		if ms < 0.5 || ms > 50 {
			t.Errorf("replay %d: the graph's timer read %.3f ms around a 1 ms kernel", i, ms)
		}
		if got := read(); !slices.Equal(got, slices.Repeat([]uint32{1}, n)) {
			t.Errorf("replay %d: %v..., want all 1", i, got[:4])
		}
	}
	if _, err := d.Capture(func() error { return gpu.ReadSlice(buf, 0, make([]uint32, 4)) }); err == nil || !strings.Contains(err.Error(), "while capturing a graph") {
		t.Errorf("a read while capturing: %v, want it refused", err)
	}
	if err := add1.Launch(gpu.Dim3{X: 4}, gpu.Dim3{X: 256}, 0, buf, uint32(n)); err != nil {
		t.Fatal(err)
	}
	if got := read(); got[0] != 2 || got[n-1] != 2 {
		t.Errorf("a launch after the refused capture: %d %d, want 2", got[0], got[n-1])
	}
}
