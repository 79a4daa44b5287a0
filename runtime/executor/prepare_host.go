package executor

import (
	"context"
	"errors"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// HostPrepared is a plan prepared as far as it needs no device
// (PrepareHost): the graph oriented, the guard's variant picked, the work
// lists built, the code generated and compiled. OnDevice finishes it.
type HostPrepared struct{ s *preparation }

// PrepareHost is Prepare's part that needs the device's facts alone, not
// its context: a caller runs it while the driver creates the context
// (cuda.Start, then Opening.Context), which then hides it.
func PrepareHost(ctx context.Context, facts gpu.DeviceFacts, comp gpu.Compiler, p ir.Plan, g *graph.Graph, opt RunOptions) (*HostPrepared, error) {
	s := hostPreparation(ctx, facts, comp, p.Name(), g, opt)
	if err := s.shared(p); err != nil {
		return nil, err
	}
	if err := s.compileImage(); err != nil {
		return nil, err
	}
	return &HostPrepared{s}, nil
}

// OnDevice finishes the preparation on dev, the device whose facts
// PrepareHost was given: the families, the memory plan, the upload, the
// module and the setup, as Prepare. A HostPrepared is finished once.
func (h *HostPrepared) OnDevice(dev gpu.Device) (*Prepared, error) {
	s := h.s
	if s == nil {
		return nil, errors.New("executor: a host preparation finished twice")
	}
	h.s = nil
	if f := dev.Facts(); f != s.facts {
		return nil, s.fail("prepared for %s (%d SMs), run on %s (%d SMs)", s.facts.Name, s.facts.SMs, f.Name, f.SMs)
	}
	s.dev = dev
	s.clk.skip()
	defer s.unloadChecker()
	s.prestage()
	return s.onDevice()
}
