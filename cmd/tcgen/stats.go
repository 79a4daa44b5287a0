package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
)

// StatsCmd prints a graph's features.
type StatsCmd struct {
	GraphArg
	PlanArg
	JSON bool `help:"Print the statistics as JSON."`
	// Defaults: an H200's device-to-device copy rate (bytes read +
	// written) and shared-memory read rate over its 132 SMs, the GPU the
	// floor in docs/performance.md ("The floor") is given for.
	DRAMTBps float64 `name:"dram-tbps" default:"4.27" help:"DRAM bandwidth for the floor and for a guard on dram_gbps, TB/s (default: an H200's)."`
	SmemTBps float64 `name:"smem-tbps" default:"33.2" help:"Shared-memory bandwidth for the floor, TB/s (default: an H200's)."`
}

// planWork is a plan's work on the graph and the floor it implies.
type planWork struct {
	Plan    string `json:"plan"`
	Variant int    `json:"variant"`
	// Features are the guard's features measured to pick the variant.
	Features map[string]float64   `json:"guard_features,omitempty"`
	Classes  []executor.ClassWork `json:"classes"`
	FloorMs  float64              `json:"floor_ms"`
	DRAMMs   float64              `json:"dram_ms"`
	ProbeMs  float64              `json:"probe_ms"`
}

type statsResult struct {
	Graph      string `json:"graph"`
	Format     string `json:"format"`
	Gzip       bool   `json:"gzip"`
	FromCache  bool   `json:"from_cache"`
	InputEdges uint64 `json:"input_edges"`
	SelfLoops  uint64 `json:"self_loops_dropped"`
	Duplicates uint64 `json:"duplicates_dropped"`
	Isolated   uint64 `json:"isolated_dropped"`
	// DroppedUnknown: a CSR file that does not record its source's
	// cleaning (count's field of the name).
	DroppedUnknown bool           `json:"dropped_not_recorded,omitempty"`
	Features       graph.Features `json:"features"`
	Work           *planWork      `json:"work,omitempty"`
}

// Run implements the command.
func (c *StatsCmd) Run(g *Globals) error {
	if !(c.DRAMTBps > 0 && c.SmemTBps > 0) { // !(x > 0) also refuses NaN
		return errorf(exitUsage, "stats: --dram-tbps and --smem-tbps must be above 0")
	}
	l, err := g.load(c.GraphArg)
	if err != nil {
		return err
	}
	if err := l.undirected(c.Graph, "stats"); err != nil {
		return err
	}
	r := statsResult{
		Graph: c.Graph, Format: l.rep.Format, Gzip: l.rep.Gzip, FromCache: l.rep.FromCache,
		InputEdges: l.rep.InputEdges, SelfLoops: l.rep.SelfLoops, Duplicates: l.rep.Duplicates,
		Isolated: l.rep.Isolated, Features: graph.ComputeFeatures(l.g),
		DroppedUnknown: !droppedRecorded(l.g, l.rep),
	}
	if c.Preset != "" || c.Spec != "" {
		p, err := c.plan()
		if err != nil {
			return err
		}
		v, fv, work, err := executor.Workload(p, l.g, c.DRAMTBps*1000)
		if err != nil {
			return withCode(exitBadInput, err)
		}
		w := &planWork{Plan: p.Name(), Variant: v, Features: fv, Classes: work}
		w.FloorMs, w.DRAMMs, w.ProbeMs = executor.Floor(work, c.DRAMTBps*1e12, c.SmemTBps*1e12)
		r.Work = w
	}
	if c.JSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	f := r.Features
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "graph\t%s\n", r.Graph)
	fmt.Fprintf(tw, "format\t%s%s\n", r.Format, map[bool]string{true: " (gzip)"}[r.Gzip])
	fmt.Fprintf(tw, "vertices\t%d\n", f.Vertices)
	fmt.Fprintf(tw, "edges\t%d (undirected)\n", f.Edges)
	fmt.Fprintf(tw, "input records\t%d\n", r.InputEdges)
	if r.DroppedUnknown {
		fmt.Fprintf(tw, "dropped\tnot recorded (the file does not say what cleaning its source dropped)\n")
	} else {
		fmt.Fprintf(tw, "dropped\t%s\n", droppedLine(l.rep))
	}
	fmt.Fprintf(tw, "degree\tmax %d, mean %.3f, stddev %.3f\n", f.DegreeMax, f.DegreeMean, f.DegreeStddev)
	fmt.Fprintf(tw, "degree histogram\t")
	for k, n := range f.DegreeHist {
		if n > 0 {
			fmt.Fprintf(tw, "[%d,%d):%d ", uint64(1)<<k, uint64(1)<<(k+1), n)
		}
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "wedges\tundirected %d, by id %d, by degree %d\n", f.WedgesUndirected, f.WedgesByID, f.WedgesByDegree)
	fmt.Fprintf(tw, "sum min(d+u,d+v)\tby id %d, by degree %d\n", f.MinWorkByID, f.MinWorkByDegree)
	if f.Edges > 0 {
		fmt.Fprintf(tw, "id locality\t%d words of 32 ids, %.3f a neighbour (%s: 1/32 for runs of consecutive ids, near 1 for random ids)\n",
			f.AdjWords, float64(f.AdjWords)/float64(2*f.Edges), ir.FeatureWords)
	}
	if w := r.Work; w != nil {
		fmt.Fprintf(tw, "plan\t%s (variant %d%s)\n", w.Plan, w.Variant, featureList(w.Features))
		for _, cw := range w.Classes {
			if cw.Skip {
				fmt.Fprintf(tw, "  class %s\t%d items skipped (no triangle)\n", cw.Name, cw.Items)
				continue
			}
			fmt.Fprintf(tw, "  class %s\t%s/%s: %d items, %d intersections, %d shorter-list probes, %d element accesses, %.1f MB read at least once\n",
				cw.Name, cw.Iterator, cw.Intersection, cw.Items, cw.Intersections, cw.Probes, cw.Accesses, float64(cw.UniqueBytes)/1e6)
		}
		fmt.Fprintf(tw, "floor\t%.4f ms = max(unique bytes / %.3g TB/s = %.4f ms, probes x 4 B / %.3g TB/s = %.4f ms)\n",
			w.FloorMs, c.DRAMTBps, w.DRAMMs, c.SmemTBps, w.ProbeMs)
	}
	return tw.Flush()
}

// featureList is ", picked by name value, ..." for the guard features
// that chose a variant, in name order; "" without a guard.
func featureList(fv map[string]float64) string {
	if len(fv) == 0 {
		return ""
	}
	parts := make([]string, 0, len(fv))
	for _, k := range slices.Sorted(maps.Keys(fv)) {
		parts = append(parts, fmt.Sprintf("%s %.4g", k, fv[k]))
	}
	return ", picked by " + strings.Join(parts, ", ")
}
