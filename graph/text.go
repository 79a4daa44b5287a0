package graph

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"sync"
)

// textBlockSize: lines are parsed in blocks of about 256 KiB, cut at a
// newline. Big enough that per-block overhead (a channel hop, a copy of the
// pairs) is noise, small enough that a 2 MB file still spreads evenly over
// the cores and parsing starts soon after the file is opened.
const textBlockSize = 1 << 18

// textMode says how a line-based stream is read.
type textMode struct {
	header     bool   // the first non-comment line may be a header (text edge lists)
	mtx        bool   // Matrix Market entries: 1-based, checked against rows and cols
	rows, cols uint64 // the .mtx size line
	skipped    int64  // lines before the stream's first byte (the .mtx header)
}

// textBlock carries a block from the reader to a parser and, in file order,
// to the collector; blocks are recycled.
type textBlock struct {
	buf   []byte // storage reused across uses
	data  []byte // whole lines; the last one ends with '\n'
	ioErr error  // the read error that ended the stream after data
	ready chan struct{}

	// Parser results.
	pairs    []uint64
	lines    int64 // lines in data
	comments int64
	hasData  bool     // some line that is neither blank nor a comment
	first    *badLine // the first such line, when it failed to parse
	bad      *badLine // the first failure after that; parsing stopped there
}

// badLine is a line that did not parse.
type badLine struct {
	line   int64 // 1-based within the block
	msg    string
	header bool // its first two fields are not both integers
	text   string
}

// readLines parses a text stream into edge records: blocks are read by one
// goroutine, parsed by GOMAXPROCS goroutines and collected in file order, so
// errors carry exact line numbers and the first error in the file wins.
// It returns the records and the number of data lines.
func (s *source) readLines(r io.Reader, m *textMode, rep *Report) (*EdgeList, uint64, error) {
	workers := runtime.GOMAXPROCS(0)
	pool := 2*workers + 2 // keeps every parser busy while the reader and collector work
	free := make(chan *textBlock, pool)
	for i := 0; i < pool; i++ {
		free <- &textBlock{ready: make(chan struct{}, 1)}
	}
	work := make(chan *textBlock, pool)
	order := make(chan *textBlock, pool)
	stop := make(chan struct{})

	blockSize := s.blockSize
	if blockSize == 0 {
		blockSize = textBlockSize
	}
	go readBlocks(r, blockSize, s.maxLineBytes(), free, work, order, stop)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Go(func() {
			for b := range work {
				parseTextBlock(b, m)
				b.ready <- struct{}{}
			}
		})
	}
	finish := func() {
		close(stop)
		for b := range order {
			<-b.ready
		}
		wg.Wait()
	}

	el := &EdgeList{}
	base := m.skipped // lines before the current block
	dataSeen := false
	var records uint64
	for b := range order {
		<-b.ready
		if err := s.collect(b, m, rep, base, dataSeen); err != nil {
			finish()
			return nil, 0, err
		}
		el.appendPairs(b.pairs)
		records += uint64(len(b.pairs) / 2)
		if err := s.guard(el.Len()); err != nil {
			finish()
			return nil, 0, err
		}
		dataSeen = dataSeen || b.hasData
		base += b.lines
		rep.Comments += b.comments
		ioErr := b.ioErr
		b.ioErr = nil
		free <- b
		if ioErr != nil {
			finish()
			return nil, 0, s.ioError(ioErr)
		}
	}
	wg.Wait()
	return el, records, nil
}

// collect applies a parsed block's verdicts: a header, or the first error.
func (s *source) collect(b *textBlock, m *textMode, rep *Report, base int64, dataSeen bool) error {
	if f := b.first; f != nil {
		if m.header && !dataSeen && f.header {
			rep.Header = f.text
			rep.HeaderLine = base + f.line
		} else {
			return &InputError{File: s.name, Line: base + f.line, Msg: f.msg}
		}
	}
	if b.bad != nil {
		return &InputError{File: s.name, Line: base + b.bad.line, Msg: b.bad.msg}
	}
	return nil
}

// readBlocks cuts the stream into blocks of whole lines. A line longer than
// a block makes the block grow until the line ends, up to about maxLine
// bytes (source.maxLineBytes).
func readBlocks(r io.Reader, blockSize, maxLine int, free, work, order chan *textBlock, stop chan struct{}) {
	defer close(order)
	defer close(work)
	var carry []byte // the partial line after the last newline of a block
	for {
		var b *textBlock
		select {
		case b = <-free:
		case <-stop:
			return
		}
		buf := append(b.buf[:0], carry...)
		carry = carry[:0]
		want := max(blockSize, 2*len(buf))
		cut := -1
		var rerr error
		for {
			buf = slices.Grow(buf, want-len(buf))
			for len(buf) < want && rerr == nil {
				n, err := r.Read(buf[len(buf):want])
				buf = buf[:len(buf)+n]
				rerr = err
			}
			if rerr != nil {
				break
			}
			if cut = bytes.LastIndexByte(buf, '\n'); cut >= 0 {
				break
			}
			if want > maxLine/2 {
				rerr = fmt.Errorf("a line longer than %s: not an edge list?", FormatBytes(uint64(len(buf))))
				break
			}
			want *= 2
		}
		b.buf = buf
		switch {
		case rerr == io.EOF:
			if len(buf) > 0 && buf[len(buf)-1] != '\n' {
				buf = append(buf, '\n')
				b.buf = buf
			}
			b.data = buf
		case rerr != nil:
			// Parse the complete lines, then report the error: a syntax
			// error before it comes first in the file.
			b.data = buf[:bytes.LastIndexByte(buf, '\n')+1]
			b.ioErr = rerr
		default:
			b.data = buf[:cut+1]
			carry = append(carry, buf[cut+1:]...)
		}
		order <- b
		work <- b
		if rerr != nil {
			return
		}
	}
}

func isSep(c byte) bool { return c == ' ' || c == '\t' || c == ',' }

// maxFastDigits: ids of at most 18 digits cannot pass 2^63-1 (19 digits), so
// the fast path needs no overflow check; longer ones take the slow path.
const maxFastDigits = 18

// parseTextBlock parses b.data, which ends with '\n'. The fast path reads
// two decimal fields and skips the rest of the line; anything unusual goes
// to classifyLine, which accepts it or says what is wrong.
func parseTextBlock(b *textBlock, m *textMode) {
	d := b.data
	// Room for a record per 8 bytes ("12\t345\r\n") up front: growing from
	// empty would copy the pairs several times per block.
	pairs := slices.Grow(b.pairs[:0], len(d)/4)
	var line, comments int64
	b.first, b.bad, b.hasData = nil, nil, false
	i := 0
	for i < len(d) {
		line++
		start := i
		// d ends with '\n', so every scan below stops inside d.
		for isSep(d[i]) {
			i++
		}
		c := d[i]
		if c == '\n' {
			i++
			continue
		}
		if c == '\r' && d[i+1] == '\n' {
			i += 2
			continue
		}
		if c == '#' || c == '%' {
			comments++
			i += bytes.IndexByte(d[i:], '\n') + 1
			continue
		}
		j := i
		var u uint64
		for ; ; j++ {
			x := d[j] - '0'
			if x > 9 {
				break
			}
			u = u*10 + uint64(x)
		}
		ok := j > i && j-i <= maxFastDigits && isSep(d[j])
		var v uint64
		k := j
		if ok {
			for isSep(d[k]) {
				k++
			}
			f := k
			for ; ; k++ {
				x := d[k] - '0'
				if x > 9 {
					break
				}
				v = v*10 + uint64(x)
			}
			e := d[k]
			ok = k > f && k-f <= maxFastDigits && (isSep(e) || e == '\n' || e == '\r' && d[k+1] == '\n')
		}
		if ok && m.mtx && (u-1 >= m.rows || v-1 >= m.cols) {
			ok = false // u-1 wraps for 0, so this also catches index 0
		}
		if !ok {
			end := start + bytes.IndexByte(d[start:], '\n')
			var bl *badLine
			u, v, bl = classifyLine(d[start:end], m)
			if bl != nil {
				bl.line = line
				if !b.hasData {
					b.first = bl
					b.hasData = true
					i = end + 1
					continue
				}
				b.bad = bl
				break
			}
			k = end
		}
		b.hasData = true
		pairs = append(pairs, u, v)
		if d[k] == '\n' {
			i = k + 1
		} else {
			i = k + bytes.IndexByte(d[k:], '\n') + 1
		}
	}
	b.pairs = pairs
	b.lines = line
	b.comments = comments
}

// maxID is the largest vertex id the readers accept.
const maxID = 1<<63 - 1

// classifyLine handles a line the fast path refused (text without its '\n').
// It returns the record when the line is valid after all (long ids, odd
// separators), else a badLine saying why.
func classifyLine(text []byte, m *textMode) (u, v uint64, bl *badLine) {
	if len(text) > 0 && text[len(text)-1] == '\r' {
		text = text[:len(text)-1]
	}
	quoted := quoteLine(text)
	// The first two fields, and where the second ends: what follows is
	// extra columns, ignored whatever they hold.
	var fields [2][]byte
	nf, end := 0, len(text)
	for i := 0; i < len(text) && nf < 2; {
		for i < len(text) && isSep(text[i]) {
			i++
		}
		j := i
		for j < len(text) && !isSep(text[j]) {
			j++
		}
		if j > i {
			fields[nf] = text[i:j]
			nf++
			if nf == 2 {
				end = j
			}
		}
		i = j
	}
	for col, c := range text[:end] {
		if c == '\r' {
			return 0, 0, &badLine{msg: "carriage return inside a line (old Mac line endings are not supported)"}
		}
		if (c < 0x20 && c != '\t') || c == 0x7f {
			return 0, 0, &badLine{msg: fmt.Sprintf("binary data (byte 0x%02x at column %d) in a text file (wrong format?)", c, col+1)}
		}
	}
	kinds := [2]idKind{}
	vals := [2]uint64{}
	for f := 0; f < nf; f++ {
		vals[f], kinds[f] = parseID(fields[f])
	}
	notInt := kinds[0] == idNotInteger || (nf == 2 && kinds[1] == idNotInteger)
	switch {
	case notInt:
		// Only a line that cannot start a record may be a header ("source,
		// target"): one that starts like data but is malformed ("1 2x",
		// "1e0 2") is an error, never skipped.
		return 0, 0, &badLine{msg: "expected two vertex ids, got " + quoted, header: !startsLikeData(fields[0]), text: string(text)}
	case nf < 2:
		return 0, 0, &badLine{msg: "expected two vertex ids, got one field " + quoted}
	}
	what := [2]string{"vertex id", "vertex id"}
	if m.mtx {
		what = [2]string{"row index", "column index"}
	}
	for f := 0; f < 2; f++ {
		switch kinds[f] {
		case idNegative:
			return 0, 0, &badLine{msg: fmt.Sprintf("negative %s %s", what[f], quoteToken(fields[f]))}
		case idTooBig:
			return 0, 0, &badLine{msg: fmt.Sprintf("%s %s exceeds 2^63-1", what[f], cutToken(fields[f]))}
		}
	}
	if m.mtx {
		bound := [2]uint64{m.rows, m.cols}
		for f := 0; f < 2; f++ {
			if vals[f] == 0 || vals[f] > bound[f] {
				return 0, 0, &badLine{msg: fmt.Sprintf("%s %d out of range 1..%d", what[f], vals[f], bound[f])}
			}
		}
	}
	return vals[0], vals[1], nil
}

type idKind uint8

const (
	idOK idKind = iota
	idNegative
	idTooBig
	idNotInteger
)

// parseID parses a decimal vertex id (digits only; a leading '-' is
// reported as negative, a leading '+' accepted).
func parseID(f []byte) (uint64, idKind) {
	neg := false
	if len(f) > 0 && (f[0] == '-' || f[0] == '+') {
		neg = f[0] == '-'
		f = f[1:]
	}
	if len(f) == 0 {
		return 0, idNotInteger
	}
	for _, c := range f {
		if c < '0' || c > '9' {
			return 0, idNotInteger
		}
	}
	if neg {
		return 0, idNegative
	}
	x, err := strconv.ParseUint(string(f), 10, 64)
	if err != nil || x > maxID {
		return 0, idTooBig
	}
	return x, idOK
}

// startsLikeData reports whether a line whose first field is f could be
// the start of a record: f begins with a digit, a sign or a decimal point.
// Anything else (a letter, a quote, other punctuation) may be a header.
func startsLikeData(f []byte) bool {
	if len(f) == 0 {
		return false
	}
	c := f[0]
	return c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

// maxTokenQuoted: an offending token is quoted up to 40 bytes, enough to
// recognise it, so a 100,000-digit id does not flood the one-line error.
const maxTokenQuoted = 40

// cutToken returns a token for an error message as it is, or its first
// maxTokenQuoted bytes, an ellipsis and its length when it is longer. For
// tokens known to be printable (digits).
func cutToken(tok []byte) string {
	if len(tok) > maxTokenQuoted {
		return fmt.Sprintf("%s... (%d bytes)", tok[:maxTokenQuoted], len(tok))
	}
	return string(tok)
}

// quoteToken quotes a token of the input for an error message, cut as
// cutToken cuts it.
func quoteToken(tok []byte) string {
	if len(tok) > maxTokenQuoted {
		return fmt.Sprintf("%s... (%d bytes)", strconv.Quote(string(tok[:maxTokenQuoted])), len(tok))
	}
	return strconv.Quote(string(tok))
}

// quoteLine quotes a line for an error message, cut to a readable length.
func quoteLine(text []byte) string {
	const maxQuoted = 60 // a message stays on one terminal line
	if len(text) > maxQuoted {
		return strconv.Quote(string(text[:maxQuoted])) + "..."
	}
	return strconv.Quote(string(text))
}

// readText reads a text edge list.
func (s *source) readText(rep *Report) (*EdgeList, error) {
	el, _, err := s.readLines(s.r, &textMode{header: true}, rep)
	return el, err
}

// firstChunkIDs: 64K ids (512 KiB), the first chunk's starting capacity.
const firstChunkIDs = 1 << 16

// appendPairs appends records given as u0 v0 u1 v1 ... (even length) and,
// while the list was only ever appended to this way, keeps its summary for
// Build.
func (l *EdgeList) appendPairs(p []uint64) {
	if l.n == 0 && l.sum == nil {
		l.sum = &edgeSummary{}
	}
	track := l.sum != nil && l.sum.records == l.n
	for len(p) > 0 {
		if len(l.chunks) == 0 || len(l.chunks[len(l.chunks)-1]) == 2*edgeChunkPairs {
			// The first chunk starts small and grows by append (only the
			// last chunk may be short, so At is unaffected): a graph of a
			// few thousand edges need not clear a 16 MiB chunk.
			size := 2 * edgeChunkPairs
			if len(l.chunks) == 0 {
				size = min(size, max(len(p), firstChunkIDs))
			}
			l.chunks = append(l.chunks, make([]uint64, 0, size))
		}
		c := &l.chunks[len(l.chunks)-1]
		// Up to the end of the chunk and of the summary's segment.
		k := min(len(p), 2*edgeChunkPairs-len(*c), int(2*(segRecords-l.n%segRecords)))
		if len(*c)+k > cap(*c) {
			*c = slices.Grow(*c, min(2*edgeChunkPairs, 2*cap(*c))-len(*c))
		}
		*c = append(*c, p[:k]...)
		if track {
			l.sum.summarize(p[:k], l.n)
		}
		l.n += uint64(k / 2)
		p = p[k:]
	}
}
