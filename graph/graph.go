// Package graph reads graphs in the formats users have, cleans them into the
// canonical undirected simple graph, orients it, computes the features the
// tuner and the benchmark use, generates synthetic graphs, and counts
// triangles exactly on the CPU (the oracle every GPU kernel is checked
// against).
//
// Sizes: vertex ids are dense uint32 after compaction; edge offsets and edge
// counts are 64-bit everywhere, so no structure has a 2^31-edge ceiling.
package graph

// CSR is a compressed sparse row adjacency structure. The neighbours of
// vertex v are Adj[Offsets[v]:Offsets[v+1]], sorted increasingly and without
// repeats.
type CSR struct {
	Offsets []uint64 // len N()+1; Offsets[0] == 0
	Adj     []uint32
	// check, when not nil, holds the checks of Adj not yet made: Adj is a
	// mapped file section read with ReadOptions.DeferAdjCheck (adjcheck.go).
	check *AdjCheck
}

// N returns the number of vertices.
func (c *CSR) N() int {
	if len(c.Offsets) == 0 {
		return 0
	}
	return len(c.Offsets) - 1
}

// Arcs returns the number of stored (directed) adjacency entries.
func (c *CSR) Arcs() uint64 { return uint64(len(c.Adj)) }

// Neighbors returns the sorted neighbour list of v (a sub-slice, not a copy).
func (c *CSR) Neighbors(v uint32) []uint32 {
	return c.Adj[c.Offsets[v]:c.Offsets[v+1]]
}

// Degree returns the number of neighbours of v.
func (c *CSR) Degree(v uint32) uint64 { return c.Offsets[v+1] - c.Offsets[v] }

// Graph is the canonical graph: undirected, no self loops, no duplicate
// edges, no isolated vertices. The CSR holds every edge in both directions.
type Graph struct {
	CSR
	// OrigIDs maps each dense id to the id it had in the input (increasing),
	// so per-vertex results can be written with the user's ids. Nil for
	// generated graphs whose ids are already dense and meaningful.
	OrigIDs []uint64
}

// Edges returns the number of undirected edges.
func (g *Graph) Edges() uint64 { return uint64(len(g.Adj)) / 2 }

// OrigID returns the input id of dense vertex v.
func (g *Graph) OrigID(v uint32) uint64 {
	if g.OrigIDs == nil {
		return uint64(v)
	}
	return g.OrigIDs[v]
}

// Orientation names the total order used to keep each undirected edge once.
type Orientation uint8

const (
	// Undirected: both directions stored (the canonical graph).
	Undirected Orientation = iota
	// ByID: edge kept from the lower to the higher id.
	ByID
	// ByDegree: edge kept from the lower to the higher (degree, id).
	ByDegree
	// ByTCBW: edge kept from a non-center to a center vertex, else from the
	// lower to the higher id (TCBW §3.1; orient_tcbw.go).
	ByTCBW
)

func (o Orientation) String() string {
	switch o {
	case Undirected:
		return "none"
	case ByID:
		return "id"
	case ByDegree:
		return "degree"
	case ByTCBW:
		return "tcbw"
	}
	return "unknown"
}

// Oriented is a directed acyclic version of a canonical graph: each
// undirected edge appears once, as u -> v with u before v in the order.
// Out-neighbour lists are sorted by (relabelled) id.
type Oriented struct {
	CSR
	By Orientation
	// Perm, when not nil, is the relabelling applied: new id = Perm[old id].
	// With relabelling the order is simply the new ids.
	Perm []uint32
	// Relabelled: the ids follow the order (Perm is nil when the graph was
	// read relabelled from an oriented CSR file, whose old ids are gone).
	Relabelled bool
}

// FileOriented returns the oriented graph an oriented CSR file holds (g and
// rep as read: rep.Orientation says how it is oriented), or nil when the
// file held an undirected graph.
func FileOriented(g *Graph, rep *Report) *Oriented {
	if rep == nil || rep.Orientation == Undirected {
		return nil
	}
	return &Oriented{CSR: g.CSR, By: rep.Orientation, Relabelled: rep.Relabelled}
}

// Report says what cleaning dropped and what the reader skipped, so the
// user can see it.
type Report struct {
	Format     string // the format actually read (text, mtx, bin32, bin64, csr)
	Gzip       bool
	Header     string // the header line that was skipped, if any
	HeaderLine int64  // its line number (1-based), 0 when none
	Comments   int64  // comment lines skipped
	InputEdges uint64 // edge records read
	SelfLoops  uint64 // records u == v dropped
	Duplicates uint64 // records repeating an undirected edge already seen (either direction)
	// Isolated counts vertices the input declared (an .mtx size line) or
	// that appeared only in self loops, and that were dropped.
	Isolated uint64
	// ParseMs and CleanMs split reading an edge-list source: parsing the
	// records (on all cores) and building the canonical CSR (dropping loops
	// and duplicates, compacting ids). Zero for CSR files and cache hits.
	ParseMs, CleanMs float64
	// Orientation and Relabelled say what a CSR file holds: an oriented
	// graph (each edge once; tcgen convert --orient) rather than the
	// canonical one. graph.FileOriented turns it into an *Oriented.
	Orientation Orientation
	Relabelled  bool
	FromCache   bool   // the graph came from tcgen's CSR cache
	CachePath   string // the cache file read or written, if any
	CacheNote   string // why the cache was rebuilt or not written, if it was
}

// edgeChunkPairs is the number of pairs per EdgeList chunk. Chunks (rather
// than one growing slice) avoid append's copy peak, which would put a
// 2.25x spike on the largest allocation of a conversion.
const edgeChunkPairs = 1 << 20

// EdgeList holds raw edge records (pairs of input ids, before cleaning) in
// fixed-size chunks. Build consumes it.
type EdgeList struct {
	chunks [][]uint64 // each holds up to 2*edgeChunkPairs ids: u0 v0 u1 v1 ...
	n      uint64
	sum    *edgeSummary // kept by readers for Build (build.go)
}

// Add appends the record (u, v).
func (l *EdgeList) Add(u, v uint64) {
	switch {
	case len(l.chunks) == 0:
		// The first chunk grows by append, so a small graph does not pay
		// for a full chunk; the copy peak is bounded by one chunk.
		l.chunks = append(l.chunks, make([]uint64, 0, 64))
	case len(l.chunks[len(l.chunks)-1]) == 2*edgeChunkPairs:
		l.chunks = append(l.chunks, make([]uint64, 0, 2*edgeChunkPairs))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, u, v)
	l.n++
}

// Len returns the number of records.
func (l *EdgeList) Len() uint64 { return l.n }

// At returns record i.
func (l *EdgeList) At(i uint64) (u, v uint64) {
	c := l.chunks[i/edgeChunkPairs]
	j := 2 * (i % edgeChunkPairs)
	return c[j], c[j+1]
}
