package executor_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// capturingFake is the fake device with gpu.Capturer: a capture records
// the launches, zeroings and timer events fn queues, and each replay runs
// them, as a CUDA graph does; a read while capturing fails the capture.
// With refuse set, a capture records what fn queues, then fails with it
// (as a call the device refuses while capturing would), and nothing ran.
type capturingFake struct {
	*fakeDevice
	refuse error
}

func (c capturingFake) Capture(fn func() error) (gpu.Replay, error) {
	var ops []func() error
	c.mu.Lock()
	c.rec = &ops
	c.mu.Unlock()
	err := fn()
	c.mu.Lock()
	c.rec = nil
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if c.refuse != nil {
		return nil, c.refuse
	}
	return &fakeReplay{d: c.fakeDevice, ops: ops}, nil
}

type fakeReplay struct {
	d   *fakeDevice
	ops []func() error
}

func (r *fakeReplay) Launch() error {
	defer r.d.lock()()
	r.d.replays++
	for _, op := range r.ops {
		if err := op(); err != nil {
			return err
		}
	}
	return nil
}
func (r *fakeReplay) Close() error { return nil }

// recorded adds op to the capture in progress, if any (d.mu held).
func (d *fakeDevice) recorded(op func() error) bool {
	if d.rec == nil {
		return false
	}
	*d.rec = append(*d.rec, op)
	return true
}

// TestExecFakeGraph: with a device that captures, the passes after the
// first replay its launches (as many as a device without it runs, the same
// count), but for the plans whose families read the device mid-pass; one
// timed pass, or NoGraph, captures nothing; a capture that fails leaves
// the launches, and the result says why; without warm-ups every pass is
// replayed.
func TestExecFakeGraph(t *testing.T) {
	graphs := map[string]graph.Generator{
		"rmat10": graph.DefaultRMAT(10),
		"er":     graph.ErdosRenyi{N: 300, M: 6000, Seed: 3},
	}
	plans := append(generatablePresets(), specPlans()...)
	var replayed, radixes int
	for name, gen := range graphs {
		g, _, err := graph.Generate(gen)
		if err != nil {
			t.Fatal(err)
		}
		want := graph.Oracle(g)
		for _, p := range plans {
			run := func(opt executor.RunOptions, capture bool, refuse ...error) (*executor.Result, *fakeDevice) {
				t.Helper()
				d := newFakeDevice(t, p, 1<<40)
				var dev gpu.Device = d
				if capture {
					c := capturingFake{fakeDevice: d}
					if len(refuse) > 0 {
						c.refuse = refuse[0]
					}
					dev = c
				}
				res, err := executor.Run(context.Background(), dev, &fakeCompiler{}, p, g, opt)
				if err != nil {
					t.Fatalf("%s on %s: %v", p.Prefix, name, err)
				}
				if res.Triangles != want {
					t.Errorf("%s on %s: %d triangles, want %d", p.Prefix, name, res.Triangles, want)
				}
				return res, d
			}
			opt := executor.RunOptions{Repeat: 3, Warmup: 1}
			res, d := run(opt, true)
			_, plain := run(opt, false)
			radix := hasRadix(res)
			if radix {
				radixes++
			} else {
				replayed++
			}
			switch {
			case radix && (res.Graph || !strings.Contains(res.GraphError, "wedge/radix")):
				t.Errorf("%s on %s: a radix plan replayed (graph %v, %q)", p.Prefix, name, res.Graph, res.GraphError)
			case !radix && (!res.Graph || res.GraphError != "" || d.replays != 3):
				t.Errorf("%s on %s: graph %v (%q), %d replays, want 3", p.Prefix, name, res.Graph, res.GraphError, d.replays)
			}
			if len(d.launch) != len(plain.launch) {
				t.Errorf("%s on %s: %d launches with replays, %d without", p.Prefix, name, len(d.launch), len(plain.launch))
			}
			for _, o := range []executor.RunOptions{{Repeat: 1, Warmup: 1}, {Repeat: 3, NoGraph: true}} {
				if res, d := run(o, true); res.Graph || d.replays != 0 {
					t.Errorf("%s on %s, %+v: replayed %d passes", p.Prefix, name, o, d.replays)
				}
			}
			if radix {
				continue
			}
			if res, d := run(opt, true, errors.New("refused")); res.Graph || res.GraphError != "refused" || d.replays != 0 || len(d.launch) != len(plain.launch) {
				t.Errorf("%s on %s, a refused capture: graph %v (%q), %d replays, %d launches (want %d)", p.Prefix, name, res.Graph, res.GraphError, d.replays, len(d.launch), len(plain.launch))
			}
			_, plain3 := run(executor.RunOptions{Repeat: 3}, false)
			if res, d := run(executor.RunOptions{Repeat: 3}, true); !res.Graph || d.replays != 3 || res.Pass.Passes != 3 || len(d.launch) != len(plain3.launch) {
				t.Errorf("%s on %s without warm-ups: graph %v, %d replays, %d passes, %d launches; want 3 passes replayed", p.Prefix, name, res.Graph, d.replays, res.Pass.Passes, len(d.launch))
			}
		}
	}
	if replayed == 0 || radixes == 0 {
		t.Errorf("%d runs replayed, %d radix runs: the test needs both", replayed, radixes)
	}
	t.Logf("%d runs replayed, %d radix runs not", replayed, radixes)
}

// hasRadix reports whether the run's variant launched wedge/radix classes.
func hasRadix(res *executor.Result) bool {
	for _, c := range res.PerClass {
		if !c.Skip && c.Iterator == ir.IterWedge && c.Intersection == ir.Radix {
			return true
		}
	}
	return false
}
