package graph

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
	"unsafe"
)

// ReadCSR reads a CSR file written by WriteCSR. A file that fails any check
// (magic, sizes, checksum, offsets, neighbour ids and order, self loops,
// for an undirected file every edge stored both ways, and for an oriented
// one every arc forward in its order) gives an *InputError
// wrapping ErrCorrupt; one of another format version, ErrStale. The tool
// version is returned in the meta, not checked: a converted graph stays
// readable by later tools of the same format version (Cache.Load does
// reject other tool versions).
func ReadCSR(path string) (*Graph, CacheMeta, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, CacheMeta{}, &InputError{File: path, Msg: errMsg(err), Err: err}
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return readCSRFrom(bufio.NewReaderSize(f, ioChunk), path, size, false)
}

// readCSRFrom reads a CSR file from r. size is the stream's length when
// known (a plain file), else -1; sections are then grown as data arrives,
// so a corrupt header cannot make it allocate more than the data.
func readCSRFrom(r io.Reader, name string, size int64, gz bool) (*Graph, CacheMeta, error) {
	var meta CacheMeta
	c := &csrReader{r: r, name: name, gz: gz, known: size >= 0}
	c.crc = newCRC32C() // large sections on all cores (crc.go)
	c.tr = io.TeeReader(r, c.crc)
	if m, ok := r.(*mappedReader); ok {
		m.crc, c.tr = c.crc, m // mapped: sections are views of the file (cache_map.go)
	}
	hd, err := c.readHeader(&meta)
	if err != nil {
		return nil, meta, err
	}
	if err := c.checkSize(&hd, size); err != nil {
		return nil, meta, err
	}
	g := &Graph{}
	accepted := false // every check passed (a packed section's own pages are kept)
	if g.Offsets, err = readU64s(c.tr, hd.n+1, c.known); err != nil {
		return nil, meta, c.trunc("offsets", err)
	}
	// The adjacency section is checked by an AdjCheck: one pass on all cores
	// for its ids and order and, in a mapped file, its share of the
	// checksum; a mapped file's checks may be left to the caller.
	c.mr, c.mapped = r.(*mappedReader)
	c.mapped = c.mapped && littleEndian
	ck := &AdjCheck{name: name, n: hd.n, want: hd.crcWant, undirected: meta.Orientation == Undirected,
		by: meta.Orientation, relabelled: meta.Relabelled, order: arcOrderOf(meta.Orientation, meta.Relabelled)}
	err = c.readAdj(g, ck, &hd)
	if ck.lazy {
		defer func() {
			if !accepted {
				freeWords(g.Adj)
			}
		}()
	}
	if err != nil {
		return nil, meta, err
	}
	if err := c.readRest(g, ck, &hd, &meta.Report); err != nil {
		return nil, meta, err
	}
	if err := g.checkOffsets(); err != nil {
		return nil, meta, c.corrupt("%s", strings.TrimPrefix(err.Error(), "graph: "))
	}
	if c.mapped {
		g.check = ck // mapCSR finishes it, or leaves it to the caller
	} else if err := ck.Finish(); err != nil {
		return nil, meta, err
	}
	for i := 1; i < len(g.OrigIDs); i++ {
		if g.OrigIDs[i] <= g.OrigIDs[i-1] {
			return nil, meta, c.corrupt("original ids not increasing at vertex %d", i)
		}
	}
	accepted = true
	return g, meta, nil
}

// csrReader is the state of one readCSRFrom call.
type csrReader struct {
	r      io.Reader
	tr     io.Reader // r through crc, or the mapped reader
	crc    *crc32c
	name   string
	gz     bool
	known  bool // the stream's length is known and checked
	mr     *mappedReader
	mapped bool // sections are views of a mapped file
}

// csrHeader holds the header fields that size the sections.
type csrHeader struct {
	n, arcs   uint64
	flags     byte
	headerLen uint64
	crcWant   uint32
	section   uint64 // the adjacency's bytes
}

func (c *csrReader) corrupt(msg string, args ...any) error {
	return &InputError{File: c.name, Msg: "corrupt tcgen CSR file: " + fmt.Sprintf(msg, args...), Err: ErrCorrupt}
}

// trunc wraps an error met while reading the named section.
func (c *csrReader) trunc(what string, err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return c.corrupt("truncated in the %s section", what)
	}
	if c.gz {
		return &InputError{File: c.name, Msg: "corrupt gzip data: " + err.Error(), Err: err}
	}
	return &InputError{File: c.name, Msg: errMsg(err), Err: err}
}

// readHeader reads and checks the fixed header into meta, and starts the
// checksum with it (its CRC field zeroed).
func (c *csrReader) readHeader(meta *CacheMeta) (csrHeader, error) {
	var hd csrHeader
	h := make([]byte, csrHeaderSize)
	if n, err := fill(c.tr, h); err != nil && !(err == io.EOF && n == len(h)) {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return hd, c.corrupt("truncated header (%d bytes)", n)
		}
		return hd, &InputError{File: c.name, Msg: errMsg(err), Err: err}
	}
	le := binary.LittleEndian
	if string(h[:8]) != csrMagic {
		return hd, c.corrupt("bad magic %q", h[:8])
	}
	meta.Version = le.Uint32(h[8:])
	if meta.Version != csrVersion {
		return hd, &InputError{File: c.name, Err: ErrStale,
			Msg: fmt.Sprintf("CSR format version %d, but this tcgen reads version %d: convert the source again", meta.Version, csrVersion)}
	}
	if hs := le.Uint32(h[12:]); hs != csrHeaderSize {
		return hd, c.corrupt("header size %d, want %d", hs, csrHeaderSize)
	}
	hd.n, hd.arcs = le.Uint64(h[16:]), le.Uint64(h[24:])
	meta.Orientation = Orientation(h[32])
	hd.flags = h[33]
	meta.Relabelled = hd.flags&csrFlagRelabeled != 0
	meta.Packed = hd.flags&csrFlagPacked != 0
	copy(meta.SourceHash[:], h[40:72])
	meta.SourceSize = int64(le.Uint64(h[72:]))
	meta.ToolVersion = strings.TrimRight(string(h[80:80+csrToolLen]), "\x00")
	rp := &meta.Report
	rp.InputEdges, rp.SelfLoops, rp.Duplicates, rp.Isolated = le.Uint64(h[112:]), le.Uint64(h[120:]), le.Uint64(h[128:]), le.Uint64(h[136:])
	rp.Comments, rp.HeaderLine = int64(le.Uint64(h[144:])), int64(le.Uint64(h[152:]))
	rp.Gzip = hd.flags&csrFlagGzip != 0
	hd.headerLen = le.Uint64(h[160:])
	meta.SourceFormat = strings.TrimRight(string(h[168:168+csrFormatLen]), "\x00")
	rp.Format = meta.SourceFormat
	hd.crcWant = le.Uint32(h[csrCRCOffset:])
	clear(h[csrCRCOffset : csrCRCOffset+4])
	c.crc.Reset()
	c.crc.Write(h)

	switch {
	case meta.Orientation > ByDegree:
		return hd, c.corrupt("unknown orientation %d", meta.Orientation)
	case hd.flags&^(csrFlagOrigIDs|csrFlagRelabeled|csrFlagGzip|csrFlagPacked) != 0:
		return hd, c.corrupt("unknown flags %#x", hd.flags)
	case hd.n > MaxVertices:
		return hd, c.corrupt("%d vertices, more than %d", hd.n, uint64(MaxVertices))
	case meta.Packed && hd.n > MaxPackedVertices:
		return hd, c.corrupt("%d vertices in a packed file, more than its 24-bit ids hold", hd.n)
	case hd.arcs > 1<<60 || hd.headerLen > 1<<20:
		// Bounds far past any real graph (2^60 arcs would be 4 EiB), so the
		// size arithmetic below cannot overflow.
		return hd, c.corrupt("implausible sizes in header")
	}
	hd.section = 4 * hd.arcs
	if meta.Packed {
		hd.section = packedBytes(hd.arcs)
	}
	return hd, nil
}

// checkSize compares a known stream length (size >= 0) with the length the
// header implies.
func (c *csrReader) checkSize(hd *csrHeader, size int64) error {
	want := uint64(csrHeaderSize) + 8*(hd.n+1) + hd.section + padTo8(hd.section) + hd.headerLen + padTo8(hd.headerLen)
	if hd.flags&csrFlagOrigIDs != 0 {
		want += 8 * hd.n
	}
	if size >= 0 && uint64(size) != want {
		if uint64(size) < want {
			return c.corrupt("truncated: %d bytes, the header implies %d", size, want)
		}
		return c.corrupt("%d bytes, the header implies %d", size, want)
	}
	return nil
}

// readAdj reads the adjacency section into g.Adj and hands it to ck. A
// mapped file's section is checksummed by ck, not by c.crc; a packed one
// stays in the mapping and may get lazily written pages (ck.lazy) that the
// caller frees if the file is refused.
func (c *csrReader) readAdj(g *Graph, ck *AdjCheck, hd *csrHeader) error {
	var err error
	if c.mapped {
		ck.f, ck.at, ck.before = c.mr.f, int64(c.mr.off), c.crc.Sum32()
		c.mr.crc = nil
	}
	switch {
	case c.mapped && hd.flags&csrFlagPacked != 0:
		// The stored bytes stay in the mapping; the entries go to pages
		// of their own, written when Finish unpacks them: an upload that
		// unpacks on the device never touches them.
		if ck.raw, err = c.mr.take(hd.section); err == nil {
			_, err = c.mr.take(padTo8(hd.section))
		}
		if err != nil {
			return c.trunc("adjacency", err)
		}
		ck.packed = true
		g.Adj, ck.lazy = lazyWords(hd.arcs)
	case hd.flags&csrFlagPacked != 0:
		g.Adj, err = readU24s(c.tr, hd.arcs, c.known)
	default:
		g.Adj, err = readU32s(c.tr, hd.arcs, c.known)
	}
	if err != nil {
		return c.trunc("adjacency", err)
	}
	ck.off, ck.adj = g.Offsets, g.Adj
	if c.mapped {
		c.crc.Reset()
		if pad := padTo8(hd.section); pad > 0 { // the section's padding
			c.crc.Write(c.mr.data[c.mr.off-int(pad) : c.mr.off])
		}
		c.mr.crc = c.crc
	}
	return nil
}

// readRest reads the sections after the adjacency (original ids, header
// text), checks nothing follows them, and checks or hands ck the checksum.
func (c *csrReader) readRest(g *Graph, ck *AdjCheck, hd *csrHeader, rp *Report) error {
	var err error
	if hd.flags&csrFlagOrigIDs != 0 {
		if g.OrigIDs, err = readU64s(c.tr, hd.n, c.known); err != nil {
			return c.trunc("original ids", err)
		}
	}
	text := make([]byte, (hd.headerLen+7)/8*8)
	if _, err := fill(c.tr, text); err != nil && !(err == io.EOF && len(text) == 0) {
		return c.trunc("header text", err)
	}
	rp.Header = string(text[:hd.headerLen])
	if !c.known {
		if m, _ := fill(c.r, make([]byte, 1)); m > 0 {
			return c.corrupt("data after the last section")
		}
	}
	if c.mapped {
		ck.after, ck.afterLen = c.crc.Sum32(), int64(len(c.mr.data))-ck.at-int64(hd.section)
	} else {
		if got := c.crc.Sum32(); got != hd.crcWant {
			return c.corrupt("checksum mismatch (stored %08x, computed %08x)", hd.crcWant, got)
		}
		ck.crcDone = true
	}
	return nil
}

// littleEndian: the host stores integers as the CSR file does, so sections
// can be read into slices directly.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// readGrowStart: with the stream length unknown, a section starts at 1M
// entries and grows with the data actually read.
const readGrowStart = 1 << 20

func readU64s(r io.Reader, count uint64, known bool) ([]uint64, error) {
	if s, ok, err := mappedSlice[uint64](r, count); ok {
		return s, err
	}
	if known && littleEndian && count > 0 {
		// The file's size was checked against the header: read straight
		// into the slice, not element by element (far slower on large files).
		out := make([]uint64, count)
		_, err := io.ReadFull(r, unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 8*count))
		return out, err
	}
	out := make([]uint64, 0, capHint(count, known))
	buf := make([]byte, ioChunk)
	for rest := count; rest > 0; {
		k := min(rest, ioChunk/8)
		m, err := fill(r, buf[:8*k])
		for i := 0; i+8 <= m; i += 8 {
			out = append(out, binary.LittleEndian.Uint64(buf[i:]))
		}
		if uint64(m) != 8*k {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		rest -= k
	}
	return out, nil
}

func readU32s(r io.Reader, count uint64, known bool) ([]uint32, error) {
	if s, ok, err := mappedSlice[uint32](r, count); ok {
		if err == nil && count%2 == 1 { // padding to 8 bytes
			_, err = r.(*mappedReader).take(4)
		}
		return s, err
	}
	if known && littleEndian && count > 0 {
		out := make([]uint32, count)
		if _, err := io.ReadFull(r, unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), 4*count)); err != nil {
			return nil, err
		}
		if count%2 == 1 { // padding to 8 bytes
			var pad [4]byte
			if _, err := io.ReadFull(r, pad[:]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	out := make([]uint32, 0, capHint(count, known))
	buf := make([]byte, ioChunk)
	for rest := count; rest > 0; {
		k := min(rest, ioChunk/4)
		m, err := fill(r, buf[:4*k])
		for i := 0; i+4 <= m; i += 4 {
			out = append(out, binary.LittleEndian.Uint32(buf[i:]))
		}
		if uint64(m) != 4*k {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		rest -= k
	}
	if count%2 == 1 {
		if m, err := fill(r, buf[:4]); m != 4 {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return out, nil
}

func capHint(count uint64, known bool) uint64 {
	if known {
		return count
	}
	return min(count, readGrowStart)
}
