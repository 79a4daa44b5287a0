package cuda

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// TestFakeDriverStreams: a stream's copies, zeroings, launches, records
// and waits reach the driver on that stream, with the data they carry;
// its timers record there; Pin pins read-only until unpinned, and Close
// destroys the streams.
func TestFakeDriverStreams(t *testing.T) {
	f := useFakeDriver(t)
	d, add1 := openFakeAdd1(t)
	last := func() uintptr { r, _, _ := purego.SyscallN(f.lastStream); return r }
	s, err := d.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	e, err := d.NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	h := uintptr(s.(*Stream).s)
	buf, _ := d.Alloc(4 * 8)
	src := []uint32{1, 2, 3, 4, 5, 6, 7, 8}
	unpin, err := d.Pin(unsafe.Pointer(&src[0]), 32)
	if err != nil || f.count(f.registered) != 1 {
		t.Fatalf("pin: %v, %d ranges pinned", err, f.count(f.registered))
	}
	steps := []struct {
		what string
		do   func() error
	}{
		{"zero", func() error { return s.Zero(buf) }},
		{"write", func() error { return s.Write(buf, 4, unsafe.Pointer(&src[0]), 8) }},
		{"launch", func() error { return s.Launch(add1, gpu.Dim3{X: 1}, gpu.Dim3{X: 32}, 0, buf, uint32(4)) }},
		{"record", func() error { return s.Record(e) }},
		{"wait", func() error { return s.Wait(e) }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.what, err)
		}
		if last() != h {
			t.Errorf("%s went to stream %#x, want %#x", st.what, last(), h)
		}
	}
	tm, err := s.NewTimer()
	if err != nil {
		t.Fatal(err)
	}
	if err := tm.Start(); err != nil || last() != h {
		t.Errorf("timer start: %v on stream %#x, want %#x", err, last(), h)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	got := make([]uint32, 8)
	if err := gpu.ReadSlice(buf, 0, got); err != nil {
		t.Fatal(err)
	}
	if want := []uint32{1, 2, 3, 1, 0, 0, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("buffer %v, want %v", got, want)
	}
	if err := s.Write(buf, 28, unsafe.Pointer(&src[0]), 8); err == nil {
		t.Error("a copy past the buffer's end was queued")
	}
	if err := unpin(); err != nil || f.count(f.registered) != 0 {
		t.Errorf("unpin: %v, %d ranges pinned", err, f.count(f.registered))
	}
	for _, c := range []interface{ Close() error }{tm, e, s, s} { // twice: a no-op
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.count(f.liveStreams); n != 0 {
		t.Errorf("%d streams live after Close", n)
	}
}
