package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/cuda"
)

// FuzzCmd checks random valid plans against the CPU oracle.
type FuzzCmd struct {
	GPUFlags
	Plans    int    `default:"100" help:"Number of random plans to draw."`
	Seed     uint64 `default:"1" help:"Seed of the plan and graph draws (a run is replayed by its seed)."`
	Graphs   int    `default:"3" help:"Graphs per plan (at least 2; the first is always a hub of degree above 4096)."`
	Backend  string `default:"auto" enum:"auto,gpu,compile" help:"gpu: run every plan and compare with the oracle; compile: generate and NVRTC-compile only (no GPU needed); auto: gpu when one opens, else compile."`
	Archs    string `default:"compute_80,compute_90" help:"Architectures the compile backend compiles for (comma-separated)."`
	Failures string `help:"Directory to write the spec of every failing plan into, for replay with count --spec." placeholder:"DIR" type:"path"`
	JSON     bool   `help:"Print the summary as JSON."`
}

// fuzzGraph is one graph of the pool with its oracle count.
type fuzzGraph struct {
	name string
	g    *graph.Graph
	tri  uint64
}

// hubLeaves: the pool's hub graphs exceed 4096 neighbours, past every
// shared-memory capacity a class might assume.
const hubLeaves = 4096 + 905

// fuzzPool builds the graphs plans are run on: hubs, small RMAT,
// Erdos-Renyi, grids, cliques, and empty and triangle-free graphs. All are
// deterministic for the seed.
func fuzzPool(seed uint64) ([]fuzzGraph, []fuzzGraph, error) {
	type spec struct {
		name string
		gen  graph.Generator
	}
	hubs := []spec{
		{"hub5001+er", graph.Hub{Leaves: hubLeaves, Extra: 20000, Seed: seed}},
		{"hub5001-star", graph.Hub{Leaves: hubLeaves, Extra: 0, Seed: seed}},
		{"hub9000+er", graph.Hub{Leaves: 9000, Extra: 60000, Seed: seed + 1}},
	}
	rest := []spec{
		{"rmat10", graph.RMAT{Scale: 10, EdgeFactor: 16, Seed: seed, A: .57, B: .19, C: .19}},
		{"rmat12", graph.RMAT{Scale: 12, EdgeFactor: 8, Seed: seed + 2, A: .57, B: .19, C: .19}},
		{"er2000", graph.ErdosRenyi{N: 2000, M: 30000, Seed: seed}},
		{"er-dense300", graph.ErdosRenyi{N: 300, M: 20000, Seed: seed + 3}},
		{"grid-diag", graph.Grid{Rows: 60, Cols: 70, Diagonals: true}},
		{"grid", graph.Grid{Rows: 50, Cols: 50}},
		{"K60", graph.Complete{N: 60}},
		{"bipartite", graph.CompleteBipartite{A: 40, B: 50}},
		{"wheel", graph.Wheel{Rim: 300}},
	}
	build := func(ss []spec) ([]fuzzGraph, error) {
		var out []fuzzGraph
		for _, s := range ss {
			g, _, err := graph.Generate(s.gen)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
			out = append(out, fuzzGraph{s.name, g, graph.Oracle(g)})
		}
		return out, nil
	}
	h, err := build(hubs)
	if err != nil {
		return nil, nil, err
	}
	r, err := build(rest)
	if err != nil {
		return nil, nil, err
	}
	// The empty graph: a plan must count 0 without launching on nothing.
	empty, _, err := graph.FromPairs(nil)
	if err != nil {
		return nil, nil, err
	}
	r = append(r, fuzzGraph{"empty", empty, 0})
	return h, r, nil
}

type fuzzFailure struct {
	Plan   string `json:"plan"`
	Graph  string `json:"graph,omitempty"`
	Got    uint64 `json:"got,omitempty"`
	Want   uint64 `json:"want,omitempty"`
	Error  string `json:"error,omitempty"`
	Spec   string `json:"spec"`
	Reason string `json:"reason"`
}

type fuzzSummary struct {
	Seed       uint64                    `json:"seed"`
	Backend    string                    `json:"backend"`
	Device     string                    `json:"device"`
	Plans      int                       `json:"plans"`
	Refused    int                       `json:"refused"`  // drawn but refused by gen.Check (with a reason)
	Runs       int                       `json:"runs"`     // (plan, graph) pairs counted on the GPU
	Compiles   int                       `json:"compiles"` // (plan, arch) units compiled
	Mismatches int                       `json:"mismatches"`
	Errors     int                       `json:"errors"`
	Failures   []fuzzFailure             `json:"failures,omitempty"`
	Histogram  map[string]map[string]int `json:"histogram"`
	Seconds    float64                   `json:"seconds"`
}

// Run implements the command.
func (c *FuzzCmd) Run(g *Globals) error {
	start := time.Now()
	if c.Plans < 1 || c.Graphs < 2 {
		return errorf(exitUsage, "fuzz: --plans must be at least 1 and --graphs at least 2")
	}
	sum := fuzzSummary{Seed: c.Seed, Histogram: map[string]map[string]int{}}
	var (
		dev  *cuda.Device
		comp gpu.Compiler
		err  error
	)
	if c.Backend != "compile" {
		dev, comp, err = g.openGPU(c.GPUFlags)
		switch {
		case err == nil:
			defer dev.Close()
			sum.Backend, sum.Device = "gpu", dev.Facts().Name
		case c.Backend == "auto" && noGPU(err):
			g.notice("fuzz: no usable GPU (%v); generating and compiling only", err)
		default:
			return err
		}
	}
	if sum.Backend == "" {
		sum.Backend = "compile"
		cc, err := cuda.NewCompiler(cuda.Options{NVRTCPath: c.NVRTC})
		if err != nil {
			return withCode(exitNoGPU, fmt.Errorf("fuzz: %w", err))
		}
		comp = cc
		maj, min := cc.Version()
		sum.Device = fmt.Sprintf("NVRTC %d.%d", maj, min)
	}
	var hubs, rest []fuzzGraph
	if sum.Backend == "gpu" {
		if hubs, rest, err = fuzzPool(c.Seed); err != nil {
			return err
		}
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x7463_6765_6e66_757a)) // "tcgenfuz": a fixed stream id
	pb := newProgress(g.Quiet, "fuzzing", "plans")
	defer pb.Done()
	for i := 0; i < c.Plans; i++ {
		if err := g.ctx.Err(); err != nil {
			return err
		}
		pb.Update(int64(i), int64(c.Plans))
		p := ir.RandomPlan(rng)
		p.Prefix = fmt.Sprintf("fuzz%d", i)
		sum.Plans++
		spec, _ := p.EncodeYAML()
		fail := func(f fuzzFailure) {
			f.Plan, f.Spec = p.Name(), string(spec)
			sum.Failures = append(sum.Failures, f)
			g.notice("fuzz: plan %s: %s", f.Plan, f.Reason)
		}
		if err := gen.Check(p); err != nil {
			if !errors.Is(err, gen.ErrNotGenerated) {
				sum.Errors++
				fail(fuzzFailure{Error: err.Error(), Reason: "RandomPlan drew a plan gen refuses as invalid"})
			} else {
				sum.Refused++
			}
			continue
		}
		histogram(sum.Histogram, p)
		if sum.Backend == "compile" {
			c.compilePlan(comp, p, &sum, fail)
			continue
		}
		// One hub graph always, then others drawn from the rest.
		picks := []fuzzGraph{hubs[i%len(hubs)]}
		for _, k := range rng.Perm(len(rest))[:c.Graphs-1] {
			picks = append(picks, rest[k])
		}
		runPlan(g, dev, comp, p, picks, &sum, fail)
	}
	pb.Done()
	sum.Seconds = time.Since(start).Seconds()
	return c.finish(g, &sum)
}

// compilePlan generates p and compiles it for every arch (the compile
// backend).
func (c *FuzzCmd) compilePlan(comp gpu.Compiler, p ir.Plan, sum *fuzzSummary, fail func(fuzzFailure)) {
	t := gen.DefaultTarget()
	// As `tcgen gen`: the smallest dynamic shared-memory opt-in of
	// compute 8.x/9.0, which the executor grants on a GPU.
	t.MaxSharedPerBlock = 99 << 10
	out, err := gen.Generate(p, t)
	if err != nil {
		sum.Errors++
		fail(fuzzFailure{Error: err.Error(), Reason: "generate failed"})
		return
	}
	for _, arch := range strings.Split(c.Archs, ",") {
		in := gpu.CompileInput{Name: out.FileName, Source: out.Source, Headers: out.Headers, Arch: arch, Options: gen.Options}
		if _, err := comp.Compile(in); err != nil {
			sum.Errors++
			fail(fuzzFailure{Error: err.Error(), Reason: "NVRTC compile failed for " + arch})
		} else {
			sum.Compiles++
		}
	}
}

// runPlan runs p once on each picked graph and checks it against the oracle.
func runPlan(g *Globals, dev *cuda.Device, comp gpu.Compiler, p ir.Plan, picks []fuzzGraph, sum *fuzzSummary, fail func(fuzzFailure)) {
	for _, fg := range picks {
		res, err := executor.Run(g.ctx, dev, comp, p, fg.g, executor.RunOptions{Repeat: 1})
		sum.Runs++
		switch {
		case err != nil:
			sum.Errors++
			fail(fuzzFailure{Graph: fg.name, Error: err.Error(), Reason: "run failed on " + fg.name})
		case res.Triangles != fg.tri:
			sum.Mismatches++
			fail(fuzzFailure{Graph: fg.name, Got: res.Triangles, Want: fg.tri,
				Reason: fmt.Sprintf("MISMATCH on %s: %d triangles, oracle %d", fg.name, res.Triangles, fg.tri)})
		default:
			if n, of := localDiffs(res); n > 0 { // localgpu.go
				sum.Mismatches++
				fail(fuzzFailure{Graph: fg.name, Got: res.Triangles, Want: fg.tri,
					Reason: fmt.Sprintf("MISMATCH on %s: per-%s counts differ from the oracle at %d of %d", fg.name, res.Output, n, of)})
			}
		}
	}
}

// finish writes the failing specs, prints the summary and picks the exit code.
func (c *FuzzCmd) finish(g *Globals, sum *fuzzSummary) error {
	if c.Failures != "" && len(sum.Failures) > 0 {
		if err := os.MkdirAll(c.Failures, 0o755); err != nil {
			return err
		}
		for _, f := range sum.Failures {
			if err := writeFileAtomic(filepath.Join(c.Failures, f.Plan+".yaml"), []byte(f.Spec)); err != nil {
				return err
			}
		}
	}
	if err := printFuzz(g, c.JSON, sum); err != nil {
		return err
	}
	switch {
	case sum.Mismatches > 0:
		return errorf(exitMismatch, "fuzz: %d mismatches in %d runs (specs above replay them with count --spec)", sum.Mismatches, sum.Runs)
	case sum.Errors > 0:
		return errorf(exitCompile, "fuzz: %d plans failed to generate, compile or run", sum.Errors)
	}
	return nil
}

// histogram counts the IR values a plan uses, per dimension.
func histogram(h map[string]map[string]int, p ir.Plan) {
	add := func(dim, val string) {
		if h[dim] == nil {
			h[dim] = map[string]int{}
		}
		h[dim][val]++
	}
	add("orientation", string(p.Orientation))
	add("relabel", fmt.Sprint(p.Relabel))
	add("output", string(p.EffectiveOutput()))
	classes := p.Canonical().Classes
	add("classes", fmt.Sprint(len(classes)))
	if p.HasPivot() {
		add("core", fmt.Sprint(p.Core)) // the class list's (ir.CoreSpec)
	}
	for _, cl := range classes {
		add("key", string(cl.Select.Key))
		if cl.Skip {
			add("skip", "true")
			continue
		}
		s := cl.Strategy
		add("iterator", string(s.Iterator))
		add("intersection", string(s.Intersection))
		add("pair", string(s.Iterator)+"/"+string(s.Intersection))
		add("width", fmt.Sprint(s.EffectiveWidth()))
		add("block", fmt.Sprint(s.EffectiveBlock()))
		for _, ps := range ir.ParamsFor(s) {
			add("param "+ps.Name, paramBin(ps, ir.Get(s, ps.Name)))
		}
	}
}

// paramBin names the histogram bin of a parameter value: the value itself
// for enumerations, powers of two and small ranges, else its power-of-two
// interval (a range such as chunk 1..8192 has too many values to count
// each).
func paramBin(ps ir.ParamSpec, v int64) string {
	if len(ps.Enum) > 0 || len(ps.Values) > 0 || ps.Pow2 || ps.Max-ps.Min < 16 || v <= 0 {
		return fmt.Sprint(v)
	}
	k := bits.Len64(uint64(v)) - 1
	return fmt.Sprintf("[%d,%d)", uint64(1)<<k, uint64(1)<<(k+1))
}

func printFuzz(g *Globals, asJSON bool, s *fuzzSummary) error {
	if asJSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	for _, f := range s.Failures {
		fmt.Fprintf(g.stdout, "# FAILED: %s\n# %s\n", f.Reason, strings.ReplaceAll(f.Error, "\n", "\n# "))
		fmt.Fprintln(g.stdout, f.Spec)
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "seed\t%d\n", s.Seed)
	fmt.Fprintf(tw, "backend\t%s (%s)\n", s.Backend, s.Device)
	fmt.Fprintf(tw, "plans\t%d drawn, %d refused by the generator (with a reason)\n", s.Plans, s.Refused)
	if s.Backend == "gpu" {
		fmt.Fprintf(tw, "runs\t%d (plan, graph) pairs checked against the oracle\n", s.Runs)
	} else {
		fmt.Fprintf(tw, "compiled\t%d (plan, architecture) units through NVRTC\n", s.Compiles)
	}
	fmt.Fprintf(tw, "mismatches\t%d\n", s.Mismatches)
	fmt.Fprintf(tw, "errors\t%d\n", s.Errors)
	fmt.Fprintf(tw, "time\t%.1f s\n", s.Seconds)
	fmt.Fprintln(tw, "\nIR values drawn (classes that run):")
	dims := make([]string, 0, len(s.Histogram))
	for d := range s.Histogram {
		dims = append(dims, d)
	}
	sort.Strings(dims)
	for _, d := range dims {
		vals := make([]string, 0, len(s.Histogram[d]))
		for v := range s.Histogram[d] {
			vals = append(vals, v)
		}
		sort.Strings(vals)
		var parts []string
		for _, v := range vals {
			parts = append(parts, fmt.Sprintf("%s:%d", v, s.Histogram[d][v]))
		}
		fmt.Fprintf(tw, "%s\t%s\n", d, strings.Join(parts, " "))
	}
	return tw.Flush()
}
