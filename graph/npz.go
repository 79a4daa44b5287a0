package graph

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/flate"
)

// SciPy's sparse .npz files (scipy.sparse.save_npz): a zip of .npy arrays
// (npy.go). format.npy names the layout, shape.npy holds (rows, cols), and
// the layout's arrays hold the entries: indptr.npy and indices.npy for
// csr and csc, row.npy and col.npy (or, from newer SciPy, coords.npy of
// shape (2, nnz)) for coo; data.npy holds the values, which are ignored
// as Matrix Market values are (a stored entry is an edge). Index arrays
// may be any integer type; NumPy writes int32 or int64.

// zipMagic starts a zip file's first local header; zipEmptyMagic starts
// an empty zip (its end record alone).
var zipMagic, zipEmptyMagic = []byte("PK\x03\x04"), []byte("PK\x05\x06")

// npzBatch: index arrays are decoded 64K elements at a time.
const npzBatch = 1 << 16

// npzReader is the state of one readNPZ call.
type npzReader struct {
	s     *source
	files map[string]*zip.File
	held  uint64 // bytes of the file held in memory
}

func (z *npzReader) bad(msg string, args ...any) error {
	return &InputError{File: z.s.name, Msg: fmt.Sprintf(msg, args...)}
}

// readNPZ reads a sparse matrix .npz into records (row, col), returning
// the declared vertex count (rows). A zip's directory is at its end, so
// the file is read whole into memory first (it is compressed: the arrays
// are decoded from it as they are read).
func (s *source) readNPZ(rep *Report) (*EdgeList, uint64, error) {
	data, err := s.readWhole()
	if err != nil {
		return nil, 0, err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, 0, &InputError{File: s.name, Msg: "not a readable zip (.npz) file: " + errMsg(err), Err: err}
	}
	zr.RegisterDecompressor(zip.Deflate, func(r io.Reader) io.ReadCloser { return flate.NewReader(r) })
	z := &npzReader{s: s, files: map[string]*zip.File{}, held: uint64(len(data))}
	for _, f := range zr.File {
		z.files[f.Name] = f
	}
	layout, err := z.layout()
	if err != nil {
		return nil, 0, err
	}
	n, err := z.shape()
	if err != nil {
		return nil, 0, err
	}
	var el *EdgeList
	switch layout {
	case "csr", "csc":
		el, err = z.compressed(n)
	case "coo":
		el, err = z.coo(n)
	case "bsr", "dia":
		return nil, 0, z.bad("format.npy: the %s layout is not supported; save the matrix as csr, csc or coo (m.tocsr())", layout)
	default:
		return nil, 0, z.bad("format.npy: unknown sparse layout %s (want csr, csc or coo)", quoteToken([]byte(layout)))
	}
	if err != nil {
		return nil, 0, err
	}
	return el, n, nil
}

// npyArray is an array of the .npz being read.
type npyArray struct {
	z     *npzReader
	name  string
	h     *npyHeader
	count uint64
	rc    io.ReadCloser
	r     *bufio.Reader
	buf   []byte
	read  uint64 // elements read
}

// open opens name.npy and reads its header.
func (z *npzReader) open(name string) (*npyArray, error) {
	f := z.files[name+".npy"]
	if f == nil {
		if name == "format" {
			return nil, z.bad("no format.npy: not a SciPy sparse matrix (.npz of scipy.sparse.save_npz)")
		}
		return nil, z.bad("no %s.npy in the .npz", name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, z.bad("%s.npy: %s", name, errMsg(err))
	}
	a := &npyArray{z: z, name: name + ".npy", rc: rc, r: bufio.NewReaderSize(rc, sourceBufSize)}
	if a.h, err = readNPYHeader(a.r); err != nil {
		rc.Close()
		return nil, a.bad("%v", err)
	}
	if a.count, err = a.h.count(); err != nil {
		rc.Close()
		return nil, a.bad("%v", err)
	}
	return a, nil
}

func (a *npyArray) bad(msg string, args ...any) error {
	return a.z.bad(a.name+": "+msg, args...)
}

// ints checks that the array holds integers, in C order unless one-
// dimensional, and of the given shape (dims[i] < 0: any length).
func (a *npyArray) ints(dims ...int64) error {
	h := a.h
	if h.kind != 'i' && h.kind != 'u' || h.size != 1 && h.size != 2 && h.size != 4 && h.size != 8 {
		return a.bad("element type %s is not an integer type", quoteToken([]byte(h.descr)))
	}
	ok := len(h.shape) == len(dims)
	for i := 0; ok && i < len(dims); i++ {
		ok = dims[i] < 0 || h.shape[i] == uint64(dims[i])
	}
	if !ok {
		return a.bad("shape %v, want %v", h.shape, dims)
	}
	return nil
}

// next decodes the next len(dst) elements into dst: integers 0..maxID.
func (a *npyArray) next(dst []uint64) error {
	k := uint64(len(dst))
	if k > a.count-a.read {
		return a.bad("holds %d elements, fewer than needed", a.count)
	}
	size := uint64(a.h.size)
	if uint64(cap(a.buf)) < k*size {
		a.buf = make([]byte, k*size)
	}
	b := a.buf[:k*size]
	if _, err := io.ReadFull(a.r, b); err != nil {
		return a.readErr(err)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if a.h.big {
		order = binary.BigEndian
	}
	signed := a.h.kind == 'i'
	for i := range dst {
		var x uint64
		neg := false
		switch size {
		case 8:
			x = order.Uint64(b[8*i:])
			neg = signed && int64(x) < 0
		case 4:
			x = uint64(order.Uint32(b[4*i:]))
			neg = signed && int32(x) < 0
		case 2:
			x = uint64(order.Uint16(b[2*i:]))
			neg = signed && int16(x) < 0
		default:
			x = uint64(b[i])
			neg = signed && int8(x) < 0
		}
		if neg || x > maxID {
			if neg {
				return a.bad("element %d is negative", a.read+uint64(i))
			}
			return a.bad("element %d is %d, more than 2^63-1", a.read+uint64(i), x)
		}
		dst[i] = x
	}
	a.read += k
	return nil
}

// skip passes over k elements (a coords array's first row).
func (a *npyArray) skip(k uint64) error {
	if _, err := io.CopyN(io.Discard, a.r, int64(k)*int64(a.h.size)); err != nil {
		return a.readErr(err)
	}
	a.read += k
	return nil
}

// finish reads the entry to its end, so that its checksum is checked.
// Elements not read (past what the matrix uses) are allowed.
func (a *npyArray) finish() error {
	n, err := io.Copy(io.Discard, a.r)
	if err != nil {
		return a.readErr(err)
	}
	if want := int64(a.count-a.read) * int64(a.h.size); n != want {
		return a.bad("%d bytes of elements, the shape %v needs %d", int64(a.read)*int64(a.h.size)+n, a.h.shape, int64(a.count)*int64(a.h.size))
	}
	return nil
}

func (a *npyArray) readErr(err error) error {
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return a.bad("truncated: fewer elements than its shape %v", a.h.shape)
	case errors.Is(err, zip.ErrChecksum):
		return a.bad("zip checksum mismatch (corrupt file)")
	}
	return a.bad("%s", errMsg(err))
}

// layout reads format.npy: a string, "csr", "csc", "coo", ...
func (z *npzReader) layout() (string, error) {
	a, err := z.open("format")
	if err != nil {
		return "", err
	}
	defer a.rc.Close()
	h := a.h
	if h.kind != 'S' && h.kind != 'U' || a.count != 1 {
		return "", a.bad("should hold one string, holds %v of type %s", h.shape, quoteToken([]byte(h.descr)))
	}
	b := make([]byte, h.size)
	if _, err := io.ReadFull(a.r, b); err != nil {
		return "", a.readErr(err)
	}
	a.read = 1
	if err := a.finish(); err != nil {
		return "", err
	}
	if h.kind == 'S' {
		return strings.TrimRight(string(b), "\x00"), nil
	}
	var order binary.ByteOrder = binary.LittleEndian
	if h.big {
		order = binary.BigEndian
	}
	var sb strings.Builder
	for i := 0; i < len(b); i += 4 {
		if r := rune(order.Uint32(b[i:])); r != 0 && utf8.ValidRune(r) {
			sb.WriteRune(r)
		}
	}
	return sb.String(), nil
}

// shape reads shape.npy, (rows, cols), and returns the vertex count: the
// matrix must be square.
func (z *npzReader) shape() (uint64, error) {
	a, err := z.open("shape")
	if err != nil {
		return 0, err
	}
	defer a.rc.Close()
	if err := a.ints(2); err != nil {
		return 0, err
	}
	var dims [2]uint64
	if err := a.next(dims[:]); err != nil {
		return 0, err
	}
	if err := a.finish(); err != nil {
		return 0, err
	}
	if dims[0] != dims[1] {
		return 0, z.bad("shape.npy: matrix is %d x %d: an adjacency matrix must be square", dims[0], dims[1])
	}
	return dims[0], nil
}

// compressed reads a csr or csc matrix: the lists of n rows (or columns).
// As an undirected graph the two layouts read alike.
func (z *npzReader) compressed(n uint64) (*EdgeList, error) {
	if err := z.fits(z.elements("indices"), n, satMul(satAdd(n, 1), 8)); err != nil {
		return nil, err
	}
	ptr, err := z.indptr(n)
	if err != nil {
		return nil, err
	}
	a, err := z.open("indices")
	if err != nil {
		return nil, err
	}
	defer a.rc.Close()
	if err := a.ints(-1); err != nil {
		return nil, err
	}
	nnz := ptr[n]
	if a.count < nnz {
		return nil, a.bad("%d elements, but indptr.npy ends at %d", a.count, nnz)
	}
	el := &EdgeList{}
	ids := make([]uint64, npzBatch)
	pairs := make([]uint64, 0, 2*npzBatch)
	v := uint64(0)
	for done := uint64(0); done < nnz; {
		k := min(nnz-done, npzBatch)
		if err := a.next(ids[:k]); err != nil {
			return nil, err
		}
		pairs = pairs[:0]
		for i, u := range ids[:k] {
			for ptr[v+1] <= done+uint64(i) {
				v++
			}
			if u >= n {
				return nil, a.bad("element %d is %d, not below the shape's %d", done+uint64(i), u, n)
			}
			pairs = append(pairs, v, u)
		}
		el.appendPairs(pairs)
		done += k
	}
	return el, a.finish()
}

// indptr reads indptr.npy: n+1 offsets from 0, never decreasing. The slice
// grows as they are read, so a corrupt shape cannot make it allocate more
// than the file holds.
func (z *npzReader) indptr(n uint64) ([]uint64, error) {
	a, err := z.open("indptr")
	if err != nil {
		return nil, err
	}
	defer a.rc.Close()
	if n >= maxID {
		return nil, a.bad("shape too large")
	}
	if err := a.ints(int64(n + 1)); err != nil {
		return nil, err
	}
	ptr := make([]uint64, 0, min(n+1, readGrowStart))
	batch := make([]uint64, npzBatch)
	for len(ptr) < int(n+1) {
		k := min(n+1-uint64(len(ptr)), npzBatch)
		if err := a.next(batch[:k]); err != nil {
			return nil, err
		}
		for _, x := range batch[:k] {
			i := len(ptr)
			switch {
			case i == 0 && x != 0:
				return nil, a.bad("starts at %d, not 0", x)
			case i > 0 && x < ptr[i-1]:
				return nil, a.bad("decreases at element %d (%d after %d)", i, x, ptr[i-1])
			}
			ptr = append(ptr, x)
		}
	}
	return ptr, a.finish()
}

// coo reads a coo matrix: row.npy and col.npy, or coords.npy.
func (z *npzReader) coo(n uint64) (*EdgeList, error) {
	var rows, cols *npyArray
	var nnz uint64
	var err error
	if z.files["coords.npy"] != nil {
		rows, cols, err = z.coords()
		if err == nil {
			nnz = rows.h.shape[1]
		}
	} else {
		rows, cols, err = z.rowCol()
		if err == nil {
			nnz = rows.count
		}
	}
	if err != nil {
		return nil, err
	}
	pairwise := rows == cols // coords in Fortran order: row, col pairs
	if err := z.fits(nnz, n, 0); err != nil {
		rows.rc.Close()
		if !pairwise {
			cols.rc.Close()
		}
		return nil, err
	}
	defer rows.rc.Close()
	if !pairwise {
		defer cols.rc.Close()
	}
	el := &EdgeList{}
	r, c := make([]uint64, 2*npzBatch), make([]uint64, npzBatch)
	pairs := make([]uint64, 0, 2*npzBatch)
	for done := uint64(0); done < nnz; {
		k := min(nnz-done, npzBatch)
		pairs = pairs[:0]
		if pairwise {
			if err := rows.next(r[:2*k]); err != nil {
				return nil, err
			}
			pairs = append(pairs, r[:2*k]...)
		} else {
			if err := rows.next(r[:k]); err != nil {
				return nil, err
			}
			if err := cols.next(c[:k]); err != nil {
				return nil, err
			}
			for i := range k {
				pairs = append(pairs, r[i], c[i])
			}
		}
		for i, x := range pairs {
			if x >= n {
				return nil, rows.bad("entry %d: index %d is not below the shape's %d", done+uint64(i/2), x, n)
			}
		}
		el.appendPairs(pairs)
		done += k
	}
	if err := rows.finish(); err != nil {
		return nil, err
	}
	if !pairwise {
		return el, cols.finish()
	}
	return el, nil
}

// fits refuses (a *TooLargeError) a matrix of nnz entries on n vertices
// whose records and Build, with extra bytes and the file held in memory,
// exceed the memory limit.
func (z *npzReader) fits(nnz, n, extra uint64) error {
	return z.s.mem.Check(z.s.name, satAdd(satAdd(buildBytes(nnz, n), extra), z.held))
}

// elements is the element count name.npy's header declares; 0 when it
// cannot be read (the reader then says what is wrong, in its order).
func (z *npzReader) elements(name string) uint64 {
	if z.s.mem.Bytes == 0 {
		return 0
	}
	a, err := z.open(name)
	if err != nil {
		return 0
	}
	a.rc.Close()
	return a.count
}

// rowCol opens row.npy and col.npy: integers, one dimension, of one length.
func (z *npzReader) rowCol() (rows, cols *npyArray, err error) {
	if rows, err = z.open("row"); err != nil {
		return nil, nil, err
	}
	if cols, err = z.open("col"); err == nil {
		if err = rows.ints(-1); err == nil {
			err = cols.ints(-1)
		}
		if err == nil && cols.count != rows.count {
			err = z.bad("row.npy holds %d elements, col.npy %d", rows.count, cols.count)
		}
		if err != nil {
			cols.rc.Close()
		}
	}
	if err != nil {
		rows.rc.Close()
		return nil, nil, err
	}
	return rows, cols, nil
}

// coords opens coords.npy, shape (2, nnz), as a reader of its rows and a
// reader of its columns (the same array opened twice, the second past the
// first row); in Fortran order, as one reader of (row, col) pairs.
func (z *npzReader) coords() (rows, cols *npyArray, err error) {
	if rows, err = z.open("coords"); err != nil {
		return nil, nil, err
	}
	if err = rows.ints(2, -1); err != nil {
		rows.rc.Close()
		return nil, nil, err
	}
	if rows.h.fortran {
		return rows, rows, nil
	}
	if cols, err = z.open("coords"); err == nil {
		if err = cols.skip(rows.h.shape[1]); err != nil {
			cols.rc.Close()
		}
	}
	if err != nil {
		rows.rc.Close()
		return nil, nil, err
	}
	return rows, cols, nil
}

// writeNPZ writes g as scipy.sparse.save_npz writes a csr matrix: the
// canonical graph (each edge in both rows) over dense ids 0..n-1, int32
// indices when they fit (as SciPy picks), int64 ones as the values.
func writeNPZ(w io.Writer, g *Graph) error {
	zw := zip.NewWriter(w)
	// Fast deflate: the lists compress little, the values (all ones) to
	// nothing; the default level would only slow the write.
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestSpeed)
	})
	n, nnz := uint64(g.N()), g.Arcs()
	index := "<i4"
	if max(n, nnz) > math.MaxInt32 {
		index = "<i8"
	}
	arrays := []struct {
		name, descr string
		shape       []uint64
		write       func(w io.Writer) error
	}{
		{"indices", index, []uint64{nnz}, func(w io.Writer) error {
			return writeInts(w, index, len(g.Adj), func(i int) uint64 { return uint64(g.Adj[i]) })
		}},
		{"indptr", index, []uint64{n + 1}, func(w io.Writer) error {
			return writeInts(w, index, len(g.Offsets), func(i int) uint64 { return g.Offsets[i] })
		}},
		{"format", "|S3", nil, func(w io.Writer) error { _, err := io.WriteString(w, "csr"); return err }},
		{"shape", "<i8", []uint64{2}, func(w io.Writer) error { return writeInts(w, "<i8", 2, func(int) uint64 { return n }) }},
		{"data", "<i8", []uint64{nnz}, func(w io.Writer) error { return writeInts(w, "<i8", int(nnz), func(int) uint64 { return 1 }) }},
	}
	for _, a := range arrays {
		// NumPy's entries carry this date too (the DOS epoch).
		hdr := &zip.FileHeader{Name: a.name + ".npy", Method: zip.Deflate, Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)}
		f, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := f.Write(npyHeaderBytes(a.descr, a.shape...)); err != nil {
			return err
		}
		if err := a.write(f); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeInts writes count little-endian integers of type descr ("<i4" or
// "<i8"), the i-th being at(i), through a 1 MiB buffer.
func writeInts(w io.Writer, descr string, count int, at func(i int) uint64) error {
	buf := make([]byte, 0, ioChunk)
	for i := 0; i < count; i++ {
		if descr == "<i4" {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(at(i)))
		} else {
			buf = binary.LittleEndian.AppendUint64(buf, at(i))
		}
		if len(buf)+8 > cap(buf) || i == count-1 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	return nil
}
