package main

import (
	"github.com/tcgen/tcgen/graph"
)

// ConvertCmd writes a graph in tcgen's binary CSR format (what the cache
// holds), or as an edge list when the output name says so.
type ConvertCmd struct {
	GraphArg
	Output    string `short:"o" required:"" help:"Output file: .tcsr for tcgen's CSR format; .adj (Ligra's AdjacencyGraph) or .npz (SciPy's sparse csr) for the adjacency; .mtx, .bin32, .bin64 or any other name (text edge list) write edges; a trailing .gz compresses text formats; - writes to standard output (a text edge list unless --output-format says otherwise). Only a regular file is replaced." placeholder:"FILE" type:"path"`
	OutFormat string `name:"output-format" help:"Format to write, whatever the output's name: auto (from the name), text, mtx, bin32, bin64, adj, npz or csr." enum:"auto,text,mtx,bin32,bin64,adj,npz,csr" default:"auto"`
	Orient    string `help:"Write the oriented graph (.tcsr only): none, degree or id. count then skips orienting it, for plans of that orientation (and --relabel)." enum:"none,degree,id" default:"none"`
	Relabel   bool   `help:"With --orient: renumber the vertices in the orientation's order (what plans with relabel: true need)."`
	Pack      string `help:"Store the lists in 3 bytes an entry (.tcsr, at most 16777216 vertices): a quarter smaller, and faster onto the GPU, which unpacks them. auto packs oriented graphs that fit; readers on the host unpack them on all cores." enum:"auto,yes,no" default:"auto"`
}

// Run implements the command.
func (c *ConvertCmd) Run(g *Globals) error {
	if c.Relabel && c.Orient == "none" {
		return errorf(exitUsage, "convert: --relabel needs --orient degree or id")
	}
	if format, _ := outFormat(c.Output, c.OutFormat); c.Pack == "yes" && format != "csr" {
		return errorf(exitUsage, "convert: --pack yes writes tcgen's CSR format only; name the output .tcsr")
	}
	if err := refuseInput("convert", "-o", c.Output, c.Graph, "the input graph"); err != nil {
		return err
	}
	if err := g.checkOutput(c.Output); err != nil {
		return err
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
	if err := c.packable(l.g.N()); err != nil {
		return err
	}
	// The source's report goes with the graph, so that count and stats of
	// the file say what cleaning dropped.
	if err := g.writeGraph(c.Output, c.OutFormat, l.g, graph.CacheMeta{Packed: c.Pack == "yes", Report: *l.rep}); err != nil {
		return err
	}
	g.notice("wrote %s: %d vertices, %d edges (dropped %s)", outputName(c.Output), l.g.N(), l.g.Edges(), droppedLine(l.rep))
	return nil
}

// packable refuses --pack yes for a graph of more vertices than 24-bit
// ids hold.
func (c *ConvertCmd) packable(n int) error {
	if c.Pack == "yes" && n > graph.MaxPackedVertices {
		return errorf(exitUsage, "convert: --pack yes: %d vertices do not fit 24-bit ids (at most %d); use --pack no", n, graph.MaxPackedVertices)
	}
	return nil
}

// writeOriented writes the graph oriented (and relabelled) as a CSR file:
// each edge once, out-lists sorted, no original ids (relabelling loses
// their order; per-vertex output needs the undirected file).
func (c *ConvertCmd) writeOriented(g *Globals, l *loaded) error {
	format, _ := outFormat(c.Output, c.OutFormat)
	if format != "csr" {
		return errorf(exitUsage, "convert: --orient writes tcgen's CSR format only; name the output .tcsr")
	}
	by := graph.ByDegree
	if c.Orient == "id" {
		by = graph.ByID
	}
	if err := c.packable(l.g.N()); err != nil {
		return err
	}
	o, err := graph.OrientContext(g.ctx, l.g, by, c.Relabel)
	if err != nil {
		return err
	}
	// Packed unless told not to, when the ids fit: an oriented file is
	// what count reads onto the GPU.
	packed := c.Pack == "yes" || (c.Pack == "auto" && o.N() <= graph.MaxPackedVertices)
	meta := graph.CacheMeta{Orientation: by, Relabelled: c.Relabel, Report: *l.rep, Packed: packed}
	if err := g.writeGraph(c.Output, "csr", &graph.Graph{CSR: o.CSR}, meta); err != nil {
		return err
	}
	g.notice("wrote %s: %d vertices, %d edges oriented by %s%s%s", outputName(c.Output), o.N(), o.Arcs(), by,
		map[bool]string{true: ", relabelled"}[c.Relabel], map[bool]string{true: ", packed"}[packed])
	return nil
}
