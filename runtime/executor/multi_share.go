package executor

import (
	"context"
	"fmt"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// PrepareShare prepares share k of parts of plan p on one device: the host
// cuts the work as PrepareMulti cuts it for parts devices and keeps share
// k, so processes that each prepare their own k count every triangle
// exactly once between them (count --mpi). With parts 1 it prepares the
// whole plan, as PrepareMulti does on one device. The result's Devices
// line carries the share's items, work and fraction of the whole run's.
func PrepareShare(ctx context.Context, dev gpu.Device, ordinal int, comp gpu.Compiler, p ir.Plan, g *graph.Graph, opt RunOptions, k, parts int) (*MultiPrepared, error) {
	if parts < 1 || k < 0 || k >= parts {
		return nil, fmt.Errorf("plan %s: share %d of %d", p.Name(), k, parts)
	}
	s0 := newPreparation(ctx, dev, comp, p.Name(), g, opt)
	s0.prestage()
	if err := s0.shared(p); err != nil {
		return nil, err
	}
	mp := &MultiPrepared{parts: make([]*Prepared, 1), ordinals: []int{ordinal}}
	if parts > 1 {
		v := s0.out.Manifest.Variants[s0.variant]
		core := 0
		if h := s0.out.Manifest.Pivot; h != nil {
			core = h.VariantCore(s0.variant)
		}
		shares, cutter := splitWork(s0.o, v, s0.lists, core, parts)
		for _, sh := range shares {
			mp.totalWork += sh.work
		}
		mp.shares, mp.all, mp.rank, mp.cutter = shares[k:k+1], shares, k, cutter
		s0.clk.mark("split")
	}
	// Index 0 of the one share kept: the device's own upload checks the
	// lists, as with one device.
	s, err := s0.forDevice(p, dev, mp.shares, 0)
	if err != nil {
		return nil, err
	}
	defer s.unloadChecker()
	if mp.parts[0], err = s.onDevice(); err != nil {
		return nil, err
	}
	mp.phases = s0.clk.phases
	return mp, nil
}
