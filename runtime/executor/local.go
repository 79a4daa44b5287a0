package executor

import (
	"fmt"
	"time"

	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// A plan with a local output (ir.OutputVertex, ir.OutputEdge) also credits
// each triangle to its vertices or edges, in u64 counters (Prepared.local)
// its class kernels take as their last argument. They are zeroed before
// each pass, outside the pass's time, so the kernel times of a plan and its
// local variant compare; the last pass's counters are read back once.

// zeroLocal zeroes the local counters before a pass.
func (pr *Prepared) zeroLocal() error {
	if pr.local == nil {
		return nil
	}
	if err := pr.local.Zero(); err != nil {
		return fmt.Errorf("plan %s: zeroing the local counts: %w", pr.name, err)
	}
	return nil
}

// localArg is the local counters as the kernels take them (gen.LocalArg):
// per edge they are indexed as adj is, so shifted with it (highindex.go).
func (pr *Prepared) localArg() gpu.Buffer {
	if pr.manifest.Output == ir.OutputEdge {
		return shift(pr.local, pr.base, 8)
	}
	return pr.local
}

// readLocal copies the last pass's local counters into res, timing the
// copy, and checks that they sum to three per triangle (each triangle has
// three vertices and three edges).
func (pr *Prepared) readLocal(res *Result) error {
	if pr.local == nil {
		if pr.manifest.Output != "" { // no vertices or no edges: nothing to count, no counters
			res.Local, res.Oriented = []uint64{}, pr.o
		}
		return nil
	}
	t0 := time.Now()
	loc := make([]uint64, pr.local.Size()/8)
	if err := gpu.ReadSlice(pr.local, 0, loc); err != nil {
		return fmt.Errorf("plan %s: reading the local counts: %w", pr.name, err)
	}
	res.LocalDownloadMs = msSince(t0)
	var sum uint64
	for _, x := range loc {
		sum += x
	}
	if sum != 3*res.Triangles {
		return fmt.Errorf("plan %s: the %s counts sum to %d, want 3 x %d triangles: the local kernels lost or added credits", pr.name, pr.manifest.Output, sum, res.Triangles)
	}
	res.Local, res.Oriented = loc, pr.o
	return nil
}

// LocalPerVertex returns the per-vertex counts of an output-vertex run
// indexed by the dense ids of the graph it oriented (Oriented.Perm undone),
// as graph.CountPerVertex gives them; nil for another output.
func (r *Result) LocalPerVertex() []uint64 {
	if r.Output != ir.OutputVertex || r.Oriented == nil {
		return nil
	}
	perm := r.Oriented.Perm
	if perm == nil {
		return r.Local
	}
	per := make([]uint64, len(r.Local))
	for old, nw := range perm {
		per[old] = r.Local[nw]
	}
	return per
}

// LocalSupport returns the per-edge counts of an output-edge run as the
// supports of Oriented's arcs, the layout of graph.CountPerEdge (an edge's
// support is below its graph's vertices, so it fits 32 bits); nil for
// another output.
func (r *Result) LocalSupport() []uint32 {
	if r.Output != ir.OutputEdge || r.Oriented == nil {
		return nil
	}
	s := make([]uint32, len(r.Local))
	for i, x := range r.Local {
		s[i] = uint32(x)
	}
	return s
}
