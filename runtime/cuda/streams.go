package cuda

import (
	"fmt"
	"unsafe"

	"github.com/tcgen/tcgen/runtime/gpu"
)

// Streams of the device's own (gpu.Streams): a count in partitions copies
// the next chunk on one while the kernels count the last on another. They
// are blocking streams (flag 0), so work on the default stream (a timer
// around a pass, a read of its sum) waits for theirs and theirs for it.

var _ gpu.Streams = (*Device)(nil)

// cuMemHostRegisterReadOnly: the pinned memory is only read by copies to
// the device, and a read-only mapping (a cached graph file) can be pinned
// only so.
const cuMemHostRegisterReadOnly = 0x08

// Stream is a CUDA stream. It implements gpu.Stream.
type Stream struct {
	d *Device
	s cuStream
}

// Event is an event that only orders (no timing). It implements gpu.Event.
type Event struct {
	d  *Device
	ev cuEvent
}

// NewStream creates a stream.
func (d *Device) NewStream() (gpu.Stream, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	st := &Stream{d: d}
	if err := d.drv.cuStreamCreate(&st.s, 0); err != nil {
		return nil, fmt.Errorf("cuda: creating a stream: %w", err)
	}
	return st, nil
}

// NewEvent creates an event without timing.
func (d *Device) NewEvent() (gpu.Event, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	e := &Event{d: d}
	if err := d.drv.cuEventCreate(&e.ev, cuEventDisableTiming); err != nil {
		return nil, fmt.Errorf("cuda: creating an event: %w", err)
	}
	return e, nil
}

// Pin page-locks [p, p+n) read-only for copies to the device.
func (d *Device) Pin(p unsafe.Pointer, n uint64) (func() error, error) {
	if n == 0 {
		return func() error { return nil }, nil
	}
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	if err := d.drv.cuMemHostRegister(p, n, cuMemHostRegisterReadOnly); err != nil {
		return nil, fmt.Errorf("cuda: pinning %d bytes of host memory: %w", n, err)
	}
	return func() error {
		if err := d.enter(); err != nil {
			return err
		}
		defer d.leave()
		return d.drv.cuMemHostUnregister(p)
	}, nil
}

// do runs fn inside enter.
func (s *Stream) do(fn func() error) error {
	if err := s.d.enterNow("a stream's work"); err != nil {
		return err
	}
	defer s.d.leave()
	return fn()
}

// Write queues a copy from host memory; it overlaps other streams' work
// only from pinned memory (Pin), and src must stay unchanged until it ran.
func (s *Stream) Write(dst gpu.Buffer, off uint64, src unsafe.Pointer, n uint64) error {
	b, ok := dst.(*Buffer)
	if !ok {
		return fmt.Errorf("cuda: a stream copy to a %T", dst)
	}
	if err := b.span("write", off, n); err != nil || n == 0 {
		return err
	}
	return s.do(func() error { return s.d.drv.cuMemcpyHtoDAsync(b.ptr+off, src, n, s.s) })
}

// Launch queues fn, a *Function, on the stream.
func (s *Stream) Launch(fn gpu.Function, grid, block gpu.Dim3, sharedBytes uint32, args ...any) error {
	f, ok := fn.(*Function)
	if !ok {
		return fmt.Errorf("cuda: a stream launch of a %T", fn)
	}
	return f.launchOn(s.s, grid, block, sharedBytes, args...)
}

// Zero queues zeroing b.
func (s *Stream) Zero(buf gpu.Buffer) error {
	b, ok := buf.(*Buffer)
	if !ok {
		return fmt.Errorf("cuda: a stream zeroing a %T", buf)
	}
	if err := b.span("zero", 0, b.size); err != nil || b.size == 0 {
		return err
	}
	return s.do(func() error { return s.d.drv.cuMemsetD8Async(b.ptr, 0, b.size, s.s) })
}

// Record queues e.
func (s *Stream) Record(e gpu.Event) error {
	ev, ok := e.(*Event)
	if !ok {
		return fmt.Errorf("cuda: recording a %T", e)
	}
	return s.do(func() error { return s.d.drv.cuEventRecord(ev.ev, s.s) })
}

// Wait makes the stream wait for e.
func (s *Stream) Wait(e gpu.Event) error {
	ev, ok := e.(*Event)
	if !ok {
		return fmt.Errorf("cuda: waiting for a %T", e)
	}
	return s.do(func() error { return s.d.drv.cuStreamWaitEvent(s.s, ev.ev, 0) })
}

// NewTimer is a timer on the stream.
func (s *Stream) NewTimer() (gpu.Timer, error) { return s.d.newTimer(s.s) }

// Synchronize waits for the stream's work.
func (s *Stream) Synchronize() error {
	return s.do(func() error { return s.d.drv.cuStreamSynchronize(s.s) })
}

// Close destroys the stream (its queued work still runs). It may be
// called more than once.
func (s *Stream) Close() error {
	if s.s == 0 {
		return nil
	}
	err := s.do(func() error { return s.d.drv.cuStreamDestroy(s.s) })
	s.s = 0
	return err
}

// Close destroys the event. It may be called more than once.
func (e *Event) Close() error {
	if e.ev == 0 {
		return nil
	}
	if err := e.d.enter(); err != nil {
		return err
	}
	defer e.d.leave()
	err := e.d.drv.cuEventDestroy(e.ev)
	e.ev = 0
	return err
}
