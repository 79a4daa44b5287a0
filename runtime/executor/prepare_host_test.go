package executor_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
)

// TestPrepareHostFake: the host's part prepared before the device is open
// (as count runs it while the driver makes the context), then finished on
// the device, counts what the CPU oracle counts with one compile, ahead,
// and leaves nothing allocated; a device with other facts and a second
// finish are refused.
func TestPrepareHostFake(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(10))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	ctx := context.Background()
	for _, p := range append(generatablePresets(), specPlans()...) {
		d := newFakeDevice(t, p, 1<<40)
		comp := &fakeCompiler{}
		hp, err := executor.PrepareHost(ctx, d.Facts(), comp, p, g, executor.RunOptions{})
		if err != nil {
			t.Fatalf("%s: %v", p.Prefix, err)
		}
		if n := comp.calls.Load(); n != 1 || d.loaded != 0 || len(d.live) != 0 {
			t.Fatalf("%s: before the device: %d compiles, %d modules, %d buffers; want 1, 0, 0", p.Prefix, n, d.loaded, len(d.live))
		}
		pr, err := hp.OnDevice(d)
		if err != nil {
			t.Fatalf("%s: %v", p.Prefix, err)
		}
		res, err := pr.Run(ctx, executor.RunOptions{Repeat: 1})
		if err != nil {
			t.Fatalf("%s: %v", p.Prefix, err)
		}
		if res.Triangles != want {
			t.Errorf("%s: %d triangles, want %d", p.Prefix, res.Triangles, want)
		}
		if err := pr.Close(); err != nil {
			t.Fatal(err)
		}
		if len(d.live) != 0 || d.loaded != 0 || d.timers != 0 || comp.calls.Load() != 1 {
			t.Errorf("%s: %d buffers, %d modules, %d timers left; %d compiles", p.Prefix, len(d.live), d.loaded, d.timers, comp.calls.Load())
		}
		if _, err := hp.OnDevice(d); err == nil {
			t.Errorf("%s: finished twice", p.Prefix)
		}
	}
	p := specPlans()[0]
	d := newFakeDevice(t, p, 1<<40)
	facts := d.Facts()
	facts.SMs++
	hp, err := executor.PrepareHost(ctx, facts, &fakeCompiler{}, p, g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hp.OnDevice(d); err == nil || !strings.Contains(err.Error(), "prepared for fake (5 SMs), run on fake (4 SMs)") {
		t.Errorf("another device's facts: %v", err)
	}
}

// TestPrepareHostFakeWait: the wait between the host's part and the
// device's (the context being made) is in no phase of the preparation, and
// a plan the device cannot hold is refused on it before anything is
// allocated or loaded.
func TestPrepareHostFakeWait(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(10))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	p, _ := ir.Preset("polak")
	d := newFakeDevice(t, p, 1<<40)
	hp, err := executor.PrepareHost(ctx, d.Facts(), &fakeCompiler{}, p, g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const wait = 100 * time.Millisecond
	time.Sleep(wait)
	pr, err := hp.OnDevice(d)
	if err != nil {
		t.Fatal(err)
	}
	res, err := pr.Run(ctx, executor.RunOptions{Repeat: 1})
	if err != nil {
		t.Fatal(err)
	}
	pr.Close()
	var sum float64
	for _, ph := range res.Phases {
		sum += ph.Ms
	}
	if sum >= float64(wait.Milliseconds()) {
		t.Errorf("the phases hold the wait for the device: %.1f ms in all, %+v", sum, res.Phases)
	}
	small := newFakeDevice(t, p, 256<<20+1<<10) // the headroom and 1 KiB: less than the graph
	hp, err = executor.PrepareHost(ctx, small.Facts(), &fakeCompiler{}, p, g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = hp.OnDevice(small)
	if !errors.Is(err, executor.ErrTooLarge) || small.allocs != 0 || small.loaded != 0 {
		t.Errorf("too large: %v, %d allocations, %d modules; want ErrTooLarge and none", err, small.allocs, small.loaded)
	}
}
