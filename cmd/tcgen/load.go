package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/tcgen/tcgen/graph"
)

// GraphArg is the graph a command reads, with its format override.
type GraphArg struct {
	Graph  string `arg:"" help:"Graph file: text edge list (SNAP, CSV), Matrix Market (.mtx), binary pairs (.bin32/.bin64), tcgen CSR (.tcsr), Ligra AdjacencyGraph (.adj) or SciPy sparse .npz; gzip is read transparently; - or a pipe is read once, as a stream." type:"path"`
	Format string `help:"Input format (${formats}); auto picks it from the extension and content." enum:"${formats}" default:"auto"`
}

// loaded is a graph with what it took to get it.
type loaded struct {
	g      *graph.Graph
	rep    *graph.Report
	loadMs float64
}

func (g *Globals) cacheDir() (string, error) {
	if g.CacheDir != "" {
		return g.CacheDir, nil
	}
	return graph.DefaultCacheDir()
}

// load reads the graph through the CSR cache (unless --no-cache) with a
// progress bar, and reports on stderr what the reader skipped.
func (g *Globals) load(a GraphArg) (*loaded, error) { return g.loadDeferred(a, false) }

// loadDeferred is load; with deferAdj, the checks of a CSR file's lists
// are left to the upload that reads them (graph.ReadOptions.DeferAdjCheck),
// and the caller must call checked before anything else reads the lists.
func (g *Globals) loadDeferred(a GraphArg, deferAdj bool) (*loaded, error) {
	format := a.Format
	if format == "auto" {
		format = ""
	}
	mem, err := g.memory()
	if err != nil {
		return nil, err
	}
	pb := newProgress(g.Quiet, "reading "+filepath.Base(a.Graph), unitBytes)
	// CSR files are mapped, not copied (graph.ReadOptions.Map).
	opt := graph.ReadOptions{Format: format, Progress: pb.Update, Map: true, DeferAdjCheck: deferAdj, Context: g.ctx, Memory: mem}
	start := time.Now()
	var (
		gr  *graph.Graph
		rep *graph.Report
	)
	if g.NoCache {
		gr, rep, err = graph.Open(a.Graph, opt)
	} else {
		var dir string
		if dir, err = g.cacheDir(); err == nil {
			c := graph.Cache{Dir: filepath.Join(dir, "graphs")}
			gr, rep, err = c.Load(a.Graph, opt)
		}
	}
	pb.Done()
	if err != nil {
		return nil, err
	}
	if rep.CacheNote != "" {
		g.notice("graph cache: %s", rep.CacheNote)
	}
	if rep.HeaderLine > 0 {
		g.notice("%s:%d: skipped header line %q", a.Graph, rep.HeaderLine, rep.Header)
	}
	if gr.Edges() == 0 { // a valid, empty graph; or a download that failed
		g.notice("%s: no edges (an empty file, or only comments, loops or isolated vertices)", a.Graph)
	}
	return &loaded{g: gr, rep: rep, loadMs: msSince(start)}, nil
}

// checked completes the deferred checks of the graph's lists
// (loadDeferred), once, and makes them readable (a packed file's are
// unpacked); the error names the file and its first bad entry.
func (l *loaded) checked() error {
	if ck := l.g.AdjCheck(); ck != nil {
		return ck.Finish()
	}
	return nil
}

// verified is checked for a caller that does not read the lists.
func (l *loaded) verified() error {
	if ck := l.g.AdjCheck(); ck != nil {
		return ck.Verify()
	}
	return nil
}

// undirected refuses an oriented CSR file (convert --orient) for commands
// that need the canonical graph.
func (l *loaded) undirected(file, cmd string) error {
	if l.rep.Orientation == graph.Undirected {
		return nil
	}
	return errorf(exitBadInput, "%s: the file holds a graph oriented by %s (tcgen convert --orient); %s needs the undirected graph: give it the source or a .tcsr written without --orient",
		file, l.rep.Orientation, cmd)
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

// droppedLine says what cleaning dropped.
func droppedLine(r *graph.Report) string {
	return fmt.Sprintf("%d self loops, %d duplicate edges, %d isolated vertices", r.SelfLoops, r.Duplicates, r.Isolated)
}

// droppedRecorded reports whether rep says what cleaning dropped. It does
// for a source read now or a cache entry; a CSR file records it when
// convert or graph wrote it, and then it counted the source's edge records
// (input_edges): a file of edges with no records counted was written
// without its source's report.
func droppedRecorded(g *graph.Graph, rep *graph.Report) bool {
	return rep.InputEdges > 0 || g.Arcs() == 0
}
