package executor_test

import (
	"context"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/graph"
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
