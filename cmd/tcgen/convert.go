package main

import (
	"fmt"

	"github.com/tcgen/tcgen/graph"
)

// ConvertCmd writes a graph in tcgen's binary CSR format (what the cache
// holds), or as an edge list when the output name says so.
type ConvertCmd struct {
	GraphArg
	Output string `short:"o" required:"" help:"Output file: .tcsr for tcgen's CSR format; .mtx, .bin32, .bin64 or any other name (text edge list) write edges; a trailing .gz compresses edge lists." placeholder:"FILE" type:"path"`
}

// Run implements the command.
func (c *ConvertCmd) Run(g *Globals) error {
	l, err := g.load(c.GraphArg)
	if err != nil {
		return err
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
