package executor

import (
	"fmt"
	"math"
	"strings"

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

// Feature returns the guard feature named f of the graph g, oriented as
// the plan says by oriented (called only for the features that depend on
// the orientation, or when g is nil: a graph read oriented, whose
// max_degree and words_per_neighbour cannot be known).
func Feature(f string, g *graph.Graph, oriented func() (*graph.Oriented, error)) (float64, error) {
	switch f {
	case ir.FeatureMaxDegree, ir.FeatureWords:
		if g == nil {
			return 0, fmt.Errorf("guard feature %s needs the undirected graph; the graph was read oriented: %w", f, errUnmeasured)
		}
		if f == ir.FeatureWords {
			return ratio(float64(graph.AdjWords(g)), 2*float64(g.Edges())), nil
		}
		return float64(maxDegree(&g.CSR)), nil
	case ir.FeatureAvgOutDeg, ir.FeatureAvgDegree, ir.FeatureVertices, ir.FeatureEdges, ir.FeatureDegreeCV:
		if g != nil {
			return sizeFeature(f, g, nil), nil
		}
		o, err := oriented()
		if err != nil {
			return 0, err
		}
		return sizeFeature(f, nil, o), nil
	case ir.FeatureMaxOutDeg, ir.FeatureWedges:
		o, err := oriented()
		if err != nil {
			return 0, err
		}
		if f == ir.FeatureMaxOutDeg {
			return float64(maxDegree(&o.CSR)), nil
		}
		var w float64
		for v := range o.N() {
			d := float64(o.Degree(uint32(v)))
			w += d * (d - 1) / 2
		}
		return ratio(w, float64(o.Arcs())), nil
	case ir.FeatureDRAM:
		return 0, fmt.Errorf("guard feature %s is the GPU's, not the graph's", f)
	}
	return 0, fmt.Errorf("unknown guard feature %q", f)
}

// errUnmeasured marks a feature a graph read oriented cannot give: a
// condition (when) on it does not hold (ir.ErrSkipVariant), the guard's own
// feature fails.
var errUnmeasured error = unmeasured{}

type unmeasured struct{}

func (unmeasured) Error() string        { return "not measurable on an oriented file" }
func (unmeasured) Is(target error) bool { return target == ir.ErrSkipVariant }

// sizeFeature is a feature of the sizes and degrees alone, the same under
// every orientation: from g, or from o when g is nil.
func sizeFeature(f string, g *graph.Graph, o *graph.Oriented) float64 {
	var n, e float64
	if g != nil {
		n, e = float64(g.N()), float64(g.Edges())
	} else {
		n, e = float64(o.N()), float64(o.Arcs())
	}
	switch f {
	case ir.FeatureAvgOutDeg:
		return ratio(e, n)
	case ir.FeatureAvgDegree:
		return ratio(2*e, n)
	case ir.FeatureVertices:
		return n
	case ir.FeatureEdges:
		return e
	}
	return degreeCV(g, o)
}

// ratio is a / b, 0 when b is 0 (the empty graph).
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func maxDegree(c *graph.CSR) uint64 {
	var d uint64
	for v := range c.N() {
		d = max(d, c.Degree(uint32(v)))
	}
	return d
}

// degreeCV is the coefficient of variation (stddev / mean) of the
// undirected degrees: from g's offsets, or, for a graph read oriented, from
// o's out- and in-degrees (each undirected edge is stored once there).
func degreeCV(g *graph.Graph, o *graph.Oriented) float64 {
	var sum, sq float64
	add := func(d float64) { sum, sq = sum+d, sq+d*d }
	var n int
	if g != nil {
		n = g.N()
		for v := range n {
			add(float64(g.Degree(uint32(v))))
		}
	} else {
		n = o.N()
		for _, d := range o.UndirectedDegrees() {
			add(float64(d))
		}
	}
	if n == 0 || sum == 0 {
		return 0
	}
	mean := sum / float64(n)
	return math.Sqrt(max(sq/float64(n)-mean*mean, 0)) / mean
}

// chooseVariant returns the variant of m's guard that the graph takes on
// a GPU of dram GB/s (ir.FeatureDRAM; 0: unknown): the first whose range
// holds the guard feature and whose conditions (When) all hold, with the
// values of the features it measured (nil without a guard).
func chooseVariant(m *gen.Manifest, g *graph.Graph, dram float64, oriented func() (*graph.Oriented, error)) (int, map[string]float64, error) {
	if m.Feature == "" {
		return 0, nil, nil
	}
	vals, errs := map[string]float64{}, map[string]error{}
	value := func(f string) (float64, error) {
		if f == ir.FeatureDRAM {
			vals[f] = dram
			return dram, nil
		}
		if err, ok := errs[f]; ok {
			return 0, err
		}
		if x, ok := vals[f]; ok {
			return x, nil
		}
		x, err := Feature(f, g, oriented)
		if err != nil {
			errs[f] = err // asked again by a later variant: the same answer
			return 0, err
		}
		vals[f] = x
		return x, nil
	}
	i, err := ir.Choose(m.Feature, len(m.Variants), func(i int) (float64, float64, []ir.Cond) {
		v := m.Variants[i]
		return v.Lo, v.Hi, v.When
	}, value)
	if err != nil {
		return 0, nil, err
	}
	return i, vals, nil
}

// Target is the generator's target for a device: its architecture (arch,
// or sm_XY of its compute capability when arch is "": NVRTC then emits the
// machine code, so loading the module needs no JIT by the driver, 120-160
// ms for the default plan with a cold driver cache on an H100) and the shared
// memory a block may opt into. The tuner culls plans against it before
// compiling anything.
func Target(facts gpu.DeviceFacts, arch string) gen.Target {
	if arch == "" {
		arch = fmt.Sprintf("sm_%d%d", facts.Major, facts.Minor)
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
