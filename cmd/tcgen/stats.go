package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/tcgen/tcgen/graph"
)

// StatsCmd prints a graph's features.
type StatsCmd struct {
	GraphArg
	JSON bool `help:"Print the statistics as JSON."`
}

type statsResult struct {
	Graph      string         `json:"graph"`
	Format     string         `json:"format"`
	Gzip       bool           `json:"gzip"`
	FromCache  bool           `json:"from_cache"`
	InputEdges uint64         `json:"input_edges"`
	SelfLoops  uint64         `json:"self_loops_dropped"`
	Duplicates uint64         `json:"duplicates_dropped"`
	Isolated   uint64         `json:"isolated_dropped"`
	Features   graph.Features `json:"features"`
}

// Run implements the command.
func (c *StatsCmd) Run(g *Globals) error {
	l, err := g.load(c.GraphArg)
	if err != nil {
		return err
	}
	r := statsResult{
		Graph: c.Graph, Format: l.rep.Format, Gzip: l.rep.Gzip, FromCache: l.rep.FromCache,
		InputEdges: l.rep.InputEdges, SelfLoops: l.rep.SelfLoops, Duplicates: l.rep.Duplicates,
		Isolated: l.rep.Isolated, Features: graph.ComputeFeatures(l.g),
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
	fmt.Fprintf(tw, "dropped\t%s\n", droppedLine(l.rep))
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
	return tw.Flush()
}
