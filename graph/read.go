package graph

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
)

// Formats lists the input formats Open understands, for flag enums and help.
var Formats = []string{"text", "mtx", "bin32", "bin64", "csr", "adj", "npz"}

// ReadOptions tune Open.
type ReadOptions struct {
	// Format is one of Formats, or "" to decide from the file name and
	// content. Binary edge lists (bin32, bin64) are never guessed from
	// content: they need this field or a .bin32/.bin64 extension.
	Format string
	// Progress, when not nil, is called as the file is read with the bytes
	// of the file read so far (compressed bytes for gzip input) and the file
	// size (-1 when unknown, as for standard input). Calls come from one
	// goroutine at a time, not necessarily the caller's.
	Progress func(done, total int64)
	// Map reads a plain (not gzipped) CSR file by mapping it into memory
	// instead of copying it (cache_map_linux.go): the graph then points into
	// a private mapping that lives as long as the process. Other inputs are
	// read as usual.
	Map bool
	// DeferAdjCheck, with Map, leaves the checks of the adjacency section
	// (its checksum, ids and order; most of the file) to the caller:
	// CSR.AdjCheck returns them, and the caller must call its Fill or
	// Finish before anything reads Adj (adjcheck.go). The header and the
	// offsets are checked as usual.
	DeferAdjCheck bool
	// Context, when not nil, stops reading and building: every read of the
	// input checks it, Build checks it between phases, and the error then
	// wraps Context.Err().
	Context context.Context
	// Memory bounds the estimated peak of reading and building: a file
	// whose size or header says it needs more is refused before it is read
	// (a *TooLargeError), and so is a stream of unknown size once the
	// records read so far need more.
	Memory MemoryLimit
}

// InputError is what every reader returns for input it cannot accept: bad
// syntax, ids out of range, a truncated or corrupt file, or an I/O error
// while reading it. Line is 1-based, 0 when the problem has no line. cmd
// maps it to the bad-input exit code.
type InputError struct {
	File string // the path as given
	Line int64
	Msg  string
	Err  error // the underlying cause, if any (ErrCorrupt, ErrStale, an I/O error)
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func (e *InputError) Unwrap() error { return e.Err }

var (
	// ErrCorrupt marks a CSR file that fails its checks (magic, sizes,
	// checksum, structure): wrapped in an *InputError.
	ErrCorrupt = errors.New("corrupt tcgen CSR file")
	// ErrStale marks a CSR file written by another format version (or, for
	// the cache, another tool version): wrapped in an *InputError.
	ErrStale = errors.New("stale tcgen CSR file")
)

// StdinPath names standard input in Open.
const StdinPath = "-"

// Open reads the graph in path (StdinPath for standard input) and returns
// the canonical graph and a report of what was read and dropped. A path
// that is not a regular file (a pipe, a FIFO, /dev/stdin, a process
// substitution's /dev/fd/N, a character device) is opened once and read
// once, as a stream: its bytes cannot be read again. Gzip input
// is decompressed transparently (recognised by its magic bytes). The format
// comes from opt.Format, else the extension (after any .gz: .mtx, .tcsr,
// .bin32, .bin64, .adj, .npz), else the content (a Matrix Market banner,
// tcgen's CSR magic, Ligra's AdjacencyGraph header, a zip's signature for
// .npz), else text. Errors about the input are *InputError.
func Open(path string, opt ReadOptions) (*Graph, *Report, error) {
	src, err := openSource(path, opt, nil)
	if err != nil {
		return nil, nil, err
	}
	if opt.Map && src.regular && src.format == "csr" && !src.gz {
		// A regular file may be opened again: mapped, it is read in place.
		src.close()
		g, meta, ok, err := mapCSR(path, opt.DeferAdjCheck)
		if ok {
			if err != nil {
				return nil, nil, err
			}
			r := meta.Report
			r.Format = "csr"
			r.Orientation, r.Relabelled = meta.Orientation, meta.Relabelled
			if opt.Progress != nil {
				opt.Progress(1, 1)
			}
			return g, &r, nil
		}
		if src, err = openSource(path, opt, nil); err != nil {
			return nil, nil, err
		}
	}
	defer src.close()
	return src.read()
}

// Read reads a graph from r as Open reads a file; name labels errors and
// the format comes from opt.Format, else from name's extension and the
// content.
func Read(r io.Reader, name string, opt ReadOptions) (*Graph, *Report, error) {
	src, err := newSource(name, r, nil, -1, opt, nil)
	if err != nil {
		return nil, nil, err
	}
	defer src.close()
	return src.read()
}

// DetectFormat returns the format Open would read path as, and whether the
// file is gzip-compressed. It reads the start of the file: on a pipe or
// FIFO those bytes are gone for a later Open.
func DetectFormat(path string, format string) (string, bool, error) {
	src, err := openSource(path, ReadOptions{Format: format}, nil)
	if err != nil {
		return "", false, err
	}
	defer src.close()
	return src.format, src.gz, nil
}

// source is an opened input: the file, the decompressed stream, the format.
type source struct {
	name   string
	closer io.Closer
	size   int64 // -1 when unknown
	// regular: a regular file, which may be opened and read again (hashed
	// for the cache, mapped); anything else is read once, as a stream.
	regular bool
	gz      bool
	format  string
	r       *bufio.Reader // decompressed content, positioned after any BOM
	count   *countingReader
	gzr     *gzip.Reader
	// blockSize overrides textBlockSize; tests use tiny blocks to put
	// block boundaries everywhere.
	blockSize int
	ctx       context.Context // never nil
	mem       MemoryLimit
}

// sourceBufSize: the buffered readers in front of the file and of the
// decompressed content. Big reads (text blocks) bypass them; they serve the
// sniffing peek, the .mtx header and the inflater, in 64 KiB system calls.
const sourceBufSize = 64 << 10

// sniffLen: enough decompressed bytes to recognise a banner or magic, and to
// judge whether a declared binary file is really text.
const sniffLen = 4096

var gzipMagic = []byte{0x1f, 0x8b}

// utf8BOM: spreadsheet tools put it in front of CSV files.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// openSource opens path for reading; h, when not nil, receives every byte
// of the file as it is read.
func openSource(path string, opt ReadOptions, h hash.Hash) (*source, error) {
	if path == StdinPath {
		return newSource("<stdin>", os.Stdin, nil, -1, opt, h)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &InputError{File: path, Msg: errMsg(err), Err: err}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, &InputError{File: path, Msg: errMsg(err), Err: err}
	}
	if st.IsDir() {
		f.Close()
		return nil, &InputError{File: path, Msg: "is a directory"}
	}
	// An empty "regular" file may still have content (procfs and sysfs
	// report size 0): it is read as a stream, which needs no size.
	regular := st.Mode().IsRegular() && st.Size() > 0
	size := int64(-1)
	if regular {
		size = st.Size()
	}
	s, err := newSource(path, f, f, size, opt, h)
	if err == nil {
		s.regular = regular
	}
	return s, err
}

// newSource sniffs r (compression, BOM, format). closer, when not nil, is
// closed with the source. size is r's length, -1 when unknown.
func newSource(name string, r io.Reader, closer io.Closer, size int64, opt ReadOptions, h hash.Hash) (*source, error) {
	s := &source{name: name, size: size, closer: closer, ctx: opt.Context, mem: opt.Memory}
	if s.ctx == nil {
		s.ctx = context.Background()
	}
	if opt.Format != "" && !isFormat(opt.Format) {
		s.close()
		return nil, fmt.Errorf("unknown format %q (want one of %s)", opt.Format, strings.Join(Formats, ", "))
	}
	s.count = &countingReader{r: r, total: s.size, progress: opt.Progress, hash: h, ctx: s.ctx}
	raw := bufio.NewReaderSize(s.count, sourceBufSize)
	if magic, _ := raw.Peek(2); bytes.Equal(magic, gzipMagic) {
		zr, err := gzip.NewReader(raw)
		s.gz = true // a gzip magic: its errors are gzip's
		if err != nil {
			s.close()
			return nil, s.ioError(err)
		}
		s.gzr = zr
		s.r = bufio.NewReaderSize(zr, sourceBufSize)
	} else {
		s.r = raw
	}
	head, err := s.r.Peek(sniffLen)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		s.close()
		return nil, s.ioError(err)
	}
	bom := bytes.HasPrefix(head, utf8BOM)
	if bom {
		head = head[len(utf8BOM):]
	}
	s.format = opt.Format
	if s.format == "" && name != "<stdin>" {
		s.format = formatFromName(name)
	}
	content := formatFromContent(head)
	if s.format == "" {
		s.format = content
		if s.format == "" {
			s.format = "text"
		}
	}
	if bom && (s.format == "text" || s.format == "mtx") {
		s.r.Discard(len(utf8BOM)) // binary formats keep every byte
	}
	if err := s.checkDeclared(content, head); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// checkDeclared rejects a declared format the content plainly contradicts,
// so a wrong --format gives a clear error rather than a garbage graph.
func (s *source) checkDeclared(content string, head []byte) error {
	if content != "" && content != s.format {
		return &InputError{File: s.name, Msg: fmt.Sprintf("content is %s, not %s (wrong format?)", formatName(content), formatName(s.format))}
	}
	switch {
	case s.format == "mtx" && content != "mtx":
		return &InputError{File: s.name, Line: 1, Msg: "no %%MatrixMarket banner: not a Matrix Market file (wrong format?)"}
	case s.format == "csr" && content != "csr":
		return &InputError{File: s.name, Msg: "no " + csrMagic + " magic: not a tcgen CSR file (wrong format?)", Err: ErrCorrupt}
	case s.format == "adj" && content != "adj":
		return &InputError{File: s.name, Line: 1, Msg: "no " + ligraHeader + " header: not a Ligra adjacency graph (wrong format?)"}
	case s.format == "npz" && content != "npz":
		return &InputError{File: s.name, Msg: "no zip signature: not a SciPy sparse .npz file (wrong format?)"}
	}
	if (s.format == "bin32" || s.format == "bin64") && len(head) > 0 && looksLikeText(head) {
		return &InputError{File: s.name, Msg: fmt.Sprintf("content looks like text, not a %s binary edge list (wrong format?)", s.format)}
	}
	return nil
}

func formatName(f string) string {
	switch f {
	case "mtx":
		return "Matrix Market"
	case "csr":
		return "a tcgen CSR file"
	case "text":
		return "a text edge list"
	case "adj":
		return "a Ligra adjacency graph"
	case "npz":
		return "a zip (.npz) file"
	}
	return f
}

func isFormat(f string) bool {
	for _, x := range Formats {
		if x == f {
			return true
		}
	}
	return false
}

func formatFromName(path string) string {
	base := strings.ToLower(filepath.Base(path))
	base = strings.TrimSuffix(base, ".gz")
	switch filepath.Ext(base) {
	case ".mtx":
		return "mtx"
	case ".tcsr":
		return "csr"
	case ".bin32":
		return "bin32"
	case ".bin64":
		return "bin64"
	case ".adj":
		return "adj"
	case ".npz":
		return "npz"
	}
	return ""
}

// formatFromContent recognises the self-describing formats.
func formatFromContent(head []byte) string {
	const banner = "%%matrixmarket"
	if len(head) >= len(banner) && strings.EqualFold(string(head[:len(banner)]), banner) {
		return "mtx"
	}
	if bytes.HasPrefix(head, []byte(csrMagic)) {
		return "csr"
	}
	if isLigra(head) {
		return "adj"
	}
	if bytes.HasPrefix(head, zipMagic) || bytes.HasPrefix(head, zipEmptyMagic) {
		return "npz"
	}
	return ""
}

// looksLikeText reports whether b holds only printable ASCII and line
// whitespace. Binary pairs of real graphs hold many zero bytes (small ids in
// 4 or 8 bytes), so a text-only first 4 KiB means a mis-declared text file.
func looksLikeText(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return false
		}
	}
	return true
}

func (s *source) close() {
	if s.gzr != nil {
		s.gzr.Close()
	}
	if s.closer != nil {
		s.closer.Close()
	}
}

func (s *source) read() (*Graph, *Report, error) {
	rep := &Report{Format: s.format, Gzip: s.gz}
	var el *EdgeList
	var err error
	parseStart := time.Now()
	var declared uint64 // vertices an .mtx size line, Ligra header or .npz shape declared
	if err := s.checkMemory(); err != nil {
		return nil, nil, err
	}
	switch s.format {
	case "text":
		el, err = s.readText(rep)
	case "mtx":
		el, declared, err = s.readMTX(rep)
	case "bin32", "bin64":
		el, err = s.readBinary(rep)
	case "adj":
		el, declared, err = s.readLigra(rep)
	case "npz":
		el, declared, err = s.readNPZ(rep)
	case "csr":
		size := s.size
		if s.gz {
			size = -1 // the decompressed length is not known
		}
		g, meta, err := readCSRFrom(s.r, s.name, size, s.gz)
		if err != nil {
			return nil, nil, err
		}
		s.finishProgress()
		r := meta.Report
		r.Format, r.Gzip = "csr", s.gz
		r.Orientation, r.Relabelled = meta.Orientation, meta.Relabelled
		return g, &r, nil
	}
	if err != nil {
		return nil, nil, err
	}
	s.finishProgress()
	rep.ParseMs = float64(time.Since(parseStart).Nanoseconds()) / 1e6
	buildStart := time.Now()
	g, err := BuildContext(s.ctx, el, rep)
	rep.CleanMs = float64(time.Since(buildStart).Nanoseconds()) / 1e6
	if err != nil {
		if s.ctx.Err() != nil {
			return nil, nil, err
		}
		return nil, nil, &InputError{File: s.name, Msg: err.Error()}
	}
	if declared > 0 {
		// Every id is one of the declared vertices, so those not kept are
		// exactly those with no edge (loop-only ones included).
		rep.Isolated = declared - uint64(g.N())
	}
	return g, rep, nil
}

func (s *source) finishProgress() {
	if s.count.progress != nil {
		s.count.progress(s.count.done, s.count.total)
	}
}

// ioError turns a read error into an *InputError, naming the usual gzip
// failures plainly.
func (s *source) ioError(err error) error {
	var ie *InputError
	if errors.As(err, &ie) || s.ctx.Err() != nil && errors.Is(err, s.ctx.Err()) {
		return err
	}
	msg := errMsg(err)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && s.gz:
		msg = "truncated gzip data (file cut short?), or a few stray bytes after it"
	case errors.Is(err, io.ErrUnexpectedEOF):
		msg = "unexpected end of file"
	case errors.Is(err, gzip.ErrChecksum):
		msg = "gzip checksum mismatch (corrupt file)"
	case errors.Is(err, gzip.ErrHeader):
		msg = "invalid gzip header (corrupt file, or bytes that are not gzip after its data)"
	case s.gz:
		msg = "corrupt gzip data: " + msg
	}
	return &InputError{File: s.name, Msg: msg, Err: err}
}

// errMsg strips the path an *os.PathError repeats, since InputError names
// the file already.
func errMsg(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// countingReader counts the file bytes read, reports progress at most once
// per progressStep bytes, and feeds hash when set (Cache.Load hashes what it
// parses).
type countingReader struct {
	r        io.Reader
	done     int64
	total    int64
	last     int64
	progress func(done, total int64)
	hash     hash.Hash
	ctx      context.Context // checked before every read
}

// progressStep: a callback per 4 MiB is smooth for a bar and costs nothing.
const progressStep = 4 << 20

func (c *countingReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.done += int64(n)
	if c.hash != nil {
		c.hash.Write(p[:n])
	}
	if c.progress != nil && c.done-c.last >= progressStep {
		c.last = c.done
		c.progress(c.done, c.total)
	}
	return n, err
}
