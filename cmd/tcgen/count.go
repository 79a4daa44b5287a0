package main

import (
	"encoding/json"
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"io"
	goruntime "runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// CountCmd counts triangles.
type CountCmd struct {
	GraphArg
	PlanArg
	GPUFlags
	Backend   string  `help:"Where to count: auto (the GPU when one opens, else the CPU with a notice), cpu, or gpu (fail with exit code 5 when no GPU opens)." enum:"auto,cpu,gpu" default:"auto"`
	Check     bool    `help:"Compare a GPU count with the CPU oracle; exit code 4 when they differ. A count on the CPU is the oracle's own: nothing to compare, and the output says so."`
	Expect    *uint64 `help:"Compare the count with N (a known count); exit code 4 when they differ." placeholder:"N"`
	Repeat    int     `help:"Timed runs, on the GPU or of the CPU oracle; the time reported is their median." default:"1"`
	Warmup    int     `help:"Untimed runs before the timed ones (on the CPU only with --repeat above 1)." default:"1"`
	PassOnly  bool    `help:"Record no events between the kernels of a pass: the gpu pass alone is timed, the class and preparation kernels are not."`
	NoGraph   bool    `name:"no-graph" help:"Launch every pass kernel by kernel. By default, with --repeat 2 and more, the timed runs replay the first run's launches as one CUDA graph (the output says so), which spares the GPU the host's time between launches."`
	FlushL2   bool    `name:"flush-l2" help:"Flush the GPU's L2 before each timed run (a write of twice its size, outside the run's timer), so no run finds the graph in L2 from the one before; the output says so."`
	GPUs      string  `name:"gpus" help:"Count on several GPUs at once, each with a share of the work: all, N (the first N), or a list of ordinals such as 0,2. The total only: not with --per-vertex, --per-edge, --clustering or --device-memory." placeholder:"all|N|LIST"`
	Rebalance int     `help:"With --gpus or --mpi: cut the work again up to N times before the timed runs, each from the GPUs' times in an untimed run, so that they finish together (default 2; 0: keep the cut of the work model). Only a pivot plan's split is cut again." default:"2" placeholder:"N"`
	MPI       bool    `name:"mpi" help:"Under mpirun or srun: every rank reads the graph and counts its share, on the GPU of its local rank (or with --backend cpu on the CPU); rank 0 prints the exact sum. Needs an MPI library (Open MPI or MPICH); exit code 8 without one. The total only; not with --gpus."`
	JSON      bool    `help:"Print the result as JSON."`
	// DeviceMemory and PartitionChunk: partition.go.
	DeviceMemory   string `name:"device-memory" help:"Cap the GPU memory the count may use (bytes, or with a suffix K, M, G, T: powers of 1024; none: no cap). A chosen plan above it falls back to smaller ones; when none fits, the graph is counted in partitions: blocks of rows kept on the GPU while the rows after them stream through (also without the cap, when the GPU is too small)." placeholder:"BYTES"`
	PartitionChunk string `name:"partition-chunk" help:"Size of a streamed chunk of rows when counting in partitions (bytes, or with a suffix K, M, G, T: powers of 1024; default or none: 1/32 of the memory for rows, at least the longest row)." placeholder:"BYTES"`
	PerVertex      string `help:"Write the number of triangles each vertex is in to FILE (id<TAB>triangles in input ids; a .npy name: a uint64 array, (n,) by id when the ids are dense, else (n, 2) rows [id, triangles]; on the GPU the plan counts per vertex: its output set to vertex)." placeholder:"FILE" type:"path"`
	PerEdge        string `help:"Write the number of triangles each edge is in to FILE (u<TAB>v<TAB>triangles, u < v in input ids; a .npy name: a (m, 3) uint64 array; on the GPU the plan counts per edge: its output set to edge)." placeholder:"FILE" type:"path"`
	// Clustering and ClusteringStats need the per-vertex counts.
	Clustering      string `help:"Write each vertex's local clustering coefficient, its triangles over C(degree, 2) (0 below degree 2), to FILE (id<TAB>coefficient; a .npy name: float64, (n,) or (n, 2) rows [id, coefficient] as for --per-vertex)." placeholder:"FILE" type:"path"`
	ClusteringStats bool   `help:"Add the global transitivity (3 x triangles / wedges) and the average clustering coefficient to the output (also given by the local outputs)."`
}

// countResult is what count prints; the JSON field names are stable.
type countResult struct {
	Graph   string `json:"graph"`
	Backend string `json:"backend"`
	Device  string `json:"device"`
	Plan    string `json:"plan,omitempty"`
	// PlanSource says where a plan chosen without --preset or --spec came
	// from: "store" (this graph's tuned best on this GPU), "model"
	// (predicted from the tuned graphs), "default" (examples/default.yaml),
	// "fallback" (one of those could not take the graph: fallbackSpecs).
	PlanSource string `json:"plan_source,omitempty"`
	// NotRun names the plan asked for when the CPU oracle counted instead
	// (no usable GPU, --backend auto): "preset trust", "spec FILE", "the
	// default plan".
	NotRun    string  `json:"plan_not_run,omitempty"`
	Vertices  uint64  `json:"vertices"`
	Edges     uint64  `json:"edges"`
	DegreeMax uint64  `json:"degree_max,omitempty"` // 0 for an oriented file (in-degrees not counted)
	Triangles uint64  `json:"triangles"`
	LoadMs    float64 `json:"load_ms"`
	// An edge-list source read now (not from the cache): load_ms split into
	// parsing and cleaning (graph.Report).
	ParseMs   float64 `json:"parse_ms,omitempty"`
	CleanMs   float64 `json:"clean_ms,omitempty"`
	FromCache bool    `json:"from_cache"`
	PrepareMs float64 `json:"prepare_ms"`
	// GPU runs: context_ms opens the device (the driver's start, then the
	// context), in the background from the start while the graph is read
	// and, once the driver gives the device's facts, the plan is prepared
	// on the host; context_wait_ms is what the count waited for the facts
	// and the compiler (NVRTC where it loads), and then for the context;
	// first_run_ms is the wall time of the first pass (launches, count read
	// back). prepare_ms holds orientation, host lists, generation,
	// compilation or kernel-cache hit, module load and upload (gpu.*_ms).
	ContextMs     float64 `json:"context_ms,omitempty"`
	ContextWaitMs float64 `json:"context_wait_ms,omitempty"`
	// PlanMs reads the plan; FactsMs, without a plan given, picks one on
	// the device's facts (GPU runs).
	PlanMs  float64 `json:"plan_ms"`
	FactsMs float64 `json:"facts_ms,omitempty"`
	// ClockSource says where gpu.device's clocks come from: "nvml", read
	// after the timed runs (--repeat 2 and more), or "driver", nominal.
	ClockSource string  `json:"clock_source,omitempty"`
	FirstRunMs  float64 `json:"first_run_ms,omitempty"`
	CountMs     float64 `json:"count_ms"`
	EdgesPerSec float64 `json:"edges_per_second"`
	// GPU runs: kernel_ms is the median over the timed runs of the sum of
	// the class kernels' event times; total_ms is the wall time from the
	// command's start until the first count was known (load, orient, work
	// lists, generate, compile, upload, one run).
	KernelMs    float64 `json:"kernel_ms,omitempty"`
	KernelMinMs float64 `json:"kernel_min_ms,omitempty"`
	KernelMaxMs float64 `json:"kernel_max_ms,omitempty"`
	// gpu_ms: one event pair around a whole pass (counters zeroed, lists
	// built on the device, every class kernel, the reduction): median, min
	// and max over the timed runs (executor.Result.GPUMs).
	GPUMs    float64 `json:"gpu_ms,omitempty"`
	GPUMinMs float64 `json:"gpu_min_ms,omitempty"`
	GPUMaxMs float64 `json:"gpu_max_ms,omitempty"`
	Runs     int     `json:"runs,omitempty"`
	TotalMs  float64 `json:"total_ms,omitempty"`
	// ReleaseMs (GPU runs): freeing the plan's buffers and modules and
	// releasing the context after the runs, before the output.
	ReleaseMs  float64          `json:"release_ms,omitempty"`
	GPU        *executor.Result `json:"gpu,omitempty"`
	Reference  *uint64          `json:"reference,omitempty"`
	Checked    string           `json:"checked,omitempty"` // what the count was compared with
	SelfLoops  uint64           `json:"self_loops_dropped"`
	Duplicates uint64           `json:"duplicates_dropped"`
	Isolated   uint64           `json:"isolated_dropped"`
	// DroppedUnknown: a CSR file that does not record what cleaning its
	// source dropped (written by an older tcgen); the three counts above
	// are then 0 and mean nothing.
	DroppedUnknown bool `json:"dropped_not_recorded,omitempty"`
	// CPU counts with --repeat: count_ms is the median of Runs, these the
	// extremes.
	CountMinMs float64 `json:"count_min_ms,omitempty"`
	CountMaxMs float64 `json:"count_max_ms,omitempty"`
	// With a local output or --clustering-stats: the wedges (sum of
	// C(degree, 2)), 3 x triangles / wedges, and the mean of the vertices'
	// local clustering coefficients (over the graph's vertices: cleaning
	// dropped the isolated ones).
	Wedges        uint64   `json:"wedges,omitempty"`
	Transitivity  *float64 `json:"transitivity,omitempty"`
	AvgClustering *float64 `json:"average_clustering,omitempty"`

	// Measurement is the timed runs as the timing routine reports them
	// (executor.Measurement: every run, median, min, max, the median's 95%
	// confidence interval, warm-ups, L2 flush), on the GPU of the whole
	// pass (gpu_ms), on the CPU of the oracle's count (count_ms).
	Measurement *executor.Measurement `json:"measurement,omitempty"`

	// --gpus: each GPU's part, and the modelled work's share of the one
	// slowest in median (gpu.devices has them too).
	Devices      []executor.DeviceRun `json:"devices,omitempty"`
	SlowestShare float64              `json:"slowest_device_share,omitempty"`
	// --rebalance: each measured rebalance before the timed runs.
	Rebalance []executor.RebalanceRound `json:"rebalance,omitempty"`
	// --mpi: the ranks' counts and times (count_mpi.go); the fields above
	// hold the sum and the slowest rank's time, gpu and devices rank 0's run.
	MPI *mpiResult `json:"mpi,omitempty"`
}

// Run implements the command.
func (c *CountCmd) Run(g *Globals) error {
	start := time.Now()
	if err := c.checkFlags(g); err != nil {
		return err
	}
	p, err := c.plan()
	if err != nil {
		return err
	}
	planMs := msSince(start)
	if c.MPI {
		return c.countMPI(g, p, start, planMs)
	}
	gpu := c.Backend != "cpu"
	var gs startedGPU
	if gpu && c.GPUs == "" {
		gs = g.startGPU(c.GPUFlags, true)
	}
	// On the GPU, the checks of an oriented CSR file's lists are made by
	// the upload, as it reads them (executor.Prepare): one pass over the
	// file instead of two. Not when the plan comes from the tuning store:
	// its key, graph.Fingerprint, reads every list first anyway.
	l, err := g.loadDeferred(c.GraphArg, gpu && (c.Preset != "" || c.Spec != "" || g.NoStore))
	if err != nil {
		return err
	}
	// An oriented CSR file (convert --orient) is counted as it is, without
	// orienting it again; commands and options that need the undirected
	// graph refuse it.
	o := graph.FileOriented(l.g, l.rep)
	if o == nil {
		if err := l.checked(); err != nil {
			return err
		}
	}
	if o != nil && c.localFlag() != "" {
		return errorf(exitBadInput, "%s: %s needs the undirected graph; this file is oriented by %s", c.Graph, c.localFlag(), o.By)
	}
	res := c.newResult(l, o, planMs)
	var loc localCounts
	if gpu && c.localOutput() != ir.OutputTotal {
		p, gpu, err = c.localPlan(g, p, &res) // localgpu.go
		if err != nil {
			return err
		}
	}
	if gpu {
		if gpu, err = c.dispatchGPU(g, gs, p, l.g, o, &res, &loc, start); err != nil {
			return err
		}
	}
	// The lists' checks, made by the upload or now; the host reads the
	// lists (unpacking a packed file) only to count or check on the CPU.
	finish := l.checked
	if gpu && !c.Check {
		finish = l.verified
	}
	if err := finish(); err != nil {
		return err
	}
	if !gpu {
		if err := c.countCPU(g, l.g, o, &res, &loc); err != nil {
			return err
		}
		res.TotalMs = msSince(start)
	}
	if err := c.verify(g, l.g, o, &res); err != nil {
		return err
	}
	if err := c.verifyLocal(g, &loc, &res); err != nil { // localgpu.go
		return err
	}
	if res.CountMs > 0 {
		res.EdgesPerSec = float64(res.Edges) / (res.CountMs / 1e3)
	}
	if err := c.writeLocal(g, l.g, &loc, &res); err != nil {
		return err
	}
	return printCount(g, c.JSON, &res)
}

// newResult starts count's result with what reading the graph reported.
func (c *CountCmd) newResult(l *loaded, o *graph.Oriented, planMs float64) countResult {
	res := countResult{
		Graph:      c.Graph,
		Vertices:   uint64(l.g.N()),
		Edges:      l.g.Edges(),
		LoadMs:     l.loadMs,
		PlanMs:     planMs,
		ParseMs:    l.rep.ParseMs,
		CleanMs:    l.rep.CleanMs,
		FromCache:  l.rep.FromCache,
		SelfLoops:  l.rep.SelfLoops,
		Duplicates: l.rep.Duplicates,
		Isolated:   l.rep.Isolated,
		// The cleaning of a CSR file's source is unknown when the file
		// does not record it (droppedRecorded).
		DroppedUnknown: !droppedRecorded(l.g, l.rep),
	}
	if o != nil {
		res.Edges = o.Arcs() // each edge once
	} else {
		res.DegreeMax = maxDegree(l.g)
	}
	return res
}

// dispatchGPU counts on the GPU (several with --gpus). It reports false, and
// no error, when --backend auto finds no usable GPU: the CPU oracle counts.
func (c *CountCmd) dispatchGPU(g *Globals, gs startedGPU, p ir.Plan, gr *graph.Graph, o *graph.Oriented, res *countResult, loc *localCounts, start time.Time) (bool, error) {
	var err error
	if c.GPUs != "" {
		err = c.countGPUs(g, p, gr, o, res, start)
	} else {
		err = c.countGPU(g, gs, p, gr, o, res, loc, start)
	}
	switch {
	case err == nil:
		return true, nil
	case c.Backend == "auto" && noGPU(err):
		res.NotRun = c.planLabel()
		ignored := ""
		if c.GPUs != "" {
			ignored = fmt.Sprintf(" (nor --gpus %s)", strings.TrimSpace(c.GPUs))
		}
		g.notice("count: no usable GPU (%v); %s was not run%s: counting with the CPU oracle", err, res.NotRun, ignored)
		return false, nil
	}
	return false, err
}

// checkFlags refuses flags that do not go together, and local output
// files that cannot be written, before any work.
func (c *CountCmd) checkFlags(g *Globals) error {
	if err := c.checkLocalFlags(g); err != nil {
		return err
	}
	if c.Repeat < 1 || c.Warmup < 0 {
		return errorf(exitUsage, "count: --repeat must be at least 1 and --warmup at least 0")
	}
	if err := c.checkPartitionFlags(); err != nil { // partition.go
		return err
	}
	if c.FlushL2 && c.Backend == "cpu" {
		return errorf(exitUsage, "count: --flush-l2 flushes the GPU's L2 between runs; --backend cpu runs none")
	}
	if err := c.checkMPI(); err != nil { // count_mpi.go
		return err
	}
	return c.checkGPUs()
}

// verify compares the count with --expect and, for GPU counts with
// --check, with the CPU oracle.
func (c *CountCmd) verify(g *Globals, gr *graph.Graph, o *graph.Oriented, res *countResult) error {
	var ref uint64
	switch {
	case c.Expect != nil:
		ref, res.Checked = *c.Expect, "expected (--expect)"
	case c.Check && res.Backend == "cpu":
		// The CPU count is the oracle: checking it against itself proves
		// nothing, and the output says so.
		res.Checked = "nothing: the count is the CPU oracle's own"
		if res.NotRun != "" {
			res.Checked += "; " + res.NotRun + " was not run"
		}
		return nil
	case c.Check:
		var err error
		if ref, err = g.oracle(gr, o, "checking (CPU oracle)"); err != nil {
			return err
		}
		res.Checked = "CPU oracle"
	default:
		return nil
	}
	res.Reference = &ref
	if res.Triangles != ref {
		_ = printCount(g, c.JSON, res)
		return errorf(exitMismatch, "count mismatch: %s counted %d triangles, the %s says %d", res.Plan, res.Triangles, res.Checked, ref)
	}
	return nil
}

func maxDegree(g *graph.Graph) uint64 {
	var d uint64
	for v := range g.N() {
		d = max(d, g.Degree(uint32(v)))
	}
	return d
}

// countCPU runs the oracle: degree orientation with relabelling (prepare),
// then the parallel exact count; with --repeat above 1, --warmup untimed
// counts and --repeat timed ones, of which count_ms is the median.
func (c *CountCmd) countCPU(g *Globals, gr *graph.Graph, o *graph.Oriented, res *countResult, loc *localCounts) error {
	res.Backend = "cpu"
	res.Device = fmt.Sprintf("CPU, %d threads", goruntime.GOMAXPROCS(0))
	res.Plan = "oracle"
	if err := g.oracleFits(gr, o, c.localFlag() != "", c.PerEdge != ""); err != nil {
		return err
	}
	o, err := g.oracleOrientation(gr, o, &res.PrepareMs)
	if err != nil {
		return err
	}
	loc.o = o
	runs, warmup := 1, 0
	if c.Repeat > 1 {
		runs, warmup = c.Repeat, c.Warmup
	}
	var ms []float64
	for i := range warmup + runs {
		desc := "counting (CPU oracle)"
		if warmup+runs > 1 {
			desc = fmt.Sprintf("counting (CPU oracle), run %d of %d", i+1, warmup+runs)
		}
		pb := newProgress(g.Quiet, desc, "edges")
		start := time.Now()
		switch {
		case c.PerEdge != "":
			res.Triangles, loc.support, err = graph.CountPerEdgeContext(g.ctx, o, pb.Update)
		case c.localFlag() != "":
			res.Triangles, loc.perVertex, err = graph.CountPerVertexContext(g.ctx, o, pb.Update)
		default:
			res.Triangles, err = graph.CountTrianglesContext(g.ctx, o, pb.Update)
		}
		if i >= warmup {
			ms = append(ms, msSince(start))
		}
		pb.Done()
		if err != nil {
			return err
		}
	}
	m := executor.Summarize(ms, warmup)
	res.Measurement = &m
	res.CountMs = m.MedianMs
	if runs > 1 {
		res.Runs, res.CountMinMs, res.CountMaxMs = runs, m.MinMs, m.MaxMs
	}
	return nil
}

// oracle counts the triangles of gr, or of o when it is not nil (an
// oriented file), with the CPU oracle and a progress line, once it fits
// the memory limit; ctx stops it.
func (g *Globals) oracle(gr *graph.Graph, o *graph.Oriented, desc string) (uint64, error) {
	if err := g.oracleFits(gr, o, false, false); err != nil {
		return 0, err
	}
	pb := newProgress(g.Quiet, desc, "edges")
	defer pb.Done()
	if o == nil {
		var err error
		if o, err = graph.OrientContext(g.ctx, gr, graph.ByDegree, true); err != nil {
			return 0, err
		}
	}
	return graph.CountTrianglesContext(g.ctx, o, pb.Update)
}

// oracleFits refuses a CPU count whose orientation, in-lists and
// per-worker scratch (graph.OracleBytes), and with perEdge the supports
// (graph.PerEdgeBytes), exceed the memory limit; o is the file's
// orientation when it has one (nothing to orient then).
func (g *Globals) oracleFits(gr *graph.Graph, o *graph.Oriented, perVertex, perEdge bool) error {
	mem, err := g.memory()
	if err != nil {
		return err
	}
	n, arcs := uint64(gr.N()), gr.Arcs()
	if o != nil {
		arcs = 2 * o.Arcs() // OracleBytes counts the symmetric arcs
	}
	need := graph.OracleBytes(n, arcs, goruntime.GOMAXPROCS(0), perVertex)
	if e := graph.PerEdgeBytes(arcs); perEdge {
		need += e
		if need < e {
			need = ^uint64(0) // saturate: a sum that wraps does not fit either
		}
	}
	return mem.Check("counting on the CPU", need)
}

// planLabel names the plan count was asked to run, for messages.
func (c *CountCmd) planLabel() string {
	switch {
	case c.Preset != "":
		return "preset " + c.Preset
	case c.Spec != "":
		return "spec " + c.Spec
	}
	return "the default plan"
}

func printCount(g *Globals, asJSON bool, r *countResult) error {
	if asJSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	src := "read"
	if r.FromCache {
		src = "from cache"
	}
	fmt.Fprintf(tw, "graph\t%s\n", r.Graph)
	fmt.Fprintf(tw, "triangles\t%d\n", r.Triangles)
	fmt.Fprintf(tw, "vertices\t%d\n", r.Vertices)
	fmt.Fprintf(tw, "edges\t%d\n", r.Edges)
	if r.DegreeMax > 0 {
		fmt.Fprintf(tw, "max degree\t%d\n", r.DegreeMax)
	}
	if r.DroppedUnknown {
		fmt.Fprintf(tw, "dropped\tnot recorded (the file does not say what cleaning its source dropped)\n")
	} else {
		fmt.Fprintf(tw, "dropped\t%d self loops, %d duplicate edges, %d isolated vertices\n", r.SelfLoops, r.Duplicates, r.Isolated)
	}
	fmt.Fprintf(tw, "backend\t%s (%s)\n", r.Backend, r.Device)
	switch {
	case r.NotRun != "":
		fmt.Fprintf(tw, "plan\t%s (%s was not run: no usable GPU)\n", r.Plan, r.NotRun)
	case r.Plan != "" && r.GPU != nil && r.GPU.Feature != "": // a guarded plan: what the guard chose
		fmt.Fprintf(tw, "plan\t%s (variant %d, oriented by %s)\n", r.Plan, r.GPU.Variant, r.GPU.Orientation)
	case r.Plan != "":
		fmt.Fprintf(tw, "plan\t%s\n", r.Plan)
	}
	fmt.Fprintf(tw, "load\t%.3f ms (%s)\n", r.LoadMs, src)
	if r.ParseMs > 0 {
		fmt.Fprintf(tw, "\t%.3f ms parsing on %d cores, %.3f ms cleaning\n", r.ParseMs, goruntime.GOMAXPROCS(0), r.CleanMs)
	}
	if r.Backend == "gpu" {
		fmt.Fprintf(tw, "context\t%.3f ms (driver and context), %.3f ms waited for it and the compiler\n", r.ContextMs, r.ContextWaitMs)
	}
	fmt.Fprintf(tw, "prepare\t%.3f ms\n", r.PrepareMs)
	if d := r.GPU; d != nil && len(d.Phases) > 0 {
		var parts []string
		for _, ph := range d.Phases {
			if ph.Ms >= 0.05 {
				parts = append(parts, fmt.Sprintf("%s %.1f", ph.Name, ph.Ms))
			}
		}
		fmt.Fprintf(tw, "\t%s ms; the graph's upload ran %.1f ms of that in the background\n", strings.Join(parts, ", "), d.UploadWallMs)
	}
	if r.Backend == "gpu" {
		fmt.Fprintf(tw, "kernel\t%.4f ms median of %d runs (min %.4f, max %.4f)\n", r.KernelMs, r.Runs, r.KernelMinMs, r.KernelMaxMs)
		fmt.Fprintf(tw, "gpu pass\t%.4f ms median (min %.4f, max %.4f): counters, device-side lists, kernels, reduction\n", r.GPUMs, r.GPUMinMs, r.GPUMaxMs)
		if m := r.Measurement; m != nil {
			fmt.Fprintf(tw, "\t%s\n", ciText(m, true))
		}
		if d := r.GPU; d != nil && d.Graph {
			fmt.Fprintf(tw, "\tthe timed runs replayed the first run's launches as one CUDA graph (--no-graph: kernel by kernel)\n")
		} else if d != nil && d.GraphError != "" {
			fmt.Fprintf(tw, "\tlaunched kernel by kernel, not as a CUDA graph: %s\n", d.GraphError)
		}
		printDevices(tw, r)
		printPartition(tw, r) // partition.go
		if d := r.GPU; d != nil && d.Device.ClockMHz > 0 {
			src := "NVML, after the runs"
			if r.ClockSource != "nvml" {
				src = "the driver's nominal"
			}
			fmt.Fprintf(tw, "clocks\tSM %d MHz, memory %d MHz (%s)\n", d.Device.ClockMHz, d.Device.MemClockMHz, src)
		}
		fmt.Fprintf(tw, "total\t%.3f ms (start to first count)\n", r.TotalMs)
		if r.ReleaseMs > 0 {
			fmt.Fprintf(tw, "release\t%.3f ms (buffers, modules and context, after the runs)\n", r.ReleaseMs)
		}
	} else if r.Runs > 1 {
		fmt.Fprintf(tw, "count\t%.3f ms median of %d runs (min %.3f, max %.3f)\n", r.CountMs, r.Runs, r.CountMinMs, r.CountMaxMs)
		if m := r.Measurement; m != nil {
			fmt.Fprintf(tw, "\t%s\n", ciText(m, false))
		}
	} else {
		fmt.Fprintf(tw, "count\t%.3f ms\n", r.CountMs)
	}
	printRanks(tw, r) // count_mpi.go
	switch {
	case r.Reference == nil && r.Checked != "":
		fmt.Fprintf(tw, "checked\t%s\n", r.Checked)
	case r.Reference == nil:
	case *r.Reference == r.Triangles:
		fmt.Fprintf(tw, "checked\tequal to the %s\n", r.Checked)
	default:
		fmt.Fprintf(tw, "checked\tMISMATCH: the %s says %d\n", r.Checked, *r.Reference)
	}
	if r.Transitivity != nil {
		fmt.Fprintf(tw, "transitivity\t%.6g (3 x triangles / %d wedges)\n", *r.Transitivity, r.Wedges)
		fmt.Fprintf(tw, "clustering\t%.6g average local coefficient\n", *r.AvgClustering)
	}
	fmt.Fprintf(tw, "rate\t%.4g edges/s\n", r.EdgesPerSec)
	return tw.Flush()
}

// writePerVertex writes "id<TAB>triangles" lines atomically.
func (g *Globals) writePerVertex(path string, gr *graph.Graph, counts []uint64) error {
	return g.writeAtomic(path, func(w io.Writer) error {
		var buf []byte
		for v, n := range counts {
			buf = strconv.AppendUint(buf[:0], gr.OrigID(uint32(v)), 10)
			buf = append(buf, '\t')
			buf = strconv.AppendUint(buf, n, 10)
			buf = append(buf, '\n')
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	})
}

// oracleOrientation is o, or gr oriented by degree and relabelled for the
// CPU oracle, its time in *ms.
func (g *Globals) oracleOrientation(gr *graph.Graph, o *graph.Oriented, ms *float64) (*graph.Oriented, error) {
	start := time.Now()
	defer func() { *ms = msSince(start) }()
	if o != nil {
		return o, nil
	}
	return graph.OrientContext(g.ctx, gr, graph.ByDegree, true)
}
