package cuda

import (
	"errors"
	"fmt"
	goruntime "runtime"

	"github.com/tcgen/tcgen/runtime/gpu"
)

// A pass's kernels launched one call at a time leave the GPU waiting on
// the host between short kernels (4-5 us a launch on an H200, against
// 0.6 us inside a graph: scripts/launch-floor.cu). Capture records the
// pass once and Graph replays it with one launch.

const (
	// cuStreamNonBlocking: the capture stream takes no implicit order
	// from the legacy default stream, whose work a capture must not join.
	cuStreamNonBlocking = 1
	// cuStreamCaptureModeThreadLocal: the capture leaves other threads'
	// calls alone. The driver runs a copy or memset on the legacy stream
	// from the capturing thread at once, not at the replay: the device
	// refuses those itself (enterNow).
	cuStreamCaptureModeThreadLocal cuStreamCaptureMode = 1
	// cuEventRecordExternal: a timer's event recorded during a capture
	// becomes a node of the graph, recorded at each replay.
	cuEventRecordExternal = 1
)

var _ gpu.Capturer = (*Device)(nil)

// Graph is a captured pass (gpu.Replay).
type Graph struct {
	d    *Device
	g    cuGraph
	exec cuGraphExec
}

// Capture runs fn with the default-stream work it queues (Function.Launch,
// Buffer.Zero, the events of timers on the default stream) recorded into a
// CUDA graph instead of run, and returns the graph ready to launch. Only
// fn's goroutine is captured; it stays on one thread throughout. What would
// run at once instead (a copy, a fill, a synchronize, a timer's read, a
// stream's work) fails with an error, and the capture with it: nothing fn
// queued has run then. One Capture runs at a time on a device.
func (d *Device) Capture(fn func() error) (gpu.Replay, error) {
	if !threadIDs {
		return nil, fmt.Errorf("cuda: graph capture needs the thread ids of Linux")
	}
	d.captureMu.Lock()
	defer d.captureMu.Unlock()
	goruntime.LockOSThread() // held across fn's own enter and leave
	defer goruntime.UnlockOSThread()
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	if d.graphStream == 0 {
		if err := d.drv.cuStreamCreate(&d.graphStream, cuStreamNonBlocking); err != nil {
			return nil, fmt.Errorf("cuda: creating the capture stream: %w", err)
		}
	}
	if err := d.drv.cuStreamBeginCapture(d.graphStream, cuStreamCaptureModeThreadLocal); err != nil {
		return nil, fmt.Errorf("cuda: starting a capture: %w", err)
	}
	d.captureTID.Store(threadID())
	gr := &Graph{d: d}
	var ferr, eerr error
	func() {
		d.capture.Store(uintptr(d.graphStream))
		defer func() { // also where fn panics: the stream leaves capture all the same
			d.capture.Store(0)
			if err := d.drv.cuStreamEndCapture(d.graphStream, &gr.g); err != nil {
				eerr = fmt.Errorf("cuda: ending a capture: %w", err)
			}
		}()
		ferr = fn()
	}()
	if ferr != nil || eerr != nil {
		if gr.g != 0 {
			_ = d.drv.cuGraphDestroy(gr.g)
		}
		return nil, errors.Join(ferr, eerr)
	}
	if err := d.drv.cuGraphInstantiateWithFlags(&gr.exec, gr.g, 0); err != nil {
		_ = d.drv.cuGraphDestroy(gr.g)
		return nil, fmt.Errorf("cuda: instantiating a captured graph: %w", err)
	}
	return gr, nil
}

// defaultStream is where default-stream work of the calling thread goes
// now: the capture's stream on the thread of a Capture, else the legacy
// default stream. Callers hold enter (their thread is locked).
func (d *Device) defaultStream() cuStream {
	if s := d.capture.Load(); s != 0 && d.captureTID.Load() == threadID() {
		return cuStream(s)
	}
	return 0
}

// enterNow is enter for work that runs when called (copies, fills,
// synchronizations, reads of timers, other streams' work): refused on the
// thread of a Capture, where it would run out of the replay's order.
func (d *Device) enterNow(op string) error {
	if err := d.enter(); err != nil {
		return err
	}
	if d.defaultStream() != 0 {
		d.leave()
		return fmt.Errorf("cuda: %s while capturing a graph (it would run now, not when the graph runs)", op)
	}
	return nil
}

// Launch queues the captured work on the default stream.
func (g *Graph) Launch() error {
	if g.exec == 0 {
		return fmt.Errorf("cuda: launching a closed graph")
	}
	if err := g.d.enter(); err != nil {
		return err
	}
	defer g.d.leave()
	return g.d.drv.cuGraphLaunch(g.exec, 0)
}

// Close frees the graph. It may be called more than once.
func (g *Graph) Close() error {
	if g.exec == 0 {
		return nil
	}
	if err := g.d.enter(); err != nil {
		return err
	}
	defer g.d.leave()
	err := errors.Join(g.d.drv.cuGraphExecDestroy(g.exec), g.d.drv.cuGraphDestroy(g.g))
	g.exec, g.g = 0, 0
	return err
}
