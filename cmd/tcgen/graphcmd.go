package main

import (
	"time"

	"github.com/tcgen/tcgen/graph"
)

// GraphCmd generates synthetic graphs, deterministic for a seed whatever
// the number of cores.
type GraphCmd struct {
	RMAT      GenRMATCmd      `cmd:"" name:"rmat" help:"Graph500 RMAT (a=.57, b=.19, c=.19; the graphs the published codes were measured on)."`
	ER        GenERCmd        `cmd:"" name:"er" help:"Erdos-Renyi G(n,m): m distinct edges uniformly at random."`
	Grid      GenGridCmd      `cmd:"" name:"grid" help:"2-D grid (road-like, triangle-free; with --diagonals 2(r-1)(c-1) triangles)."`
	Complete  GenCompleteCmd  `cmd:"" name:"complete" help:"Complete graph K_n: C(n,3) triangles."`
	Bipartite GenBipartiteCmd `cmd:"" name:"bipartite" help:"Complete bipartite graph K_{a,b}: no triangles."`
	Wheel     GenWheelCmd     `cmd:"" name:"wheel" help:"Wheel: a hub joined to a cycle of n rim vertices (n triangles for n >= 4)."`
}

// GenOut is where a generated graph goes.
type GenOut struct {
	Output string `short:"o" required:"" help:"Output file: .tcsr (tcgen's CSR), .mtx, .bin32, .bin64 or a text edge list; .gz compresses edge lists." placeholder:"FILE" type:"path"`
}

// GenRMATCmd generates RMAT graphs.
type GenRMATCmd struct {
	Scale      int     `required:"" help:"log2 of the number of vertex labels (1..32)."`
	EdgeFactor int     `default:"16" help:"Samples per vertex label (Graph500: 16)."`
	Seed       uint64  `default:"42" help:"Random seed (42 gives the graphs of the check values and the speed table)."`
	A          float64 `default:"0.57" help:"Initiator probability a (Graph500)."`
	B          float64 `default:"0.19" help:"Initiator probability b."`
	C          float64 `default:"0.19" help:"Initiator probability c."`
	GenOut
}

// GenERCmd generates Erdos-Renyi graphs.
type GenERCmd struct {
	Vertices uint64 `required:"" help:"Number of vertex labels n."`
	Edges    uint64 `required:"" help:"Number of distinct edges m (at most n(n-1)/2)."`
	Seed     uint64 `default:"42" help:"Random seed."`
	GenOut
}

// GenGridCmd generates grids.
type GenGridCmd struct {
	Rows      uint64 `required:"" help:"Rows."`
	Cols      uint64 `required:"" help:"Columns."`
	Diagonals bool   `help:"Add one diagonal per cell (two triangles per cell)."`
	GenOut
}

// GenCompleteCmd generates K_n.
type GenCompleteCmd struct {
	N uint64 `arg:"" help:"Number of vertices."`
	GenOut
}

// GenBipartiteCmd generates K_{a,b}.
type GenBipartiteCmd struct {
	A uint64 `arg:"" help:"Vertices on one side."`
	B uint64 `arg:"" help:"Vertices on the other side."`
	GenOut
}

// GenWheelCmd generates wheels.
type GenWheelCmd struct {
	Rim uint64 `arg:"" help:"Rim vertices."`
	GenOut
}

// Run implements the command.
func (c *GenRMATCmd) Run(g *Globals) error {
	return generate(g, c.Output, graph.RMAT{Scale: c.Scale, EdgeFactor: c.EdgeFactor, Seed: c.Seed, A: c.A, B: c.B, C: c.C})
}

// Run implements the command.
func (c *GenERCmd) Run(g *Globals) error {
	return generate(g, c.Output, graph.ErdosRenyi{N: c.Vertices, M: c.Edges, Seed: c.Seed})
}

// Run implements the command.
func (c *GenGridCmd) Run(g *Globals) error {
	return generate(g, c.Output, graph.Grid{Rows: c.Rows, Cols: c.Cols, Diagonals: c.Diagonals})
}

// Run implements the command.
func (c *GenCompleteCmd) Run(g *Globals) error {
	return generate(g, c.Output, graph.Complete{N: c.N})
}

// Run implements the command.
func (c *GenBipartiteCmd) Run(g *Globals) error {
	return generate(g, c.Output, graph.CompleteBipartite{A: c.A, B: c.B})
}

// Run implements the command.
func (c *GenWheelCmd) Run(g *Globals) error {
	return generate(g, c.Output, graph.Wheel{Rim: c.Rim})
}

func generate(g *Globals, out string, gen graph.Generator) error {
	pb := newSpinner(g.Quiet, "generating")
	start := time.Now()
	gr, rep, err := graph.Generate(gen)
	pb.Done()
	if err != nil {
		return withCode(exitUsage, err)
	}
	if err := writeGraph(out, gr, graph.CacheMeta{Report: rep}); err != nil {
		return err
	}
	g.notice("wrote %s: %d vertices, %d edges (dropped %s) in %.1f ms", out, gr.N(), gr.Edges(), droppedLine(&rep), msSince(start))
	return nil
}
