package graph

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// Ligra's adjacency graph text format: the word "AdjacencyGraph", n, m, n
// offsets (where each vertex's targets start), then m targets; the
// weighted form, "WeightedAdjacencyGraph", adds m integer weights after
// the targets. Values are separated by any whitespace (one a line, as
// Ligra writes them). Vertex v's targets are entries offsets[v] up to
// offsets[v+1] (m for the last vertex). The graph is read undirected, as
// every format is, and weights are ignored.

const (
	ligraHeader         = "AdjacencyGraph"
	ligraWeightedHeader = "WeightedAdjacencyGraph"
)

// ligraBatch: records go to the edge list 64K pairs at a time.
const ligraBatch = 1 << 16

// wordReader splits a stream into whitespace-separated words, counting
// lines, through a buffer it refills (a word may be of any length).
type wordReader struct {
	r    io.Reader
	buf  []byte
	i, n int
	line int64 // line of the last word returned (1-based)
	nl   int64 // newlines before buf[i]
	err  error // the read error that ended the stream (io.EOF at its end)
}

// wordBufSize: refills of 256 KiB, large enough that the per-refill cost
// is noise.
const wordBufSize = 256 << 10

func newWordReader(r io.Reader) *wordReader {
	return &wordReader{r: r, buf: make([]byte, wordBufSize)}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// fill moves the unread bytes from start to the front, grows the buffer
// when they fill it, and reads more; false at the end of the stream.
func (w *wordReader) fill(start int) bool {
	if w.err != nil {
		return false
	}
	k := copy(w.buf, w.buf[start:w.n])
	w.i, w.n = w.i-start, k
	if w.n == len(w.buf) {
		w.buf = append(w.buf, make([]byte, len(w.buf))...)
	}
	m, err := w.r.Read(w.buf[w.n:])
	w.n += m
	if err != nil {
		w.err = err
	}
	return m > 0 || err == nil
}

// next returns the next word (valid until the next call), or nil at the
// end of the stream; a read error other than io.EOF is returned.
func (w *wordReader) next() ([]byte, error) {
	for {
		for w.i < w.n && isSpace(w.buf[w.i]) {
			if w.buf[w.i] == '\n' {
				w.nl++
			}
			w.i++
		}
		if w.i < w.n {
			break
		}
		if !w.fill(w.i) {
			return nil, w.readErr()
		}
	}
	start := w.i
	for {
		for w.i < w.n && !isSpace(w.buf[w.i]) {
			w.i++
		}
		if w.i < w.n {
			break
		}
		more := w.fill(start) // the word so far moves to the front
		start = 0
		if !more {
			break
		}
	}
	w.line = w.nl + 1
	return w.buf[start:w.i], nil
}

func (w *wordReader) readErr() error {
	if w.err == io.EOF {
		return nil
	}
	return w.err
}

// ligraReader is the state of one readLigra call.
type ligraReader struct {
	s *source
	w *wordReader
}

func (l *ligraReader) bad(line int64, msg string, args ...any) error {
	return &InputError{File: l.s.name, Line: line, Msg: fmt.Sprintf(msg, args...)}
}

// number reads the next word as a decimal integer of at most limit; what
// names it in errors, and the end of the file is reported as a
// truncation after have of the want values of that kind.
func (l *ligraReader) number(what string, limit, have, want uint64) (uint64, error) {
	word, err := l.w.next()
	if err != nil {
		return 0, l.s.ioError(err)
	}
	if word == nil {
		return 0, l.bad(max(l.w.line, 1), "truncated: the file ends after %d of the %d %s the header declares", have, want, what)
	}
	x, kind := parseDecimal(word)
	switch {
	case kind == idOK && x <= limit:
		return x, nil
	case kind == idNotInteger:
		return 0, l.bad(l.w.line, "expected a number (%s), got %s", what, quoteToken(word))
	case kind == idNegative:
		return 0, l.bad(l.w.line, "negative value %s among the %s", quoteToken(word), what)
	}
	return 0, l.bad(l.w.line, "value %s among the %s exceeds %d", cutToken(word), what, limit)
}

// parseDecimal is parseID with a fast path for the common word: at most
// maxFastDigits digits, which cannot overflow.
func parseDecimal(word []byte) (uint64, idKind) {
	if len(word) == 0 || len(word) > maxFastDigits {
		return parseID(word)
	}
	var x uint64
	for _, c := range word {
		d := c - '0'
		if d > 9 {
			return parseID(word)
		}
		x = x*10 + uint64(d)
	}
	return x, idOK
}

// readLigra reads an AdjacencyGraph file into records (vertex, target),
// returning the declared vertex count too.
func (s *source) readLigra(rep *Report) (*EdgeList, uint64, error) {
	l := &ligraReader{s: s, w: newWordReader(s.r)}
	head, err := l.w.next()
	if err != nil {
		return nil, 0, s.ioError(err)
	}
	weighted := string(head) == ligraWeightedHeader
	if !weighted && string(head) != ligraHeader {
		return nil, 0, l.bad(max(l.w.line, 1), "no %s header: not a Ligra adjacency graph (wrong format?)", ligraHeader)
	}
	n, err := l.number("header values", maxID, 0, 2)
	if err != nil {
		return nil, 0, err
	}
	m, err := l.number("header values", maxID, 1, 2)
	if err != nil {
		return nil, 0, err
	}
	// The header's counts bound the records and the offsets (8 bytes each).
	if err := s.mem.Check(s.name, satAdd(buildBytes(m, n), satMul(satAdd(n, 1), 8))); err != nil {
		return nil, 0, err
	}
	offsets, err := l.offsets(n, m)
	if err != nil {
		return nil, 0, err
	}
	el, err := l.targets(offsets, n, m)
	if err != nil {
		return nil, 0, err
	}
	if weighted {
		for i := uint64(0); i < m; i++ {
			if _, err := l.weight(i, m); err != nil {
				return nil, 0, err
			}
		}
	}
	if word, err := l.w.next(); err != nil || word != nil {
		if err != nil {
			return nil, 0, s.ioError(err)
		}
		return nil, 0, l.bad(l.w.line, "more values than the header declares (%d vertices, %d edges): %s", n, m, quoteToken(word))
	}
	return el, n, nil
}

// offsets reads the n offsets: from 0, never decreasing, at most m. The
// slice grows as they arrive, so a header claiming more than the file
// holds allocates nothing for them.
func (l *ligraReader) offsets(n, m uint64) ([]uint64, error) {
	offsets := make([]uint64, 0, min(n, readGrowStart)+1)
	for v := uint64(0); v < n; v++ {
		o, err := l.number("offsets", maxID, v, n)
		if err != nil {
			return nil, err
		}
		switch {
		case v == 0 && o != 0:
			return nil, l.bad(l.w.line, "the first offset is %d, not 0", o)
		case o > m:
			return nil, l.bad(l.w.line, "offset of vertex %d is %d, past the %d edges", v, o, m)
		case v > 0 && o < offsets[v-1]:
			return nil, l.bad(l.w.line, "offset of vertex %d is %d, below vertex %d's %d", v, o, v-1, offsets[v-1])
		}
		offsets = append(offsets, o)
	}
	return append(offsets, m), nil
}

// targets reads the m targets into records (source, target).
func (l *ligraReader) targets(offsets []uint64, n, m uint64) (*EdgeList, error) {
	if n == 0 && m > 0 {
		return nil, l.bad(l.w.line, "%d edges but no vertices", m)
	}
	el := &EdgeList{}
	pairs := make([]uint64, 0, 2*ligraBatch)
	v := uint64(0)
	for i := uint64(0); i < m; i++ {
		for offsets[v+1] <= i {
			v++
		}
		u, err := l.number("edges", maxID, i, m)
		if err != nil {
			return nil, err
		}
		if u >= n {
			return nil, l.bad(l.w.line, "edge target %d is not a vertex (n = %d)", u, n)
		}
		if pairs = append(pairs, v, u); len(pairs) == cap(pairs) {
			el.appendPairs(pairs)
			pairs = pairs[:0]
		}
	}
	el.appendPairs(pairs)
	return el, nil
}

// weight reads the weight of edge i: an integer, possibly negative.
func (l *ligraReader) weight(i, m uint64) (int64, error) {
	word, err := l.w.next()
	if err != nil {
		return 0, l.s.ioError(err)
	}
	if word == nil {
		return 0, l.bad(l.w.line, "truncated: the file ends after %d of the %d weights the header declares", i, m)
	}
	x, perr := strconv.ParseInt(string(word), 10, 64)
	if perr != nil {
		return 0, l.bad(l.w.line, "expected an integer weight, got %s", quoteToken(word))
	}
	return x, nil
}

// isLigra recognises the header word at the start of a file (after any
// whitespace).
func isLigra(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n\v\f")
	for _, h := range []string{ligraHeader, ligraWeightedHeader} {
		if bytes.HasPrefix(head, []byte(h)) && (len(head) == len(h) || isSpace(head[len(h)])) {
			return true
		}
	}
	return false
}

// writeLigra writes g as an AdjacencyGraph file of dense ids 0..n-1: the
// canonical graph, so each edge appears in both vertices' lists.
func writeLigra(w io.Writer, g *Graph) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	n := g.N()
	fmt.Fprintf(bw, "%s\n%d\n%d\n", ligraHeader, n, g.Arcs())
	var buf []byte
	for v := 0; v < n; v++ {
		buf = strconv.AppendUint(buf[:0], g.Offsets[v], 10)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	for _, u := range g.Adj {
		buf = strconv.AppendUint(buf[:0], uint64(u), 10)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
