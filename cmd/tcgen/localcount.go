package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tcgen/tcgen/graph"
)

// localCounts holds what the CPU count found beyond the total when a local
// output (--per-vertex, --per-edge, --clustering, --clustering-stats) is
// asked: the orientation counted, and the per-vertex counts (dense ids of
// the graph) or the per-edge supports (indices into o.Adj).
type localCounts struct {
	o         *graph.Oriented
	perVertex []uint64
	support   []uint32
}

// localFlag names the first local output asked, "" for none: they need
// the per-vertex or per-edge counts.
func (c *CountCmd) localFlag() string {
	switch {
	case c.PerVertex != "":
		return "--per-vertex"
	case c.PerEdge != "":
		return "--per-edge"
	case c.Clustering != "":
		return "--clustering"
	case c.ClusteringStats:
		return "--clustering-stats"
	}
	return ""
}

// checkLocalFlags refuses local outputs on standard output, on one file
// twice or on the input graph, and files that cannot be written.
func (c *CountCmd) checkLocalFlags(g *Globals) error {
	flag := c.localFlag()
	if flag == "" {
		return nil
	}
	outs := []struct{ flag, path string }{{"--per-vertex", c.PerVertex}, {"--per-edge", c.PerEdge}, {"--clustering", c.Clustering}}
	for i, o := range outs {
		if o.path == "" {
			continue
		}
		if o.path == stdoutPath {
			return errorf(exitUsage, "count: %s -: standard output carries the count; name a file", o.flag)
		}
		for _, p := range outs[:i] {
			if p.path == o.path {
				return errorf(exitUsage, "count: %s and %s both name %s", p.flag, o.flag, o.path)
			}
		}
		if err := refuseInput("count", o.flag, o.path, c.Graph, "the input graph"); err != nil {
			return err
		}
		if err := g.checkOutput(o.path); err != nil {
			var oe *graph.OutputError
			if errors.As(err, &oe) {
				oe.Hint = "" // count has no -o
			}
			return fmt.Errorf("count: %s %w", o.flag, err)
		}
	}
	return nil
}

// isNPY: outputs named *.npy are NumPy arrays, the others text.
func isNPY(path string) bool { return strings.HasSuffix(strings.ToLower(path), ".npy") }

// denseIDs reports whether the graph's dense ids are its input ids (no
// isolated or missing id below the largest): a per-vertex array is then
// indexed by id and needs no id column.
func denseIDs(gr *graph.Graph) bool {
	for v, id := range gr.OrigIDs {
		if id != uint64(v) {
			return false
		}
	}
	return true
}

// writeLocal derives what the local outputs need from the counts, sets
// the clustering statistics in res, and writes the files asked: all of
// them, or none.
func (c *CountCmd) writeLocal(g *Globals, gr *graph.Graph, loc *localCounts, res *countResult) error {
	if c.localFlag() == "" {
		return nil
	}
	var sym []uint32
	if loc.support != nil {
		sym = graph.EdgeSupport(gr, loc.o, loc.support)
		if loc.perVertex == nil {
			loc.perVertex = graph.PerVertexFromSupport(gr, sym)
		}
	}
	coef, avg, wedges := clustering(gr, loc.perVertex)
	res.Wedges = wedges
	res.Transitivity = new(float64)
	if wedges > 0 {
		*res.Transitivity = 3 * float64(res.Triangles) / float64(wedges)
	}
	res.AvgClustering = &avg
	return g.inBatch(func() error {
		if c.PerVertex != "" {
			if err := g.writePerVertexAs(c.PerVertex, gr, loc.perVertex); err != nil {
				return err
			}
		}
		if c.PerEdge != "" {
			if err := g.writePerEdge(c.PerEdge, gr, sym); err != nil {
				return err
			}
		}
		if c.Clustering != "" {
			return g.writeClustering(c.Clustering, gr, coef)
		}
		return nil
	})
}

// clustering returns each vertex's local clustering coefficient (its
// triangles over the C(d, 2) pairs of its neighbours; 0 below degree 2),
// their mean over the graph's vertices (cleaning dropped isolated ones),
// and the wedges, sum of C(d, 2).
func clustering(gr *graph.Graph, perVertex []uint64) (coef []float64, avg float64, wedges uint64) {
	coef = make([]float64, gr.N())
	var sum float64
	for v := range coef {
		d := gr.Degree(uint32(v))
		pairs := d * (d - 1) / 2 // d <= 2^32: no overflow
		wedges += pairs
		if pairs > 0 {
			coef[v] = float64(perVertex[v]) / float64(pairs)
			sum += coef[v]
		}
	}
	if len(coef) > 0 {
		avg = sum / float64(len(coef))
	}
	return coef, avg, wedges
}

// writePerVertexAs writes the per-vertex counts as text (writePerVertex)
// or, for a .npy name, as a uint64 array: (n,) indexed by input id when
// the ids are dense (denseIDs), else (n, 2) rows [id, count].
func (g *Globals) writePerVertexAs(path string, gr *graph.Graph, counts []uint64) error {
	if !isNPY(path) {
		return g.writePerVertex(path, gr, counts)
	}
	dense := denseIDs(gr)
	return g.writeAtomic(path, func(w io.Writer) error {
		shape := []uint64{uint64(len(counts))}
		if !dense {
			shape = append(shape, 2)
		}
		if err := writeNPYHeader(w, "<u8", shape); err != nil {
			return err
		}
		return writeRows(w, len(counts), func(buf []byte, v int) []byte {
			if !dense {
				buf = binary.LittleEndian.AppendUint64(buf, gr.OrigID(uint32(v)))
			}
			return binary.LittleEndian.AppendUint64(buf, counts[v])
		})
	})
}

// writePerEdge writes each edge once, by increasing input ids u < v, with
// its support (sym: graph.EdgeSupport): text lines "u<TAB>v<TAB>triangles",
// or for a .npy name a (m, 3) uint64 array of rows [u, v, triangles].
func (g *Globals) writePerEdge(path string, gr *graph.Graph, sym []uint32) error {
	npy := isNPY(path)
	return g.writeAtomic(path, func(w io.Writer) error {
		if npy {
			if err := writeNPYHeader(w, "<u8", []uint64{gr.Edges(), 3}); err != nil {
				return err
			}
		}
		// Input ids increase with dense ids, so v > u in dense ids is
		// v > u in input ids.
		return writeRows(w, gr.N(), func(buf []byte, u int) []byte {
			a := gr.OrigID(uint32(u))
			for i, v := range gr.Neighbors(uint32(u)) {
				if v <= uint32(u) {
					continue
				}
				b, s := gr.OrigID(v), uint64(sym[gr.Offsets[u]+uint64(i)])
				if npy {
					buf = binary.LittleEndian.AppendUint64(buf, a)
					buf = binary.LittleEndian.AppendUint64(buf, b)
					buf = binary.LittleEndian.AppendUint64(buf, s)
					continue
				}
				buf = strconv.AppendUint(buf, a, 10)
				buf = append(buf, '\t')
				buf = strconv.AppendUint(buf, b, 10)
				buf = append(buf, '\t')
				buf = strconv.AppendUint(buf, s, 10)
				buf = append(buf, '\n')
			}
			return buf
		})
	})
}

// writeClustering writes the local clustering coefficients: text lines
// "id<TAB>coefficient" (shortest round-trip decimal), or for a .npy name a
// float64 array, (n,) when the ids are dense, else (n, 2) rows [id, coef].
func (g *Globals) writeClustering(path string, gr *graph.Graph, coef []float64) error {
	npy, dense := isNPY(path), denseIDs(gr)
	return g.writeAtomic(path, func(w io.Writer) error {
		if npy {
			shape := []uint64{uint64(len(coef))}
			if !dense {
				shape = append(shape, 2)
			}
			if err := writeNPYHeader(w, "<f8", shape); err != nil {
				return err
			}
		}
		return writeRows(w, len(coef), func(buf []byte, v int) []byte {
			id := gr.OrigID(uint32(v))
			switch {
			case !npy:
				buf = strconv.AppendUint(buf, id, 10)
				buf = append(buf, '\t')
				buf = strconv.AppendFloat(buf, coef[v], 'g', -1, 64)
				return append(buf, '\n')
			case !dense:
				// Ids up to 2^53 are exact in a float64; larger ones round.
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(float64(id)))
			}
			return binary.LittleEndian.AppendUint64(buf, math.Float64bits(coef[v]))
		})
	})
}

// writeRows writes row(buf[:0], i) for i in [0, n).
func writeRows(w io.Writer, n int, row func(buf []byte, i int) []byte) error {
	var buf []byte
	for i := range n {
		buf = row(buf[:0], i)
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}

// npyAlign is the NumPy format's alignment: the magic, version, length and
// header together fill a multiple of 64 bytes, so the data is aligned.
const npyAlign = 64

// writeNPYHeader writes a NumPy format 1.0 header for a C-ordered array of
// descr ('<u8', '<f8') and shape: "\x93NUMPY", version 1 0, the header's
// length (uint16, little-endian), and the dict literal padded with spaces
// and ended by '\n'.
func writeNPYHeader(w io.Writer, descr string, shape []uint64) error {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.FormatUint(d, 10)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += "," // a 1-tuple in Python
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, tuple)
	const pre = 10 // magic, version, length
	pad := npyAlign - (pre+len(dict)+1)%npyAlign
	if pad == npyAlign {
		pad = 0
	}
	hlen := len(dict) + pad + 1
	if hlen > math.MaxUint16 {
		return fmt.Errorf(".npy header of %d bytes does not fit format 1.0", hlen)
	}
	b := append([]byte("\x93NUMPY\x01\x00"), byte(hlen), byte(hlen>>8))
	b = append(b, dict...)
	b = append(b, strings.Repeat(" ", pad)...)
	b = append(b, '\n')
	_, err := w.Write(b)
	return err
}
