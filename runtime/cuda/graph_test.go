package cuda

import (
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/runtime/gpu"
)

// TestFakeDriverCapture: what Capture records (the zeroing, the timer's
// events, the launches) runs at each Launch and not before; default-stream
// work runs at once again after it; a capture whose function would run
// work at once (a read, a stream's copy) fails with nothing run; another
// goroutine's work meanwhile runs at once.
func TestFakeDriverCapture(t *testing.T) {
	fd := useFakeDriver(t)
	d, add1 := openFakeAdd1(t)
	buf, err := d.Alloc(4 * 8)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := d.NewTimer()
	if err != nil {
		t.Fatal(err)
	}
	defer tm.Close()
	fill := func(v uint32) {
		t.Helper()
		if err := gpu.WriteSlice(buf, 0, slices.Repeat([]uint32{v}, 8)); err != nil {
			t.Fatal(err)
		}
	}
	read := func() []uint32 {
		t.Helper()
		got := make([]uint32, 8)
		if err := gpu.ReadSlice(buf, 0, got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := func(what string, v uint32) {
		t.Helper()
		if got := read(); !slices.Equal(got, slices.Repeat([]uint32{v}, 8)) {
			t.Errorf("%s: %v, want all %d", what, got, v)
		}
	}
	launch := func() error { return add1.Launch(gpu.Dim3{X: 1}, gpu.Dim3{X: 8}, 0, buf, uint32(8)) }

	fill(5)
	g, err := d.Capture(func() error {
		if err := buf.Zero(); err != nil {
			return err
		}
		if err := tm.Start(); err != nil {
			return err
		}
		if err := launch(); err != nil {
			return err
		}
		if err := launch(); err != nil {
			return err
		}
		return tm.Stop()
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := fd.count(fd.lastGraphOps); n != 5 {
		t.Errorf("the graph holds %d operations, want 5 (zero, start, two launches, stop)", n)
	}
	want("after the capture", 5)
	for range 2 {
		fill(7)
		if err := g.Launch(); err != nil {
			t.Fatal(err)
		}
		want("after a launch", 2)
		if ms, err := tm.Elapsed(); err != nil || ms < 0 {
			t.Errorf("timer in the graph: %v ms, %v", ms, err)
		}
	}
	if err := launch(); err != nil {
		t.Fatal(err)
	}
	want("a launch after the capture", 3)

	// A read inside the capture fails it; what it queued before never runs.
	_, err = d.Capture(func() error {
		if err := launch(); err != nil {
			return err
		}
		return gpu.ReadSlice(buf, 0, make([]uint32, 8))
	})
	if err == nil || !strings.Contains(err.Error(), "while capturing a graph") {
		t.Errorf("a read while capturing: %v, want it refused", err)
	}
	want("after a failed capture", 3)
	st, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for what, op := range map[string]func() error{
		"a stream's zeroing": func() error { return st.Zero(buf) },
		"a stream's launch":  func() error { return st.Launch(add1, gpu.Dim3{X: 1}, gpu.Dim3{X: 8}, 0, buf, uint32(8)) },
		"a synchronize":      d.Synchronize,
		"a timer's read":     func() error { _, err := tm.Elapsed(); return err },
	} {
		if _, err := d.Capture(op); err == nil || !strings.Contains(err.Error(), "while capturing a graph") {
			t.Errorf("%s while capturing: %v, want it refused", what, err)
		}
	}
	want("after the refused captures", 3)

	// Another goroutine's default-stream work runs at once during a capture.
	done := make(chan error)
	empty, err := d.Capture(func() error {
		go func() { done <- launch() }()
		return <-done
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := empty.Launch(); err != nil {
		t.Fatal(err)
	}
	empty.Close()
	want("another goroutine's launch during a capture", 4)
	if err := launch(); err != nil {
		t.Fatal(err)
	}
	want("a launch after the failed capture", 5)

	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := g.Launch(); err == nil {
		t.Error("a closed graph launched")
	}
}
