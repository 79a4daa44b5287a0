package executor

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

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
	case ir.FeatureDegreeCV:
		return degreeCV(g, o), nil
	case ir.FeatureWedges:
		if e == 0 {
			return 0, nil
		}
		var w float64
		for v := range o.N() {
			d := float64(o.Degree(uint32(v)))
			w += d * (d - 1) / 2
		}
		return w / e, nil
	case ir.FeatureVertices:
		return n, nil
	case ir.FeatureEdges:
		return e, nil
	}
	return 0, fmt.Errorf("unknown guard feature %q", f)
}

// degreeCV is the coefficient of variation (stddev / mean) of the
// undirected degrees: from g's offsets, or, for a graph read oriented, from
// each vertex's out-degree plus the in-degree counted over o's lists (each
// undirected edge is stored once there). Entries out of range, which the
// list checks refuse later, are not counted.
func degreeCV(g *graph.Graph, o *graph.Oriented) float64 {
	var deg []uint64
	if g != nil {
		deg = make([]uint64, g.N())
		for v := range deg {
			deg[v] = g.Degree(uint32(v))
		}
	} else {
		deg = inPlusOutDegrees(&o.CSR)
	}
	if len(deg) == 0 {
		return 0
	}
	var sum, sq float64
	for _, d := range deg {
		x := float64(d)
		sum += x
		sq += x * x
	}
	n := float64(len(deg))
	mean := sum / n
	if mean == 0 {
		return 0
	}
	return math.Sqrt(max(sq/n-mean*mean, 0)) / mean
}

// inPlusOutDegrees counts each vertex's entries of an oriented CSR as the
// tail and the head of an arc, on all cores.
func inPlusOutDegrees(c *graph.CSR) []uint64 {
	n := c.N()
	in := make([]uint32, n)
	workers := min(runtime.GOMAXPROCS(0), max(1, len(c.Adj)>>20))
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := len(c.Adj)*w/workers, len(c.Adj)*(w+1)/workers
		wg.Go(func() {
			for _, v := range c.Adj[lo:hi] {
				if int(v) < n {
					atomic.AddUint32(&in[v], 1)
				}
			}
		})
	}
	wg.Wait()
	deg := make([]uint64, n)
	for v := range deg {
		deg[v] = c.Degree(uint32(v)) + uint64(in[v])
	}
	return deg
}

// chooseVariant returns the variant of m's guard that the graph takes:
// the first whose range holds the guard feature and whose conditions
// (When) all hold, with the values of the features it measured (nil
// without a guard).
func chooseVariant(m *gen.Manifest, g *graph.Graph, o *graph.Oriented) (int, map[string]float64, error) {
	if m.Feature == "" {
		return 0, nil, nil
	}
	vals := map[string]float64{}
	value := func(f string) (float64, error) {
		if x, ok := vals[f]; ok {
			return x, nil
		}
		x, err := Feature(f, g, o)
		vals[f] = x
		return x, err
	}
	x, err := value(m.Feature)
	if err != nil {
		return 0, nil, err
	}
next:
	for i, v := range m.Variants {
		if !(ir.Cond{Lo: v.Lo, Hi: v.Hi}).Holds(x) {
			continue
		}
		for _, c := range v.When {
			y, err := value(c.Feature)
			if err != nil {
				return 0, nil, err
			}
			if !c.Holds(y) {
				continue next
			}
		}
		return i, vals, nil
	}
	return len(m.Variants) - 1, vals, nil
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

// CodeHash is gen.CodeHash of plan p as this build generates it for the
// device (Target(facts, arch)): the tuning store's key for what ran.
func CodeHash(facts gpu.DeviceFacts, p ir.Plan, arch string) (string, error) {
	target := Target(facts, arch)
	out, err := gen.Generate(p, target)
	if err != nil {
		return "", err
	}
	return gen.CodeHash(out, target.Arch), nil
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
	for vi := range out.Manifest.Variants {
		in, err := compileInput(out, vi, target.Arch)
		if err != nil {
			return err
		}
		if _, err := comp.Compile(in); err != nil {
			return fmt.Errorf("plan %s: compiling %s: %w", p.Name(), in.Name, err)
		}
		if out.Manifest.Feature == "" {
			break // one source for the whole plan
		}
	}
	return nil
}

// compileInput is what the compiler gets for variant vi of a plan: a
// guarded plan compiles the class list the graph takes, not every list.
func compileInput(out *gen.Output, vi int, arch string) (gpu.CompileInput, error) {
	in := gpu.CompileInput{Name: out.FileName, Source: out.Source, Headers: out.Headers, Arch: arch, Options: out.Manifest.Options}
	if out.Manifest.Feature == "" {
		return in, nil
	}
	src, err := out.SourceFor(vi)
	if err != nil {
		return in, err
	}
	in.Name, in.Source = fmt.Sprintf("%s_v%d.cu", strings.TrimSuffix(out.FileName, ".cu"), vi), src
	return in, nil
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
