package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/tcgen/tcgen/graph"
)

// CountCmd counts triangles.
type CountCmd struct {
	GraphArg
	Backend   string `help:"Where to count: auto (the GPU when one opens, else the CPU with a notice), cpu, or gpu (fail with exit code 5 when no GPU opens)." enum:"auto,cpu,gpu" default:"auto"`
	JSON      bool   `help:"Print the result as JSON."`
	PerVertex string `help:"Write the number of triangles each vertex is in to FILE (input ids, tab-separated; CPU only)." placeholder:"FILE" type:"path"`
}

// countResult is what count prints; the JSON field names are stable.
type countResult struct {
	Graph       string  `json:"graph"`
	Backend     string  `json:"backend"`
	Device      string  `json:"device"`
	Plan        string  `json:"plan,omitempty"`
	Vertices    uint64  `json:"vertices"`
	Edges       uint64  `json:"edges"`
	Triangles   uint64  `json:"triangles"`
	LoadMs      float64 `json:"load_ms"`
	FromCache   bool    `json:"from_cache"`
	PrepareMs   float64 `json:"prepare_ms"`
	CountMs     float64 `json:"count_ms"`
	EdgesPerSec float64 `json:"edges_per_second"`
	SelfLoops   uint64  `json:"self_loops_dropped"`
	Duplicates  uint64  `json:"duplicates_dropped"`
	Isolated    uint64  `json:"isolated_dropped"`
}

// Run implements the command.
func (c *CountCmd) Run(g *Globals) error {
	if c.Backend == "gpu" {
		return errorf(exitNoGPU, "count: the GPU backend is not available in this build; use --backend cpu")
	}
	l, err := g.load(c.GraphArg)
	if err != nil {
		return err
	}
	res := countResult{
		Graph:      c.Graph,
		Vertices:   uint64(l.g.N()),
		Edges:      l.g.Edges(),
		LoadMs:     l.loadMs,
		FromCache:  l.rep.FromCache,
		SelfLoops:  l.rep.SelfLoops,
		Duplicates: l.rep.Duplicates,
		Isolated:   l.rep.Isolated,
	}
	if c.Backend == "auto" {
		g.notice("count: no GPU path in this build; counting on the CPU")
	}
	var perVertex []uint64
	if err := c.countCPU(g, l.g, &res, &perVertex); err != nil {
		return err
	}
	if res.CountMs > 0 {
		res.EdgesPerSec = float64(res.Edges) / (res.CountMs / 1e3)
	}
	if c.PerVertex != "" {
		if err := writePerVertex(c.PerVertex, l.g, perVertex); err != nil {
			return err
		}
	}
	return printCount(g, c.JSON, &res)
}

// countCPU runs the oracle: degree orientation with relabelling (prepare),
// then the parallel exact count.
func (c *CountCmd) countCPU(g *Globals, gr *graph.Graph, res *countResult, perVertex *[]uint64) error {
	res.Backend = "cpu"
	res.Device = fmt.Sprintf("CPU, %d threads", runtime.GOMAXPROCS(0))
	res.Plan = "oracle"
	start := time.Now()
	o := graph.Orient(gr, graph.ByDegree, true)
	res.PrepareMs = msSince(start)
	pb := newSpinner(g.Quiet, "counting")
	start = time.Now()
	if c.PerVertex != "" {
		res.Triangles, *perVertex = graph.CountPerVertex(o)
	} else {
		res.Triangles = graph.CountTriangles(o)
	}
	res.CountMs = msSince(start)
	pb.Done()
	return g.ctx.Err()
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
	fmt.Fprintf(tw, "dropped\t%d self loops, %d duplicate edges, %d isolated vertices\n", r.SelfLoops, r.Duplicates, r.Isolated)
	fmt.Fprintf(tw, "backend\t%s (%s)\n", r.Backend, r.Device)
	if r.Plan != "" {
		fmt.Fprintf(tw, "plan\t%s\n", r.Plan)
	}
	fmt.Fprintf(tw, "load\t%.3f ms (%s)\n", r.LoadMs, src)
	fmt.Fprintf(tw, "prepare\t%.3f ms\n", r.PrepareMs)
	fmt.Fprintf(tw, "count\t%.3f ms\n", r.CountMs)
	fmt.Fprintf(tw, "rate\t%.4g edges/s\n", r.EdgesPerSec)
	return tw.Flush()
}

// writePerVertex writes "id<TAB>triangles" lines atomically: a temporary
// file renamed into place, so a failure leaves no partial output.
func writePerVertex(path string, gr *graph.Graph, counts []uint64) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	for v, n := range counts {
		buf = strconv.AppendUint(buf[:0], gr.OrigID(uint32(v)), 10)
		buf = append(buf, '\t')
		buf = strconv.AppendUint(buf, n, 10)
		buf = append(buf, '\n')
		if _, err = w.Write(buf); err != nil {
			return err
		}
	}
	if err = w.Flush(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
