package gpu

import "unsafe"

// Streams is a Device that queues work on streams of its own, so that a
// copy on one stream runs while kernels run on another; events order them.
// A device without it gets Serial, which runs everything on the default
// stream in the order it is queued.
type Streams interface {
	NewStream() (Stream, error)
	NewEvent() (Event, error)
	// Pin page-locks the host memory [p, p+n), so that copies from it run
	// asynchronously; unpin undoes it. The memory must stay allocated until
	// unpin.
	Pin(p unsafe.Pointer, n uint64) (unpin func() error, err error)
}

// Stream is a queue of device work run in order. Its streams also wait
// for the default stream's work queued before theirs, and the default
// stream's for theirs (Buffer.Read and Timer.Elapsed see it done).
type Stream interface {
	// Write queues a copy of n bytes of host memory at src to dst at off;
	// src must stay unchanged until the stream has run the copy.
	Write(dst Buffer, off uint64, src unsafe.Pointer, n uint64) error
	// Launch queues fn as Function.Launch does.
	Launch(fn Function, grid, block Dim3, sharedBytes uint32, args ...any) error
	// Zero queues zeroing b.
	Zero(b Buffer) error
	// Record queues e: it completes when the stream reaches it.
	Record(e Event) error
	// Wait makes the stream's later work wait for e's last Record queued
	// before this call.
	Wait(e Event) error
	// NewTimer is a Timer whose events are recorded on the stream.
	NewTimer() (Timer, error)
	Synchronize() error
	Close() error
}

// Event orders work of different streams.
type Event interface{ Close() error }

// StreamsOf is dev's streams, or Serial's when it has none.
func StreamsOf(dev Device) Streams {
	if s, ok := dev.(Streams); ok {
		return s
	}
	return Serial{Dev: dev}
}

// Serial runs a Stream's work on Dev as it is queued: an order every
// event already allows, with nothing overlapped.
type Serial struct{ Dev Device }

type serialStream struct{ dev Device }
type serialEvent struct{}

func (s Serial) NewStream() (Stream, error) { return serialStream{s.Dev}, nil }
func (Serial) NewEvent() (Event, error)     { return serialEvent{}, nil }
func (Serial) Pin(unsafe.Pointer, uint64) (func() error, error) {
	return func() error { return nil }, nil
}

func (s serialStream) Write(dst Buffer, off uint64, src unsafe.Pointer, n uint64) error {
	if n == 0 {
		return nil
	}
	return dst.Write(off, src, n)
}
func (s serialStream) Launch(fn Function, grid, block Dim3, sharedBytes uint32, args ...any) error {
	return fn.Launch(grid, block, sharedBytes, args...)
}
func (s serialStream) Zero(b Buffer) error      { return b.Zero() }
func (serialStream) Record(Event) error         { return nil }
func (serialStream) Wait(Event) error           { return nil }
func (s serialStream) NewTimer() (Timer, error) { return s.dev.NewTimer() }
func (s serialStream) Synchronize() error       { return s.dev.Synchronize() }
func (serialStream) Close() error               { return nil }
func (serialEvent) Close() error                { return nil }
