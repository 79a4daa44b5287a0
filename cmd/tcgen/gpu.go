package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime"
	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/runtime/nvml"
)

// noGPU reports whether err means there is no usable GPU path here (no
// driver, no device, no NVRTC), as opposed to a failure on a GPU.
func noGPU(err error) bool {
	return errors.Is(err, cuda.ErrNoDriver) || errors.Is(err, cuda.ErrNoDevice) || errors.Is(err, cuda.ErrNoNVRTC)
}

// openGPU opens the device and a caching NVRTC compiler.
func (g *Globals) openGPU(f GPUFlags) (*cuda.Device, runtime.Compiler, error) {
	opt := cuda.Options{NVRTCPath: f.NVRTC}
	dev, err := cuda.Open(f.Device, opt)
	if err != nil {
		return nil, nil, withCode(exitNoGPU, err)
	}
	comp, err := cuda.NewCompiler(opt)
	if err != nil {
		dev.Close()
		return nil, nil, withCode(exitNoGPU, err)
	}
	dir, err := g.cacheDir()
	if err != nil {
		dev.Close()
		return nil, nil, err
	}
	cc := &cuda.CachingCompiler{Inner: comp, Dir: filepath.Join(dir, "kernels"),
		Warn: func(err error) { g.notice("kernel cache: %v", err) }}
	return dev, cc, nil
}

// countGPU prepares the plan on the device, runs it once (total_ms), then
// runs the warm-ups and timed repeats.
func (c *CountCmd) countGPU(g *Globals, p ir.Plan, gr *graph.Graph, o *graph.Oriented, res *countResult, start time.Time) error {
	ctxStart := time.Now()
	dev, comp, err := g.openGPU(c.GPUFlags)
	if err != nil {
		return err
	}
	defer dev.Close()
	res.ContextMs = msSince(ctxStart)
	facts := dev.Facts()
	if nf, err := nvml.Read(facts.UUID); err == nil {
		nf.Apply(&facts)
	}
	res.Backend, res.Device, res.Plan = "gpu", facts.Name, p.Name()
	prepStart := time.Now()
	popt := runtime.RunOptions{}
	if o != nil {
		gr, popt.Oriented = nil, o // already oriented: the plan must match it
	}
	pr, err := runtime.Prepare(g.ctx, dev, comp, p, gr, popt)
	if err != nil {
		return gpuError(err)
	}
	defer pr.Close()
	res.PrepareMs = msSince(prepStart)
	runStart := time.Now()
	first, err := pr.Run(g.ctx, runtime.RunOptions{Repeat: 1})
	if err != nil {
		return gpuError(err)
	}
	res.FirstRunMs = msSince(runStart)
	res.TotalMs = msSince(start)
	out, err := pr.Run(g.ctx, runtime.RunOptions{Repeat: c.Repeat, Warmup: c.Warmup})
	if err != nil {
		return gpuError(err)
	}
	if out.Triangles != first.Triangles {
		// The same kernels on the same data must agree: a difference is a
		// race in generated code.
		return errorf(exitMismatch, "plan %s: runs disagree (%d then %d triangles): nondeterministic kernel", p.Name(), first.Triangles, out.Triangles)
	}
	if nf, err := nvml.Read(facts.UUID); err == nil {
		nf.Apply(&out.Device)
	}
	res.Triangles = out.Triangles
	res.GPU = out
	res.KernelMs, res.KernelMinMs, res.KernelMaxMs = out.KernelMs.Median, out.KernelMs.Min, out.KernelMs.Max
	res.GPUMs, res.GPUMinMs, res.GPUMaxMs = out.GPUMs.Median, out.GPUMs.Min, out.GPUMs.Max
	res.Runs = out.Runs
	res.CountMs = out.KernelMs.Median
	return nil
}

// gpuError attaches the exit code of a failure on the GPU path.
func gpuError(err error) error {
	var ce *cuda.CompileError
	var le *cuda.LoadModuleError
	var la *cuda.LaunchError
	switch {
	case errors.Is(err, runtime.ErrTooLarge), errors.Is(err, cuda.ErrOutOfMemory):
		return withCode(exitTooLarge, err)
	case errors.As(err, &ce), errors.As(err, &le), errors.As(err, &la):
		return withCode(exitCompile, err)
	case noGPU(err):
		return withCode(exitNoGPU, err)
	}
	return fmt.Errorf("gpu: %w", err)
}
