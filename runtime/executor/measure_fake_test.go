package executor_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// fakeL2 is the fake device's L2 size: 1 MiB, so a flush buffer (twice
// that) is cheap to allocate in host memory.
const fakeL2 = 1 << 20

// TestRunFlushL2: with FlushL2 the timing routine writes a buffer of twice
// the L2 before each timed pass, never before a warm-up, never while a
// timer runs, and each flush is followed by one whole pass (the call order
// the fake device logs); the result says so. Without it nothing is
// flushed. Counts stay the oracle's.
func TestRunFlushL2(t *testing.T) {
	p, _ := ir.Preset("polak")
	g, _, err := graph.Generate(graph.DefaultRMAT(8))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	d := newFakeDevice(t, p, 1<<40)
	pr, err := executor.Prepare(context.Background(), d, &fakeCompiler{}, p, g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const warm, passes = 2, 4
	flush := fmt.Sprintf("zero %d", 2*fakeL2)
	d.events = nil
	res, err := pr.Run(context.Background(), executor.RunOptions{Warmup: warm, Repeat: passes, FlushL2: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Triangles != want {
		t.Errorf("%d triangles, want %d", res.Triangles, want)
	}
	// Split the log at the flushes: the timer starts before the first
	// flush are the warm-ups', then one pass's between flushes and after
	// the last.
	var starts []int // timer starts per segment
	cur, flushes := 0, 0
	for _, e := range d.events {
		switch {
		case strings.HasPrefix(e, flush):
			if e != flush+" running 0" {
				t.Errorf("flush while a timer runs: %q", e)
			}
			flushes++
			starts, cur = append(starts, cur), 0
		case e == "start":
			cur++
		}
	}
	starts = append(starts, cur)
	if flushes != passes {
		t.Fatalf("%d flushes of %d bytes, want %d (one per timed pass): %v", flushes, 2*fakeL2, passes, d.events)
	}
	per := starts[1]
	if per == 0 || starts[0] != warm*per {
		t.Errorf("timer starts per segment %v: want %d warm-up passes of %d before the first flush", starts, warm, per)
	}
	for k, n := range starts[1:] {
		if n != per {
			t.Errorf("segment %d after a flush has %d timer starts, want one pass (%d): %v", k+1, n, per, starts)
		}
	}
	m := res.Pass
	if !m.FlushL2 || m.FlushBytes != 2*fakeL2 || m.FlushNote != "" || m.Passes != passes || m.Warmup != warm {
		t.Errorf("measurement %+v: want flushed, %d bytes, %d passes after %d warm-ups", m, 2*fakeL2, passes, warm)
	}
	if !reflect.DeepEqual(m.SamplesMs, res.GPUSamples) || m.MedianMs != res.GPUMs.Median || m.MinMs != res.GPUMs.Min || m.MaxMs != res.GPUMs.Max {
		t.Errorf("measurement %+v disagrees with the pass timings %+v %v", m, res.GPUMs, res.GPUSamples)
	}

	// Without the flush: no flush buffer written, the result says so.
	d.events = nil
	res, err = pr.Run(context.Background(), executor.RunOptions{Warmup: 1, Repeat: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range d.events {
		if strings.HasPrefix(e, flush) {
			t.Errorf("flushed without FlushL2: %v", d.events)
			break
		}
	}
	if res.Pass.FlushL2 || res.Pass.FlushBytes != 0 || res.Pass.Passes != 2 || res.Pass.Warmup != 1 {
		t.Errorf("unflushed measurement %+v", res.Pass)
	}
	if err := pr.Close(); err != nil {
		t.Fatal(err)
	}
	if len(d.live) != 0 {
		t.Errorf("%d buffers left after Close (the flush buffer too?)", len(d.live))
	}
}

// TestRunMeasurementCI: the routine's median, min, max and confidence
// interval for known pass times: the fake device's timers read 10, 1, 9,
// 2, 8, 3, 7, 4, 6, 5 ms in the ten passes.
func TestRunMeasurementCI(t *testing.T) {
	p, _ := ir.Preset("polak")
	g, _, err := graph.Generate(graph.DefaultRMAT(8))
	if err != nil {
		t.Fatal(err)
	}
	d := newFakeDevice(t, p, 1<<40)
	times := []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	pr, err := executor.Prepare(context.Background(), d, &fakeCompiler{}, p, g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	// Pass k (from 0) ends at base + (k+1)*per launches: every timer read
	// after it gives times[k].
	base := len(d.launch)
	if _, err := pr.Run(context.Background(), executor.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	per := len(d.launch) - base
	base = len(d.launch)
	d.passMs = func([]string) float64 { return times[(len(d.launch)-base)/per-1] }
	res, err := pr.Run(context.Background(), executor.RunOptions{Repeat: len(times)})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.GPUSamples, times) {
		t.Fatalf("samples %v, want %v", res.GPUSamples, times)
	}
	// n = 10: ranks 2 and 9 (executor.MedianCIRanks), the median the mean
	// of the 5th and 6th.
	want := executor.Measurement{Passes: 10, SamplesMs: times, MedianMs: 5.5, MinMs: 1, MaxMs: 10, CILoMs: 2, CIHiMs: 9, CI95: true}
	if !reflect.DeepEqual(res.Pass, want) {
		t.Errorf("measurement %+v, want %+v", res.Pass, want)
	}
}

// TestSummarize: the measurement of known samples, and the flush size.
func TestSummarize(t *testing.T) {
	m := executor.Summarize([]float64{3, 1, 2}, 1)
	want := executor.Measurement{Warmup: 1, Passes: 3, SamplesMs: []float64{3, 1, 2}, MedianMs: 2, MinMs: 1, MaxMs: 3, CILoMs: 1, CIHiMs: 3}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("3 samples: %+v, want %+v (below 6 samples [min, max], not 95%%)", m, want)
	}
	if m := executor.Summarize([]float64{4, 1, 3, 2}, 0); m.MedianMs != 2.5 {
		t.Errorf("4 samples: median %v, want 2.5 (mean of the middle two)", m.MedianMs)
	}
	if m := executor.Summarize(nil, 2); m.Passes != 0 || m.MedianMs != 0 || m.Warmup != 2 {
		t.Errorf("no samples: %+v", m)
	}
	if n, note := executor.FlushBytes(gpu.DeviceFacts{L2Bytes: 50 << 20}); n != 100<<20 || note != "" {
		t.Errorf("FlushBytes of a 50 MiB L2: %d %q, want 100 MiB", n, note)
	}
	if n, note := executor.FlushBytes(gpu.DeviceFacts{}); n != 256<<20 || note != "the device reports no L2 size: 256 MiB written" {
		t.Errorf("FlushBytes without an L2 size: %d %q", n, note)
	}
}

// TestMultiRunFlushL2: on several devices, FlushL2 flushes every device's
// L2 once before each timed pass and never before a warm-up, and the
// result's Pass measures the slowest device's passes, pass by pass.
func TestMultiRunFlushL2(t *testing.T) {
	p, _ := ir.Preset("polak")
	g, _, err := graph.Generate(graph.DefaultRMAT(8))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	const nd, warm, passes = 3, 2, 6
	fakes := make([]*fakeDevice, nd)
	devs := make([]gpu.Device, nd)
	for k := range fakes {
		fakes[k] = newFakeDevice(t, p, 1<<40)
		devs[k] = fakes[k]
	}
	mp, err := executor.PrepareMulti(context.Background(), devs, []int{0, 1, 2}, &fakeCompiler{}, p, g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer mp.Close()
	for _, d := range fakes {
		d.events = nil
	}
	res, err := mp.Run(context.Background(), executor.RunOptions{Warmup: warm, Repeat: passes, FlushL2: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Triangles != want {
		t.Errorf("%d triangles, want %d", res.Triangles, want)
	}
	flush := fmt.Sprintf("zero %d", 2*fakeL2)
	for k, d := range fakes {
		n, first := 0, -1
		for i, e := range d.events {
			if strings.HasPrefix(e, flush) {
				n++
				if first < 0 {
					first = i
				}
			}
		}
		if n != passes || first < 0 || !slices.Contains(d.events[:first], "start") {
			t.Errorf("device %d: %d flushes (want %d, after the warm-ups' timers): %v", k, n, passes, d.events)
		}
	}
	m := res.Pass
	if !m.FlushL2 || m.Passes != passes || m.Warmup != warm || !m.CI95 || !reflect.DeepEqual(m.SamplesMs, res.GPUSamples) || m.MedianMs != res.GPUMs.Median {
		t.Errorf("measurement %+v: want %d flushed passes after %d warm-ups, the slowest device's samples %v (median %g)", m, passes, warm, res.GPUSamples, res.GPUMs.Median)
	}
}
