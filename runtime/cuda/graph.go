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
	// cuStreamCaptureModeThreadLocal: calls that would wait on the device
	// (a copy to the host, a synchronize) fail on the capturing thread
	// instead of running out of order; other threads are left alone.
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

// Capture runs fn with the device's default-stream work (Function.Launch,
// Buffer.Zero, the events of timers on the default stream) recorded into a
// CUDA graph instead of run, and returns the graph ready to launch. fn must
// only queue such work: a call that waits on the device fails the capture,
// and then nothing fn queued has run. The goroutine stays on one thread
// throughout (the capture is the thread's).
func (d *Device) Capture(fn func() error) (gpu.Replay, error) {
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
	d.capture.Store(uintptr(d.graphStream))
	ferr := fn()
	d.capture.Store(0)
	gr := &Graph{d: d}
	if err := d.drv.cuStreamEndCapture(d.graphStream, &gr.g); err != nil || ferr != nil {
		if gr.g != 0 {
			_ = d.drv.cuGraphDestroy(gr.g)
		}
		return nil, errors.Join(ferr, wrapErr("ending a capture", err))
	}
	if err := d.drv.cuGraphInstantiateWithFlags(&gr.exec, gr.g, 0); err != nil {
		_ = d.drv.cuGraphDestroy(gr.g)
		return nil, fmt.Errorf("cuda: instantiating a captured graph: %w", err)
	}
	return gr, nil
}

// wrapErr names what failed, nil for nil.
func wrapErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("cuda: %s: %w", what, err)
}

// defaultStream is where default-stream work goes now: the capture's
// stream while a Capture runs, else the legacy default stream.
func (d *Device) defaultStream() cuStream { return cuStream(d.capture.Load()) }

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
