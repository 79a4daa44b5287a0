package graph

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ToolVersion is the tcgen version written into CSR files; cmd sets it from
// the build info. A cache written by another tool version is rebuilt.
var ToolVersion = "dev"

// The CSR file (tcgen's cache, and the output of `tcgen convert -o`):
//
//	offset size
//	0      8    magic "TCGENCSR"
//	8      4    format version (csrVersion)
//	12     4    header size (csrHeaderSize)
//	16     8    vertices n
//	24     8    arcs (stored adjacency entries)
//	32     1    orientation (graph.Orientation)
//	33     1    flags (csrFlag*)
//	34     6    zero
//	40     32   SHA-256 of the source file's bytes
//	72     8    source size in bytes
//	80     32   tool version, NUL padded
//	112    48   the source's Report: InputEdges, SelfLoops, Duplicates,
//	            Isolated, Comments, HeaderLine
//	160    8    length of the header text section
//	168    8    source format, NUL padded
//	176    72   zero
//	248    4    CRC-32C of the header (this field zero) and the payload
//	252    4    zero
//	256         Offsets, (n+1) uint64; Adj, arcs uint32 (flag packed: 3
//	            bytes an entry, packed.go), zero padded to 8 bytes; OrigIDs,
//	            n uint64, when flagged; the source's skipped header line,
//	            zero padded to 8 bytes.
//
// All integers are little-endian and every section starts 8-byte aligned,
// so the file can also be mapped and used in place.
const (
	csrMagic         = "TCGENCSR"
	csrVersion       = 1
	csrHeaderSize    = 256
	csrToolLen       = 32
	csrFormatLen     = 8
	csrCRCOffset     = 248
	csrFlagOrigIDs   = 1 << 0
	csrFlagRelabeled = 1 << 1
	csrFlagGzip      = 1 << 2 // the source was gzip-compressed
	csrFlagPacked    = 1 << 3 // adjacency entries of 3 bytes (packed.go)
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CacheMeta is what a CSR file records besides the graph.
type CacheMeta struct {
	Version     uint32 // CSR format version (set by WriteCSR)
	ToolVersion string // set by WriteCSR from ToolVersion when empty
	Orientation Orientation
	Relabelled  bool
	// Packed stores the adjacency in 3 bytes an entry (packed.go): a
	// quarter smaller, for graphs of at most MaxPackedVertices vertices.
	Packed       bool
	SourceHash   [32]byte // SHA-256 of the source file
	SourceSize   int64
	SourceFormat string // the format the source was read as
	// Report is what reading the source reported, kept so a graph served
	// from the cache still says what cleaning dropped.
	Report Report
}

// WriteCSR writes g to path atomically: a temporary file in the same
// directory, synced, then renamed over path. On error nothing is left at
// path (an older file there stays intact) and the temporary file is removed.
func WriteCSR(path string, g *Graph, meta CacheMeta) error {
	return WriteCSROpt(path, g, meta, WriteOptions{})
}

// WriteCSROpt is WriteCSR with options (WriteFileAtomicOpt): a cancelled
// Context stops the write within a MiB.
func WriteCSROpt(path string, g *Graph, meta CacheMeta, opt WriteOptions) error {
	if err := prepareCSRMeta(g, &meta); err != nil {
		return err
	}
	return WriteFileAtomicOpt(path, opt, func(f *os.File) error {
		bw := bufio.NewWriterSize(ContextWriter(opt.Context, f), ioChunk) // few large write calls
		crc, err := encodeCSR(bw, g, &meta, nil)
		if err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		var sum [4]byte
		binary.LittleEndian.PutUint32(sum[:], crc)
		_, err = f.WriteAt(sum[:], csrCRCOffset)
		return err
	})
}

// EncodeCSR writes g in the CSR format to w, a stream that cannot seek
// back to the checksum in the header: a first pass encodes without writing
// to compute it.
func EncodeCSR(w io.Writer, g *Graph, meta CacheMeta) error {
	if err := prepareCSRMeta(g, &meta); err != nil {
		return err
	}
	crc, err := encodeCSR(io.Discard, g, &meta, nil)
	if err != nil {
		return err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc)
	bw := bufio.NewWriterSize(w, ioChunk)
	if _, err := encodeCSR(bw, g, &meta, &sum); err != nil {
		return err
	}
	return bw.Flush()
}

// prepareCSRMeta checks g against meta and fills the versions.
func prepareCSRMeta(g *Graph, meta *CacheMeta) error {
	if g.OrigIDs != nil && len(g.OrigIDs) != g.N() {
		return fmt.Errorf("graph: %d original ids for %d vertices", len(g.OrigIDs), g.N())
	}
	if meta.Packed && g.N() > MaxPackedVertices {
		return fmt.Errorf("graph: %d vertices do not fit the packed format's 24-bit ids (at most %d)", g.N(), MaxPackedVertices)
	}
	if meta.ToolVersion == "" {
		meta.ToolVersion = ToolVersion
	}
	meta.Version = csrVersion
	return nil
}

// encodeCSR writes the file to w and returns its CRC-32C, computed with
// the header's checksum field zero; the header carries sum when given,
// else zero (for the caller to patch).
func encodeCSR(w io.Writer, g *Graph, meta *CacheMeta, sum *[4]byte) (uint32, error) {
	header := encodeCSRHeader(g, meta)
	crc := newCRC32C()
	crc.Write(header)
	if sum != nil {
		copy(header[csrCRCOffset:], sum[:])
	}
	if _, err := w.Write(header); err != nil {
		return 0, err
	}
	mw := io.MultiWriter(w, crc)
	if err := writeU64s(mw, g.Offsets); err != nil {
		return 0, err
	}
	write := writeU32s
	if meta.Packed {
		write = writeU24s
	}
	if err := write(mw, g.Adj); err != nil {
		return 0, err
	}
	if g.OrigIDs != nil {
		if err := writeU64s(mw, g.OrigIDs); err != nil {
			return 0, err
		}
	}
	if _, err := mw.Write(pad8([]byte(meta.Report.Header))); err != nil {
		return 0, err
	}
	return crc.Sum32(), nil
}

func encodeCSRHeader(g *Graph, meta *CacheMeta) []byte {
	h := make([]byte, csrHeaderSize)
	le := binary.LittleEndian
	copy(h[0:8], csrMagic)
	le.PutUint32(h[8:], meta.Version)
	le.PutUint32(h[12:], csrHeaderSize)
	le.PutUint64(h[16:], uint64(g.N()))
	le.PutUint64(h[24:], g.Arcs())
	h[32] = byte(meta.Orientation)
	var flags byte
	if g.OrigIDs != nil {
		flags |= csrFlagOrigIDs
	}
	if meta.Relabelled {
		flags |= csrFlagRelabeled
	}
	if meta.Report.Gzip {
		flags |= csrFlagGzip
	}
	if meta.Packed {
		flags |= csrFlagPacked
	}
	h[33] = flags
	copy(h[40:72], meta.SourceHash[:])
	le.PutUint64(h[72:], uint64(meta.SourceSize))
	copy(h[80:80+csrToolLen], fixedString(meta.ToolVersion, csrToolLen))
	r := &meta.Report
	for i, x := range []uint64{r.InputEdges, r.SelfLoops, r.Duplicates, r.Isolated, uint64(r.Comments), uint64(r.HeaderLine)} {
		le.PutUint64(h[112+8*i:], x)
	}
	le.PutUint64(h[160:], uint64(len(r.Header)))
	copy(h[168:168+csrFormatLen], fixedString(meta.SourceFormat, csrFormatLen))
	return h
}

// fixedString cuts s to n bytes for a fixed-size header field.
func fixedString(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// padTo8 is how many zero bytes follow a section of n bytes.
func padTo8(n uint64) uint64 { return (8 - n%8) % 8 }

func pad8(b []byte) []byte {
	if r := len(b) % 8; r != 0 {
		b = append(b, make([]byte, 8-r)...)
	}
	return b
}

// ioChunk: slices are encoded and decoded through a 1 MiB buffer.
const ioChunk = 1 << 20

func writeU64s(w io.Writer, s []uint64) error {
	buf := make([]byte, 0, ioChunk)
	for len(s) > 0 {
		k := min(len(s), ioChunk/8)
		buf = buf[:0]
		for _, x := range s[:k] {
			buf = binary.LittleEndian.AppendUint64(buf, x)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		s = s[k:]
	}
	return nil
}

func writeU32s(w io.Writer, s []uint32) error {
	buf := make([]byte, 0, ioChunk)
	odd := len(s)%2 == 1
	for len(s) > 0 {
		k := min(len(s), ioChunk/4)
		buf = buf[:0]
		for _, x := range s[:k] {
			buf = binary.LittleEndian.AppendUint32(buf, x)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		s = s[k:]
	}
	if odd {
		_, err := w.Write(make([]byte, 4)) // pad the section to 8 bytes
		return err
	}
	return nil
}

// Cache keeps canonical graphs as CSR files in Dir, keyed by the content
// of their source, so a graph read once loads quickly after.
type Cache struct {
	Dir string
}

// DefaultCacheDir returns os.UserCacheDir()/tcgen.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "tcgen"), nil
}

// Path returns the cache file for a source with the given SHA-256 read as
// format: 128 bits of the hash name it; the full hash is checked inside.
func (c *Cache) Path(sum [32]byte, format string) string {
	return filepath.Join(c.Dir, fmt.Sprintf("%x-%s.tcsr", sum[:16], format))
}

// Load returns the canonical graph of srcPath, from the cache when a valid
// entry exists (Report.FromCache), else by reading the source and writing
// the entry atomically. A stale or corrupt entry is never used: it is
// rebuilt and overwritten, and Report.CacheNote says so. Failing to write
// the cache is not an error (Report.CacheNote says why). CSR sources are
// read directly, and so is any input that is not a regular file (standard
// input, a pipe, a FIFO, a device): it is read once, as a stream, and never
// cached, since it cannot be hashed first and read again. Nothing is ever
// written beside the input.
func (c *Cache) Load(srcPath string, opt ReadOptions) (*Graph, *Report, error) {
	src, err := openSource(srcPath, opt, nil)
	if err != nil {
		return nil, nil, err
	}
	if !src.regular {
		defer src.close()
		return src.read()
	}
	format := src.format
	src.close()
	if format == "csr" {
		return Open(srcPath, opt)
	}
	sum, size, err := hashFile(opt.Context, srcPath)
	if err != nil {
		if opt.Context != nil && opt.Context.Err() != nil {
			return nil, nil, err
		}
		return nil, nil, &InputError{File: srcPath, Msg: errMsg(err), Err: err}
	}
	path := c.Path(sum, format)
	note := ""
	g, meta, err := ReadCSR(path)
	switch {
	case err == nil && meta.SourceHash == sum && meta.SourceSize == size && meta.SourceFormat == format &&
		meta.ToolVersion == fixedString(ToolVersion, csrToolLen) && meta.Orientation == Undirected:
		rep := meta.Report
		rep.Format = format
		rep.FromCache = true
		rep.CachePath = path
		if opt.Progress != nil {
			opt.Progress(size, size)
		}
		return g, &rep, nil
	case err == nil:
		note = fmt.Sprintf("cache %s was written by tcgen %q for another source or version; rebuilt", path, meta.ToolVersion)
	case errors.Is(err, fs.ErrNotExist):
	default:
		note = fmt.Sprintf("%v; rebuilt", err)
	}
	g = nil

	// Read the source, hashing what is read, so that a source changed since
	// it was hashed is not cached under the old hash.
	h := sha256.New()
	src, err = openSource(srcPath, opt, h)
	if err != nil {
		return nil, nil, err
	}
	g, rep, err := src.read()
	src.close()
	if err != nil {
		return nil, nil, err
	}
	rep.CacheNote = note
	if !bytes.Equal(h.Sum(nil), sum[:]) || src.count.done != size {
		rep.CacheNote = strings.TrimPrefix(note+"; ", "; ") + "source changed while being read; not cached"
		return g, rep, nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		rep.CacheNote = strings.TrimPrefix(note+"; ", "; ") + "cache not written: " + err.Error()
		return g, rep, nil
	}
	meta = CacheMeta{SourceHash: sum, SourceSize: size, SourceFormat: format, Report: *rep}
	if err := WriteCSROpt(path, g, meta, WriteOptions{Context: opt.Context}); err != nil {
		if opt.Context != nil && opt.Context.Err() != nil {
			return nil, nil, err
		}
		rep.CacheNote = strings.TrimPrefix(note+"; ", "; ") + "cache not written: " + err.Error()
		return g, rep, nil
	}
	rep.CachePath = path
	return g, rep, nil
}

// hashFile returns the SHA-256 and size of a file's bytes; a done ctx
// (when not nil) stops it within a MiB.
func hashFile(ctx context.Context, path string) ([32]byte, int64, error) {
	var sum [32]byte
	f, err := os.Open(path)
	if err != nil {
		return sum, 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.CopyBuffer(ContextWriter(ctx, h), f, make([]byte, ioChunk))
	if err != nil {
		return sum, 0, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, n, nil
}
