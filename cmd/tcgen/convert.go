package main

import (
	"fmt"

	"github.com/tcgen/tcgen/graph"
)

// ConvertCmd writes a graph in tcgen's binary CSR format (what the cache
// holds), or as an edge list when the output name says so.
type ConvertCmd struct {
	GraphArg
	Output  string `short:"o" required:"" help:"Output file: .tcsr for tcgen's CSR format; .mtx, .bin32, .bin64 or any other name (text edge list) write edges; a trailing .gz compresses edge lists." placeholder:"FILE" type:"path"`
	Orient  string `help:"Write the oriented graph (.tcsr only): none, degree or id. count then skips orienting it, for plans of that orientation (and --relabel)." enum:"none,degree,id" default:"none"`
	Relabel bool   `help:"With --orient: renumber the vertices in the orientation's order (what plans with relabel: true need)."`
}

// Run implements the command.
func (c *ConvertCmd) Run(g *Globals) error {
	if c.Relabel && c.Orient == "none" {
		return errorf(exitUsage, "convert: --relabel needs --orient degree or id")
	}
	l, err := g.load(c.GraphArg)
	if err != nil {
		return err
	}
	if err := l.undirected(c.Graph, "convert"); err != nil {
		return err
	}
	if c.Orient != "none" {
		return c.writeOriented(g, l)
	}
	if err := writeGraph(c.Output, l.g, l.rep); err != nil {
		return err
	}
	g.notice("wrote %s: %d vertices, %d edges (dropped %s)", c.Output, l.g.N(), l.g.Edges(), droppedLine(l.rep))
	return nil
}

// writeGraph writes g to path in the format its name implies, atomically.
func writeGraph(path string, g *graph.Graph, rep *graph.Report) error {
	format, gz := graph.OutputFormat(path)
	if format == "csr" {
		if gz {
			return errorf(exitUsage, "%s: the CSR format is not gzipped; drop the .gz", path)
		}
		return graph.WriteCSR(path, g, graph.CacheMeta{})
	}
	if err := graph.WriteEdgesFile(path, g); err != nil {
		return fmt.Errorf("writing %w", err)
	}
	return nil
}

// writeOriented writes the graph oriented (and relabelled) as a CSR file:
// each edge once, out-lists sorted, no original ids (relabelling loses
// their order; per-vertex output needs the undirected file).
func (c *ConvertCmd) writeOriented(g *Globals, l *loaded) error {
	format, _ := graph.OutputFormat(c.Output)
	if format != "csr" {
		return errorf(exitUsage, "convert: --orient writes tcgen's CSR format only; name the output .tcsr")
	}
	by := graph.ByDegree
	if c.Orient == "id" {
		by = graph.ByID
	}
	o := graph.Orient(l.g, by, c.Relabel)
	meta := graph.CacheMeta{Orientation: by, Relabelled: c.Relabel, Report: *l.rep}
	if err := graph.WriteCSR(c.Output, &graph.Graph{CSR: o.CSR}, meta); err != nil {
		return err
	}
	g.notice("wrote %s: %d vertices, %d edges oriented by %s%s", c.Output, o.N(), o.Arcs(), by, map[bool]string{true: ", relabelled"}[c.Relabel])
	return nil
}
