package main

import (
	"fmt"
	"reflect"
	"strings"
	"time"
	"unicode"

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
	BA        GenBACmd        `cmd:"" name:"ba" help:"Barabasi-Albert preferential attachment: each new vertex attaches m edges to earlier vertices chosen by degree."`
	WS        GenWSCmd        `cmd:"" name:"ws" help:"Watts-Strogatz small world: a ring of degree k, each edge rewired with probability p."`
	RGG       GenRGGCmd       `cmd:"" name:"rgg" help:"Random geometric graph: points in the unit square or cube joined within a radius."`
	ChungLu   GenChungLuCmd   `cmd:"" name:"chung-lu" help:"Chung-Lu graph with a power-law expected degree sequence."`
	SBM       GenSBMCmd       `cmd:"" name:"sbm" help:"Stochastic block model: planted communities, dense inside, sparse across."`
	Road      GenRoadCmd      `cmd:"" name:"road" help:"Road-like graph: a grid with random edges deleted and long-range links added."`
}

// GenOut is where a generated graph goes.
type GenOut struct {
	Output    string `short:"o" required:"" help:"Output file: .tcsr (tcgen's CSR), .adj (Ligra), .npz (SciPy), .mtx, .bin32, .bin64 or a text edge list; .gz compresses text formats; - writes to standard output (a text edge list unless --output-format says otherwise). Only a regular file is replaced." placeholder:"FILE" type:"path"`
	OutFormat string `name:"output-format" help:"Format to write, whatever the output's name: auto (from the name), text, mtx, bin32, bin64, adj, npz or csr." enum:"auto,text,mtx,bin32,bin64,adj,npz,csr" default:"auto"`
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

// GenBACmd generates Barabasi-Albert graphs.
type GenBACmd struct {
	Vertices uint64 `required:"" help:"Number of vertices n; vertex v >= 1 arrives after 0..v-1."`
	M        uint64 `name:"m" required:"" help:"Edges each new vertex attaches (>= 1); each target is an earlier vertex drawn with probability proportional to its degree, independently, so repeats merge: at most (n-1)m edges."`
	Seed     uint64 `default:"42" help:"Random seed."`
	GenOut
}

// GenWSCmd generates Watts-Strogatz graphs.
type GenWSCmd struct {
	Vertices uint64  `required:"" help:"Number of vertices n on the ring."`
	K        uint64  `name:"k" required:"" help:"Ring degree: even, 2 <= k < n (each vertex joined to k/2 neighbours on either side)."`
	P        float64 `name:"p" required:"" help:"Probability in [0, 1] that an edge's far end is rewired to a uniformly random other vertex (a rewired edge that repeats one merges)."`
	Seed     uint64  `default:"42" help:"Random seed."`
	GenOut
}

// GenRGGCmd generates random geometric graphs.
type GenRGGCmd struct {
	Vertices uint64  `required:"" help:"Number of points n, uniform in the unit square or cube."`
	Dim      int     `default:"2" enum:"2,3" help:"Dimension: 2 (unit square) or 3 (unit cube)."`
	Radius   float64 `xor:"size" required:"" help:"Join points closer than this: (0, 0.5] with --torus, else (0, 1]."`
	Degree   float64 `xor:"size" required:"" help:"Expected mean degree instead of --radius; the radius is derived from it, boundary included."`
	Torus    bool    `help:"Wrap around the borders (no boundary effect on degrees)."`
	Shuffle  bool    `help:"Randomise vertex ids (seeded); by default ids follow a grid of cells in row-major order, so neighbours get close ids."`
	Seed     uint64  `default:"42" help:"Random seed."`
	GenOut
}

// GenChungLuCmd generates Chung-Lu power-law graphs.
type GenChungLuCmd struct {
	Vertices  uint64  `required:"" help:"Number of vertices n; ids are in decreasing expected degree."`
	Degree    float64 `required:"" help:"Mean expected degree, in (0, n-1]; round(n*degree/2) endpoint pairs are drawn, each end with probability proportional to the weights."`
	Gamma     float64 `default:"2.5" help:"Power-law exponent of the degrees, in [2, 3]."`
	MaxDegree float64 `help:"Expected degree of the largest vertex, in [degree, n-1]; default min(n-1, sqrt(n*degree))."`
	Seed      uint64  `default:"42" help:"Random seed."`
	GenOut
}

// GenSBMCmd generates stochastic block models.
type GenSBMCmd struct {
	Vertices  uint64   `required:"" help:"Number of vertices n; each block is a range of consecutive ids."`
	Blocks    uint64   `xor:"blocks" required:"" help:"Number of equal blocks (the first n mod blocks one larger)."`
	Sizes     []uint64 `xor:"blocks" required:"" help:"Block sizes instead of --blocks, comma-separated, summing to n."`
	DegreeIn  float64  `required:"" help:"Expected neighbours inside a vertex's block (sets the inside pair probability)."`
	DegreeOut float64  `required:"" help:"Expected neighbours in the other blocks (sets the across pair probability)."`
	Seed      uint64   `default:"42" help:"Random seed."`
	GenOut
}

// GenRoadCmd generates road-like graphs.
type GenRoadCmd struct {
	Rows      uint64  `required:"" help:"Grid rows."`
	Cols      uint64  `required:"" help:"Grid columns; vertex (r, c) is r*cols + c."`
	Diagonals bool    `help:"Add one diagonal per cell, as grid --diagonals."`
	Delete    float64 `default:"0" help:"Probability in [0, 1] that each grid edge is deleted."`
	Links     uint64  `default:"0" help:"Long-range links added between uniformly random vertex pairs."`
	Seed      uint64  `default:"42" help:"Random seed."`
	GenOut
}

// Run implements the command.
func (c *GenRMATCmd) Run(g *Globals) error {
	return generate(g, c.GenOut, graph.RMAT{Scale: c.Scale, EdgeFactor: c.EdgeFactor, Seed: c.Seed, A: c.A, B: c.B, C: c.C})
}

// Run implements the command.
func (c *GenERCmd) Run(g *Globals) error {
	return generate(g, c.GenOut, graph.ErdosRenyi{N: c.Vertices, M: c.Edges, Seed: c.Seed})
}

// Run implements the command.
func (c *GenGridCmd) Run(g *Globals) error {
	return generate(g, c.GenOut, graph.Grid{Rows: c.Rows, Cols: c.Cols, Diagonals: c.Diagonals})
}

// Run implements the command.
func (c *GenCompleteCmd) Run(g *Globals) error {
	return generate(g, c.GenOut, graph.Complete{N: c.N})
}

// Run implements the command.
func (c *GenBipartiteCmd) Run(g *Globals) error {
	return generate(g, c.GenOut, graph.CompleteBipartite{A: c.A, B: c.B})
}

// Run implements the command.
func (c *GenWheelCmd) Run(g *Globals) error {
	return generate(g, c.GenOut, graph.Wheel{Rim: c.Rim})
}

// Run implements the command.
func (c *GenBACmd) Run(g *Globals) error {
	return generate(g, c.GenOut, graph.BarabasiAlbert{N: c.Vertices, M: c.M, Seed: c.Seed})
}

// Run implements the command.
func (c *GenWSCmd) Run(g *Globals) error {
	return generate(g, c.GenOut, graph.WattsStrogatz{N: c.Vertices, K: c.K, P: c.P, Seed: c.Seed})
}

// Run implements the command.
func (c *GenRGGCmd) Run(g *Globals) error {
	return generate(g, c.GenOut, graph.RandomGeometric{N: c.Vertices, Dim: c.Dim, Radius: c.Radius, Degree: c.Degree,
		Torus: c.Torus, Shuffle: c.Shuffle, Seed: c.Seed})
}

// Run implements the command.
func (c *GenChungLuCmd) Run(g *Globals) error {
	return generate(g, c.GenOut, graph.ChungLu{N: c.Vertices, Degree: c.Degree, Gamma: c.Gamma, MaxDegree: c.MaxDegree, Seed: c.Seed})
}

// Run implements the command.
func (c *GenSBMCmd) Run(g *Globals) error {
	return generate(g, c.GenOut, graph.SBM{N: c.Vertices, Blocks: c.Blocks, Sizes: c.Sizes,
		DegreeIn: c.DegreeIn, DegreeOut: c.DegreeOut, Seed: c.Seed})
}

// Run implements the command.
func (c *GenRoadCmd) Run(g *Globals) error {
	return generate(g, c.GenOut, graph.Road{Rows: c.Rows, Cols: c.Cols, Diagonals: c.Diagonals, Delete: c.Delete, Links: c.Links, Seed: c.Seed})
}

// generate checks that gen fits the memory limit (graph.Sized; a
// generator that cannot tell is run as it is), runs it and writes the graph.
func generate(g *Globals, out GenOut, gen graph.Generator) error {
	if err := g.checkOutput(out.Output); err != nil {
		return err
	}
	if err := g.fits(gen); err != nil {
		return err
	}
	pb := newSpinner(g.Quiet, "generating")
	start := time.Now()
	gr, rep, err := graph.GenerateContext(g.ctx, gen)
	pb.Done()
	if err != nil {
		if g.ctx.Err() != nil {
			return err
		}
		return withCode(exitUsage, err)
	}
	if err := g.writeGraph(out.Output, out.OutFormat, gr, graph.CacheMeta{Report: rep}); err != nil {
		return err
	}
	g.notice("wrote %s: %d vertices, %d edges (dropped %s) in %.1f ms", outputName(out.Output), gr.N(), gr.Edges(), droppedLine(&rep), msSince(start))
	return nil
}

// fits refuses parameters the generator refuses (a usage error), then a
// generator whose estimated peak (graph.Sized) exceeds the memory limit,
// naming it with its parameters. Validating first matters: the estimates
// of refused parameters are absurd sizes, not a reason.
func (g *Globals) fits(gen graph.Generator) error {
	if v, ok := gen.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return withCode(exitUsage, err)
		}
	}
	sz, ok := gen.(graph.Sized)
	if !ok {
		return nil
	}
	mem, err := g.memory()
	if err != nil {
		return err
	}
	return mem.Check("generating "+describeGen(gen), sz.EstimateBytes())
}

// describeGen names a generator and its settings for messages: "RMAT
// (scale 10, edge factor 16, seed 42, a 0.57, b 0.19, c 0.19)".
func describeGen(gen graph.Generator) string {
	v := reflect.Indirect(reflect.ValueOf(gen))
	if v.Kind() != reflect.Struct {
		return fmt.Sprint(gen)
	}
	var parts []string
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() {
			parts = append(parts, fmt.Sprintf("%s %v", camelWords(f.Name), v.Field(i).Interface()))
		}
	}
	return v.Type().Name() + " (" + strings.Join(parts, ", ") + ")"
}

// camelWords splits a Go name into lower-case words: EdgeFactor, "edge
// factor".
func camelWords(name string) string {
	var b strings.Builder
	for i, r := range name {
		if i > 0 && unicode.IsUpper(r) && !unicode.IsUpper(rune(name[i-1])) {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
