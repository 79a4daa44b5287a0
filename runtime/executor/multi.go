package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// A run on several devices in one process: the host orients the graph,
// picks the variant and builds the work lists once; every device gets the
// whole graph and its share of the work (multi_split.go), prepared as
// Prepare prepares one (its own context, families, memory plan, upload,
// kernels); a pass runs on all devices at once and ends when the last one
// finishes; the counts add up exactly, since the shares tile the items
// (or, for pivot variants, the in-edges: multi_pivot.go).

// DeviceRun is one device's part of a run on several devices.
type DeviceRun struct {
	Ordinal int    `json:"ordinal"`
	Name    string `json:"name"`
	// Items are its work items: its slices of the classes' items, or for
	// a pivot variant the vertices whose in-edges it counts.
	Items uint64 `json:"items"`
	// Work is their modelled work (multi_split.go), Share its fraction of
	// the whole run's.
	Work      uint64  `json:"work"`
	Share     float64 `json:"work_share"`
	Triangles uint64  `json:"triangles"`
	KernelMs  Timing  `json:"kernel_ms"`
	GPUMs     Timing  `json:"gpu_ms"`
	// PredictedMs is its pass time as the last measured rebalance
	// predicted it (multi_balance.go); 0 without one.
	PredictedMs float64 `json:"predicted_ms,omitempty"`
}

// MultiPrepared is a plan prepared on several devices, each with its
// share, ready to run repeatedly. Close frees it.
type MultiPrepared struct {
	parts    []*Prepared
	shares   []devicePart
	ordinals []int
	phases   []Phase
	cutter   *pivotCutter     // cuts a pivot variant's sources again (nil: lists, or one device)
	rounds   []RebalanceRound // the rebalances so far
	// totalWork is the whole run's modelled work when shares holds only
	// this process's share (PrepareShare); 0: the shares' sum.
	totalWork uint64
	// all is every process's share under PrepareShare (nil otherwise),
	// rank this one's: every rank recuts them alike (RebalanceMeasured).
	all  []devicePart
	rank int
}

// PrepareMulti prepares plan p on every device of devs (ordinals name them
// in the results), each with its share of the work. With one device it
// prepares as Prepare does. comp may be shared: each distinct input is
// compiled once.
func PrepareMulti(ctx context.Context, devs []gpu.Device, ordinals []int, comp gpu.Compiler, p ir.Plan, g *graph.Graph, opt RunOptions) (*MultiPrepared, error) {
	if len(devs) == 0 || len(ordinals) != len(devs) {
		return nil, fmt.Errorf("plan %s: %d devices, %d ordinals", p.Name(), len(devs), len(ordinals))
	}
	if p.Local() && len(devs) > 1 { // each device would hold a part of every vertex's or edge's counts
		return nil, fmt.Errorf("plan %s: output %s is counted on one device, not %d", p.Name(), p.Output, len(devs))
	}
	comp = &onceCompiler{inner: comp, images: map[string]onceImage{}}
	s0 := newPreparation(ctx, devs[0], comp, p.Name(), g, opt)
	for _, d := range devs {
		(&preparation{dev: d, opt: opt, g: g}).prestage()
	}
	if err := s0.shared(p); err != nil {
		return nil, err
	}
	if s0.ck != nil && len(devs) > 1 {
		// Each device uploads the lists as the host has them: checked (and
		// unpacked) here once, not by one device's upload for all.
		if err := s0.ck.Finish(); err != nil {
			return nil, err
		}
		s0.ck = nil
		s0.clk.mark("list check")
	}
	v := s0.out.Manifest.Variants[s0.variant]
	var shares []devicePart
	var cutter *pivotCutter
	if len(devs) > 1 {
		core := 0
		if h := s0.out.Manifest.Pivot; h != nil {
			core = h.VariantCore(s0.variant)
		}
		shares, cutter = splitWork(s0.o, v, s0.lists, core, len(devs))
		s0.clk.mark("split")
	}
	mp := &MultiPrepared{parts: make([]*Prepared, len(devs)), shares: shares, ordinals: ordinals, cutter: cutter}
	t0 := time.Now()
	errs := make([]error, len(devs))
	var wg sync.WaitGroup
	for k, d := range devs {
		s, err := s0.forDevice(p, d, shares, k)
		if err != nil {
			errs[k] = err
			continue
		}
		wg.Go(func() {
			defer s.unloadChecker()
			mp.parts[k], errs[k] = s.onDevice()
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		mp.Close()
		return nil, err
	}
	mp.phases = append(s0.clk.phases, Phase{Name: fmt.Sprintf("%d devices", len(devs)), Ms: msSince(t0)})
	return mp, nil
}

// forDevice is the preparation of device k: s0's shared host work, with
// the device's share (none with one device) and, for a device that
// generates other code (another architecture or shared memory), its own
// generated source.
func (s0 *preparation) forDevice(p ir.Plan, d gpu.Device, shares []devicePart, k int) (*preparation, error) {
	s := *s0
	s.dev, s.facts, s.clk, s.pr, s.lc = d, d.Facts(), newPhaseClock(), nil, nil
	s.target = Target(s.facts, s.opt.Arch)
	if k > 0 {
		s.ck = nil // checked by device 0's upload (one device), or on the host
	}
	if shares != nil {
		s.part = &shares[k]
		s.lists = shares[k].lists
	}
	if s.target != s0.target {
		out, err := gen.Generate(p, s.target)
		if err != nil {
			return nil, err
		}
		s.out = out
	}
	s.img = nil // compiled for this device's target by its own compile
	s.needSrc = false
	for i, c := range s.out.Manifest.Variants[s.variant].Classes {
		s.needSrc = s.needSrc || (c.NeedsSrc && s.lists[i].Count > 0)
	}
	return &s, nil
}

// Run runs opt.Warmup untimed and opt.Repeat timed passes on every device
// at once, each pass ending when the last device's ends (each device's L2
// flushed before a timed pass under opt.FlushL2), and checks that every
// device's passes counted the same. Its Pass measures the slowest
// device's passes.
func (mp *MultiPrepared) Run(ctx context.Context, opt RunOptions) (*Result, error) {
	repeat := max(opt.Repeat, 1)
	warm := max(opt.Warmup, 0)
	nd := len(mp.parts)
	ts := make([]passTiming, nd)
	recs := make([]*passRecord, nd)
	for k, pr := range mp.parts {
		ts[k] = pr.timing(opt)
		recs[k] = &passRecord{perClass: make([][]float64, len(pr.classes)), counts: make([]uint64, len(pr.classes))}
	}
	errs := make([]error, nd)
	for r := range warm + repeat {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var wg sync.WaitGroup
		for k, pr := range mp.parts {
			wg.Go(func() {
				if opt.FlushL2 && r >= warm {
					if errs[k] = pr.flushL2(); errs[k] != nil {
						return
					}
				}
				if errs[k] = pr.pass(ctx, ts[k], nil); errs[k] == nil {
					errs[k] = pr.record(recs[k], ts[k], r, r >= warm)
				}
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
	}
	pr0 := mp.parts[0]
	per := make([]*Result, nd)
	for k, pr := range mp.parts {
		per[k] = pr.result(recs[k], ts[k], repeat)
	}
	if nd == 1 && mp.shares == nil {
		res := per[0]
		res.Phases = mp.phases
		res.Devices = []DeviceRun{mp.deviceRun(0, per[0], 1)}
		res.SlowestShare = 1
		res.Pass = pr0.measurement(recs[0].passes, opt)
		return res, nil
	}
	res := mp.combine(per, recs)
	res.Pass = pr0.measurement(res.GPUSamples, opt) // the slowest device's pass, pass by pass
	return res, nil
}

// Close frees every device's part. It may be called more than once.
func (mp *MultiPrepared) Close() error {
	var errs []error
	for _, pr := range mp.parts {
		if pr != nil {
			errs = append(errs, pr.Close())
		}
	}
	return errors.Join(errs...)
}

// deviceRun is device k's line of the result; share its fraction of the
// modelled work.
func (mp *MultiPrepared) deviceRun(k int, res *Result, share float64) DeviceRun {
	d := DeviceRun{Ordinal: mp.ordinals[k], Name: res.Device.Name, Share: share, Triangles: res.Triangles, KernelMs: res.KernelMs, GPUMs: res.GPUMs}
	if mp.shares != nil {
		d.Items, d.Work = mp.shares[k].items, mp.shares[k].work
		at := k // this share's place in the run's
		if mp.all != nil {
			at = mp.rank
		}
		for _, r := range mp.rounds {
			if r.PredictedMs != nil {
				d.PredictedMs = r.PredictedMs[at]
			}
		}
	} else {
		for _, c := range res.PerClass {
			d.Items += c.Items
		}
	}
	return d
}

// onceCompiler compiles each distinct input once for the devices of a run
// (the kernel cache would otherwise be missed by all of them at once).
type onceCompiler struct {
	inner  gpu.Compiler
	mu     sync.Mutex // held while compiling: the other devices wait for the image
	images map[string]onceImage
}

type onceImage struct {
	img gpu.Image
	err error
}

func (c *onceCompiler) Version() (int, int) { return c.inner.Version() }

func (c *onceCompiler) Compile(in gpu.CompileInput) (gpu.Image, error) {
	key := fmt.Sprintf("%s\x00%s\x00%q\x00%s", in.Name, in.Arch, in.Options, in.Source) // headers come with the build
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.images[key]; ok {
		return r.img, r.err
	}
	img, err := c.inner.Compile(in)
	c.images[key] = onceImage{img, err}
	return img, err
}
