package executor_test

import (
	"fmt"
	"unsafe"

	"github.com/tcgen/tcgen/runtime/gpu"
)

// The fake device's streams (gpu.Streams): each stream queues its work,
// and the queues run only when the default stream needs them done (a
// read, a launch or a zeroing outside the streams, Synchronize). They run
// then in an order the events allow that is as bad as it can be for a
// missing wait: the stream d.prefer names runs whenever its next work may,
// so a copy stream preferred runs as far ahead of the counts as its waits
// let it, and a compute stream preferred counts whatever is in the window.

type fakeStream struct {
	d   *fakeDevice
	id  int
	ops []fakeOp
}

// fakeOp is one queued piece of work; ready, when set, says whether it
// may run yet (a wait).
type fakeOp struct {
	what  string
	ready func() bool
	run   func() error
}

// fakeEvent counts the Records queued and run.
type fakeEvent struct{ issued, done int }

func (e *fakeEvent) Close() error { return nil }

func (d *fakeDevice) NewStream() (gpu.Stream, error) {
	defer d.lock()()
	s := &fakeStream{d: d, id: len(d.streams)}
	d.streams = append(d.streams, s)
	return s, nil
}

func (d *fakeDevice) NewEvent() (gpu.Event, error) { return &fakeEvent{}, nil }

func (d *fakeDevice) Pin(p unsafe.Pointer, n uint64) (func() error, error) {
	defer d.lock()()
	d.pinned += n
	return func() error { defer d.lock()(); d.pinned -= n; return nil }, nil
}

// drain runs the queued work of every stream; an error (or a panic of a
// kernel reading what no copy put there) is returned once.
func (d *fakeDevice) drain() (err error) {
	if d.draining {
		return nil
	}
	d.draining = true
	defer func() {
		d.draining = false
		if r := recover(); r != nil {
			err = fmt.Errorf("fake streams: %v", r)
		}
		if err != nil {
			for _, s := range d.streams {
				s.ops = nil
			}
		}
	}()
	for {
		s, left := d.nextStream()
		if s == nil {
			if left > 0 {
				return fmt.Errorf("fake streams: %d queued pieces of work wait forever", left)
			}
			return nil
		}
		op := s.ops[0]
		s.ops = s.ops[1:]
		d.ran = append(d.ran, fmt.Sprintf("%d %s", s.id, op.what))
		if op.run != nil {
			if err := op.run(); err != nil {
				return fmt.Errorf("fake stream %d: %s: %w", s.id, op.what, err)
			}
		}
	}
}

// nextStream is the stream whose next work runs, d.prefer's first, and
// the pieces of work queued.
func (d *fakeDevice) nextStream() (*fakeStream, int) {
	left := 0
	var pick *fakeStream
	for i := range d.streams {
		s := d.streams[(d.prefer+i)%len(d.streams)]
		left += len(s.ops)
		if pick == nil && len(s.ops) > 0 && (s.ops[0].ready == nil || s.ops[0].ready()) {
			pick = s
		}
	}
	return pick, left
}

func (s *fakeStream) queue(what string, run func() error) error {
	defer s.d.lock()()
	s.ops = append(s.ops, fakeOp{what: what, run: run})
	return nil
}

func (s *fakeStream) Write(dst gpu.Buffer, off uint64, src unsafe.Pointer, n uint64) error {
	b := dst.(*fakeBuf)
	if off+n > uint64(len(b.data)) {
		return fmt.Errorf("fake: a stream copy of %d bytes at %d past a buffer of %d", n, off, len(b.data))
	}
	return s.queue(fmt.Sprintf("write %d %d+%d", b.addr, off, n), func() error {
		copy(b.data[off:off+n], unsafe.Slice((*byte)(src), n)) // src as it is now: it must not have changed
		return nil
	})
}

func (s *fakeStream) Launch(fn gpu.Function, grid, block gpu.Dim3, shared uint32, args ...any) error {
	return s.queue("launch "+fn.Name(), func() error { return fn.(*fakeFunc).launch(grid, block, shared, args...) })
}

func (s *fakeStream) Zero(b gpu.Buffer) error {
	return s.queue("zero", func() error { clear(b.(*fakeBuf).data); return nil })
}

func (s *fakeStream) Record(e gpu.Event) error {
	ev := e.(*fakeEvent)
	s.d.mu.Lock()
	ev.issued++
	s.d.mu.Unlock()
	return s.queue("record", func() error { ev.done++; return nil })
}

func (s *fakeStream) Wait(e gpu.Event) error {
	defer s.d.lock()()
	ev := e.(*fakeEvent)
	target := ev.issued
	if s.d.noWait[s.id] { // a stream that ignores its waits (the tests' broken schedule)
		return nil
	}
	s.ops = append(s.ops, fakeOp{what: "wait", ready: func() bool { return ev.done >= target }})
	return nil
}

func (s *fakeStream) NewTimer() (gpu.Timer, error) { return s.d.NewTimer() }
func (s *fakeStream) Synchronize() error           { return s.d.Synchronize() }
func (s *fakeStream) Close() error                 { return s.d.Synchronize() }
