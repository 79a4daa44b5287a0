package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// count --gpus: one process drives several GPUs, each with its context,
// the whole graph and a share of the work (executor.PrepareMulti).

// gpuSelection is a parsed --gpus: every GPU, the first n, or ordinals.
type gpuSelection struct {
	all      bool
	first    int
	ordinals []int
}

// maxGPUOrdinal bounds the ordinals --gpus takes: no host has more GPUs,
// and a larger number is a typo.
const maxGPUOrdinal = 1 << 10

// parseGPUs reads --gpus: "all", a number n (the first n GPUs), or a list
// of two or more distinct ordinals ("0,2").
func parseGPUs(s string) (gpuSelection, error) {
	bad := func(why string) error {
		return fmt.Errorf("--gpus %q: %s; want all, a number of GPUs (2: the first two) or a list of ordinals (0,2)", s, why)
	}
	t := strings.TrimSpace(s)
	if t == "all" {
		return gpuSelection{all: true}, nil
	}
	if !strings.Contains(t, ",") {
		n, err := strconv.Atoi(t)
		switch {
		case err != nil:
			return gpuSelection{}, bad("not a number")
		case n < 1 || n > maxGPUOrdinal:
			return gpuSelection{}, bad(fmt.Sprintf("a number of GPUs is 1 to %d (one GPU by its ordinal: --device K)", maxGPUOrdinal))
		}
		return gpuSelection{first: n}, nil
	}
	var sel gpuSelection
	for _, f := range strings.Split(t, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		switch {
		case err != nil:
			return gpuSelection{}, bad(fmt.Sprintf("ordinal %q is not a number", f))
		case k < 0 || k >= maxGPUOrdinal:
			return gpuSelection{}, bad(fmt.Sprintf("ordinal %d is out of range", k))
		case slices.Contains(sel.ordinals, k):
			return gpuSelection{}, bad(fmt.Sprintf("GPU %d is listed twice", k))
		}
		sel.ordinals = append(sel.ordinals, k)
	}
	return sel, nil
}

// resolve names the ordinals of sel on a host whose driver reports have
// GPUs, or says which one it lacks.
func (sel gpuSelection) resolve(spec string, have int) ([]int, error) {
	switch {
	case sel.all:
		ords := make([]int, have)
		for k := range ords {
			ords[k] = k
		}
		return ords, nil
	case sel.first > have:
		return nil, fmt.Errorf("--gpus %s: asks for %d GPUs, the driver reports %d", spec, sel.first, have)
	case sel.first > 0:
		ords := make([]int, sel.first)
		for k := range ords {
			ords[k] = k
		}
		return ords, nil
	}
	for _, k := range sel.ordinals {
		if k >= have {
			return nil, fmt.Errorf("--gpus %s: there is no GPU %d: the driver reports %d (ordinals 0 to %d)", spec, k, have, have-1)
		}
	}
	return sel.ordinals, nil
}

// checkGPUs refuses a --gpus that does not parse or does not go with the
// other flags, before any work.
func (c *CountCmd) checkGPUs() error {
	if c.Rebalance < 0 {
		return errorf(exitUsage, "count: --rebalance %d: a number of rebalances is 0 or more", c.Rebalance)
	}
	if c.GPUs == "" {
		return nil
	}
	if _, err := parseGPUs(c.GPUs); err != nil {
		return errorf(exitUsage, "count: %v", err)
	}
	switch {
	case c.Backend == "cpu":
		return errorf(exitUsage, "count: --gpus counts on GPUs; --backend cpu counts on the CPU")
	case c.localFlag() != "":
		return errorf(exitUsage, "count: --gpus counts the total only; %s is not implemented on several GPUs", c.localFlag())
	}
	return nil
}

// openGPUs opens the GPUs --gpus names and one caching compiler.
func (g *Globals) openGPUs(f GPUFlags, spec string) ([]gpu.Device, []int, gpu.Compiler, error) {
	sel, err := parseGPUs(spec)
	if err != nil {
		return nil, nil, nil, withCode(exitUsage, err)
	}
	facts, err := cuda.Devices()
	if err != nil {
		return nil, nil, nil, withCode(exitNoGPU, err)
	}
	ords, err := sel.resolve(spec, len(facts))
	if err != nil {
		return nil, nil, nil, withCode(exitNoGPU, err) // not a missing driver: no fallback to the CPU
	}
	opt := cuda.Options{NVRTCPath: f.NVRTC}
	var devs []gpu.Device
	closeAll := func() {
		for _, d := range devs {
			d.Close()
		}
	}
	for _, k := range ords {
		d, err := cuda.Open(k, opt)
		if err != nil {
			closeAll()
			return nil, nil, nil, withCode(exitNoGPU, err)
		}
		devs = append(devs, d)
	}
	comp, err := g.openCompiler(opt, false)
	if err != nil {
		closeAll()
		return nil, nil, nil, err
	}
	return devs, ords, comp, nil
}

// countGPUs is countGPU on the GPUs of --gpus: the plan is chosen for the
// first of them, the pass times are the slowest device's, pass by pass.
func (c *CountCmd) countGPUs(g *Globals, p ir.Plan, gr *graph.Graph, o *graph.Oriented, res *countResult, start time.Time) error {
	ctxStart := time.Now()
	devs, ords, comp, err := g.openGPUs(c.GPUFlags, c.GPUs)
	if err != nil {
		return err
	}
	defer func() {
		for _, d := range devs {
			d.Close()
		}
	}()
	res.ContextMs = msSince(ctxStart)
	factsStart := time.Now()
	if c.Preset == "" && c.Spec == "" {
		p, res.PlanSource = g.choosePlan(p, gr, o, devs[0].Facts(), comp)
	}
	res.Backend, res.Device, res.Plan = "gpu", devicesLabel(devs, ords), p.Name()
	res.FactsMs = msSince(factsStart)
	prepStart := time.Now()
	popt := executor.RunOptions{}
	if o != nil {
		gr, popt.Oriented = nil, o
	}
	mp, err := executor.PrepareMulti(g.ctx, devs, ords, comp, p, gr, popt)
	if err != nil {
		return gpuError(err)
	}
	defer mp.Close()
	res.PrepareMs = msSince(prepStart)
	timed := executor.RunOptions{Repeat: c.Repeat, Warmup: c.Warmup, PassOnly: c.PassOnly, NoGraph: c.NoGraph, FlushL2: c.FlushL2}
	recut := func(last *executor.Result) (executor.RebalanceRound, error) { return mp.Rebalance(last), nil }
	out, err := c.runGPU(g, mp, p, timed, res, start, func(first *executor.Result) (*executor.Result, error) {
		_, err := c.rebalance(g, mp, first, recut, sameCount(p))
		return first, err // the devices' sum does not move with the cuts
	})
	if err != nil {
		return err
	}
	res.Devices, res.SlowestShare, res.Rebalance = out.Devices, out.SlowestShare, out.Rebalance
	return nil
}

// rebalance cuts the work again up to --rebalance times, each from an
// untimed pass's times (recut: executor.MultiPrepared.Rebalance, or its
// MPI form): the first run's, then one more pass per round, which agree
// checks against the first. It stops where the cuts stay as they are, and
// says whether they moved.
func (c *CountCmd) rebalance(g *Globals, mp *executor.MultiPrepared, first *executor.Result,
	recut func(*executor.Result) (executor.RebalanceRound, error), agree func(first, run *executor.Result) error) (moved bool, err error) {
	last := first
	for r := range c.Rebalance {
		if r > 0 {
			run, err := mp.Run(g.ctx, executor.RunOptions{Repeat: 1})
			if err != nil {
				return moved, gpuError(err)
			}
			if err := agree(first, run); err != nil {
				return moved, err
			}
			last = run
		}
		round, err := recut(last)
		if err != nil || round.Why != "" || slices.Equal(round.Before, round.After) {
			return moved, err
		}
		moved = true
	}
	return moved, nil
}

// sameCount is rebalance's check where the devices' sum is the count: a
// pass after a rebalance counts what the first did.
func sameCount(p ir.Plan) func(first, run *executor.Result) error {
	return func(first, run *executor.Result) error {
		if run.Triangles != first.Triangles {
			return errorf(exitMismatch, "plan %s: runs disagree (%d then %d triangles after a rebalance): nondeterministic kernel", p.Name(), first.Triangles, run.Triangles)
		}
		return nil
	}
}

// devicesLabel names the GPUs of a run: "2 GPUs (0, 1): NAME" when they
// share a name, else each ordinal's.
func devicesLabel(devs []gpu.Device, ords []int) string {
	names := make([]string, len(devs))
	same := true
	for k, d := range devs {
		names[k] = d.Facts().Name
		same = same && names[k] == names[0]
	}
	list := strings.Trim(strings.ReplaceAll(fmt.Sprint(ords), " ", ", "), "[]")
	if same {
		return fmt.Sprintf("%d GPUs (%s): %s", len(devs), list, names[0])
	}
	for k := range names {
		names[k] = fmt.Sprintf("%d: %s", ords[k], names[k])
	}
	return fmt.Sprintf("%d GPUs: %s", len(devs), strings.Join(names, ", "))
}

// printDevices adds a line per GPU of a --gpus count to count's text
// output, and the slowest GPU's share of the modelled work.
func printDevices(w io.Writer, r *countResult) {
	if len(r.Devices) == 0 {
		return
	}
	fmt.Fprintf(w, "devices\t%d, a pass ends when the slowest ends; its share of the modelled work %.1f%%\n", len(r.Devices), 100*r.SlowestShare)
	for k, x := range r.Rebalance {
		if x.Why != "" {
			fmt.Fprintf(w, "rebalance %d\tnone: %s\n", k+1, x.Why)
			continue
		}
		fmt.Fprintf(w, "rebalance %d\tcuts %s -> %s; measured %s ms, predicted %s ms\n", k+1,
			joinCuts(x.Before), joinCuts(x.After), joinMs(x.MeasuredMs), joinMs(x.PredictedMs))
	}
	for _, d := range r.Devices {
		predicted := ""
		if d.PredictedMs > 0 {
			predicted = fmt.Sprintf(" (predicted %.4f)", d.PredictedMs)
		}
		fmt.Fprintf(w, "gpu %d\t%s: %d items, %.1f%% of the work, pass %.4f ms median%s, kernels %.4f ms, %d triangles\n",
			d.Ordinal, d.Name, d.Items, 100*d.Share, d.GPUMs.Median, predicted, d.KernelMs.Median, d.Triangles)
	}
}

// joinCuts writes the inner cuts of a rebalance (the first vertex of each
// device but the first): "8600000" for two devices.
func joinCuts(cuts []uint64) string {
	var s []string
	for i := 1; i+1 < len(cuts); i++ {
		s = append(s, strconv.FormatUint(cuts[i], 10))
	}
	return strings.Join(s, ",")
}

// joinMs writes each device's time: "59.93/30.25".
func joinMs(ms []float64) string {
	s := make([]string, len(ms))
	for k, x := range ms {
		s[k] = strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strings.Join(s, "/")
}
