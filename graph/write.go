package graph

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// OutputFormat picks a written format from a file name: .tcsr (tcgen's CSR
// cache format), .mtx (Matrix Market), .bin32/.bin64 (binary pairs), .adj
// (Ligra's AdjacencyGraph), .npz (SciPy's sparse csr), anything else a text
// edge list; a trailing .gz compresses text formats.
func OutputFormat(path string) (format string, gz bool) {
	base := strings.ToLower(filepath.Base(path))
	if strings.HasSuffix(base, ".gz") {
		gz = true
		base = strings.TrimSuffix(base, ".gz")
	}
	switch filepath.Ext(base) {
	case ".tcsr":
		return "csr", gz
	case ".mtx":
		return "mtx", gz
	case ".bin32":
		return "bin32", gz
	case ".bin64":
		return "bin64", gz
	case ".adj":
		return "adj", gz
	case ".npz":
		return "npz", gz
	}
	return "text", gz
}

// WriteEdges writes each undirected edge of g once (u < v) in format: "text"
// (tab-separated input ids, one edge a line), "mtx" (coordinate pattern
// symmetric, 1-based dense ids), "bin32" or "bin64" (little-endian input-id
// pairs); or the whole adjacency, each edge both ways, over dense ids:
// "adj" (ligra.go) or "npz" (npz.go).
func WriteEdges(w io.Writer, g *Graph, format string) error {
	switch format {
	case "adj":
		return writeLigra(w, g)
	case "npz":
		return writeNPZ(w, g)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	n := g.N()
	var buf []byte
	switch format {
	case "text":
		for u := 0; u < n; u++ {
			for _, v := range g.Neighbors(uint32(u)) {
				if v <= uint32(u) {
					continue
				}
				buf = strconv.AppendUint(buf[:0], g.OrigID(uint32(u)), 10)
				buf = append(buf, '\t')
				buf = strconv.AppendUint(buf, g.OrigID(v), 10)
				buf = append(buf, '\n')
				if _, err := bw.Write(buf); err != nil {
					return err
				}
			}
		}
	case "mtx":
		fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate pattern symmetric\n%d %d %d\n", n, n, g.Edges())
		for u := 0; u < n; u++ {
			for _, v := range g.Neighbors(uint32(u)) {
				if v <= uint32(u) {
					continue
				}
				// Symmetric Matrix Market stores the lower triangle: row >= col.
				buf = strconv.AppendUint(buf[:0], uint64(v)+1, 10)
				buf = append(buf, ' ')
				buf = strconv.AppendUint(buf, uint64(u)+1, 10)
				buf = append(buf, '\n')
				if _, err := bw.Write(buf); err != nil {
					return err
				}
			}
		}
	case "bin32", "bin64":
		size := 4
		if format == "bin64" {
			size = 8
		}
		rec := make([]byte, 2*size)
		for u := 0; u < n; u++ {
			for _, v := range g.Neighbors(uint32(u)) {
				if v <= uint32(u) {
					continue
				}
				a, b := g.OrigID(uint32(u)), g.OrigID(v)
				if size == 4 {
					if b > 0xFFFFFFFF || a > 0xFFFFFFFF {
						return fmt.Errorf("vertex id %d does not fit in bin32; use bin64", max(a, b))
					}
					binary.LittleEndian.PutUint32(rec, uint32(a))
					binary.LittleEndian.PutUint32(rec[4:], uint32(b))
				} else {
					binary.LittleEndian.PutUint64(rec, a)
					binary.LittleEndian.PutUint64(rec[8:], b)
				}
				if _, err := bw.Write(rec); err != nil {
					return err
				}
			}
		}
	default:
		return fmt.Errorf("unknown output format %q", format)
	}
	return bw.Flush()
}

// WriteEdgesFile writes g to path in the format its name implies (see
// OutputFormat), atomically (WriteFileAtomic), so no partial file is ever
// left at path. The csr format is written by WriteCSR.
func WriteEdgesFile(path string, g *Graph) error {
	format, gz := OutputFormat(path)
	return WriteEdgesFileOpt(path, g, format, gz, WriteOptions{})
}

// WriteEdgesFileOpt writes g to path in format (WriteEdges), gzipped when
// gz, with options (WriteFileAtomicOpt): a cancelled Context stops the
// write within a MiB.
func WriteEdgesFileOpt(path string, g *Graph, format string, gz bool, opt WriteOptions) error {
	if format == "csr" {
		return fmt.Errorf("%s: use WriteCSR for the csr format", path)
	}
	return WriteFileAtomicOpt(path, opt, func(f *os.File) error {
		w := ContextWriter(opt.Context, f)
		var zw *gzip.Writer
		if gz {
			zw = gzip.NewWriter(w)
			w = zw
		}
		if err := WriteEdges(w, g, format); err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) || contextErr(opt.Context) != nil {
				return err // an I/O error or the cancellation
			}
			return &OutputError{Path: path, Msg: err.Error(), Err: err} // the format cannot hold g
		}
		if zw != nil {
			return zw.Close()
		}
		return nil
	})
}
