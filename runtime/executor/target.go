package executor

import (
	"fmt"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// Orientation maps the IR's orientation onto package graph's (the tuner
// orients a graph once per orientation its candidates use).
func Orientation(o ir.Orientation) (graph.Orientation, error) { return orientation(o) }

// orientation maps the IR's orientation onto package graph's.
func orientation(o ir.Orientation) (graph.Orientation, error) {
	switch o {
	case ir.OrientDegree, "":
		return graph.ByDegree, nil
	case ir.OrientID:
		return graph.ByID, nil
	case ir.OrientTCBW:
		return graph.ByTCBW, nil
	}
	return 0, fmt.Errorf("orientation %s is not implemented by package graph yet", o)
}

// Feature returns the guard feature named f of the graph g oriented as o.
// g may be nil for a graph read oriented; max_degree then cannot be known.
func Feature(f string, g *graph.Graph, o *graph.Oriented) (float64, error) {
	n, e := float64(o.N()), float64(o.Arcs())
	switch f {
	case ir.FeatureAvgOutDeg:
		if n == 0 {
			return 0, nil
		}
		return e / n, nil
	case ir.FeatureAvgDegree:
		if n == 0 {
			return 0, nil
		}
		return 2 * e / n, nil
	case ir.FeatureMaxDegree, ir.FeatureMaxOutDeg:
		if f == ir.FeatureMaxDegree && g == nil {
			return 0, fmt.Errorf("guard feature %s needs the undirected graph; the graph was read oriented", f)
		}
		c := &o.CSR
		if f == ir.FeatureMaxDegree {
			c = &g.CSR
		}
		var d uint64
		for v := range c.N() {
			d = max(d, c.Degree(uint32(v)))
		}
		return float64(d), nil
	case ir.FeatureVertices:
		return n, nil
	case ir.FeatureEdges:
		return e, nil
	}
	return 0, fmt.Errorf("unknown guard feature %q", f)
}

// pickVariant returns the variant whose [Lo, Hi) holds x.
func pickVariant(vs []gen.Variant, x float64) int {
	for i, v := range vs {
		if x >= v.Lo && (v.Hi == 0 || x < v.Hi) {
			return i
		}
	}
	return len(vs) - 1
}

// Target is the generator's target for a device: its architecture (arch,
// or compute_XY of its compute capability when arch is "") and the shared
// memory a block may opt into. The tuner culls plans against it before
// compiling anything.
func Target(facts gpu.DeviceFacts, arch string) gen.Target {
	if arch == "" {
		arch = fmt.Sprintf("compute_%d%d", facts.Major, facts.Minor)
	}
	t := gen.DefaultTarget()
	t.Arch = arch
	if facts.SharedOptin > t.MaxSharedPerBlock {
		t.MaxSharedPerBlock = facts.SharedOptin
	}
	return t
}

// Compile generates and compiles plan p for the device without running it:
// with a caching compiler, a later Prepare of the same plan loads the cached
// image. The tuner compiles candidates ahead this way, in parallel.
func Compile(comp gpu.Compiler, facts gpu.DeviceFacts, p ir.Plan, arch string) error {
	target := Target(facts, arch)
	out, err := gen.Generate(p, target)
	if err != nil {
		return err
	}
	if _, err := comp.Compile(gpu.CompileInput{Name: out.FileName, Source: out.Source, Headers: out.Headers, Arch: target.Arch, Options: out.Manifest.Options}); err != nil {
		return fmt.Errorf("plan %s: compiling %s: %w", p.Name(), out.FileName, err)
	}
	return nil
}

func kernelNames(v gen.Variant) string {
	var s []string
	for _, c := range v.Classes {
		if !c.Skip {
			s = append(s, c.Kernel)
		}
	}
	if len(s) == 0 {
		return "none"
	}
	return fmt.Sprint(s)
}
