package graph

import (
	"cmp"
	"fmt"
	"hash/crc32"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"
)

// AdjCheck holds the checks of a CSR file's adjacency section: every
// neighbour a vertex, every list strictly increasing without self loops,
// every edge stored both ways in an undirected file (symcheck.go), every
// arc forward in an oriented file's order (orientcheck.go), and,
// for a mapped file, the section's share of the file's checksum (a
// file read as a stream has its checksum checked as it is read). The section is most of the file,
// and checking it on the mapping touches every page once before the upload
// touches them again (docs/performance.md, "Reading and uploading"). With
// ReadOptions.DeferAdjCheck the checks wait:
// Fill reads pieces of the section from the file into memory the caller
// chose (pinned staging buffers on their way to the GPU) and checks each
// piece while it is in the cache; Finish joins the pieces and checks what
// no Fill covered from the mapping. A Fill after Finish copies the checked
// lists (or returns Finish's error), so a graph can be uploaded again.
// Nothing may read the graph's Adj before Finish returns nil, except
// through Fill.
//
// A packed section (3 bytes an entry, packed.go) is filled and checksummed
// as the bytes it stores: Fill and FillChecksum copy those, for a reader
// that unpacks them (the GPU upload), and leave the lists to the caller's
// verdict (ListsChecked) or to Verify, which then unpacks and checks them
// on the host. Finish also unpacks the entries into the graph's Adj.
type AdjCheck struct {
	name   string
	f      *os.File // Fill's reads; closed by Finish
	at     int64    // file offset of the section
	off    []uint64 // the graph's offsets, already checked
	adj    []uint32 // the section, mapped (packed: where Finish unpacks it)
	raw    []byte   // packed: the section as stored, mapped
	packed bool
	lazy   bool // adj is an anonymous mapping of its own (lazyWords)
	n      uint64
	// undirected: the file holds the canonical graph, so its lists must
	// be symmetric; the caller's verdict on the lists (ListsChecked) does
	// not cover that, so the host checks them all.
	undirected bool
	// by, relabelled and order: an oriented file's orientation and the
	// order its arcs must follow (orientcheck.go).
	by         Orientation
	relabelled bool
	order      ArcOrder
	before     uint32 // CRC-32C of the file before the section (checksum field zeroed)
	after      uint32 // of the bytes after it
	afterLen   int64
	want       uint32 // the stored checksum
	crcDone    bool   // the file's checksum was checked as it was read (not mapped)

	// listsOK: the caller checked the lists FillChecksum copied and found
	// them sound (ListsChecked); without it Finish checks them itself.
	listsOK atomic.Bool

	mu       sync.Mutex
	pieces   []adjPiece
	once     sync.Once
	done     atomic.Bool // Verify has run; err is its verdict
	err      error
	unpacked bool      // packed: adj holds the entries (Verify's checks, or Finish)
	unpack   sync.Once // Finish's, after a good verdict
}

// adjPiece is what Fill or Finish learnt about words [lo, hi) of the
// section (of a packed section: bytes).
type adjPiece struct {
	lo, hi      uint64
	crc         uint32
	first, last uint32 // its first and last words, for the order across pieces
	bad         uint64 // the first bad position in it, or noBad
	msg         string // what is wrong there
	sumOnly     bool   // FillChecksum's: the lists were not checked
	sym         uint64 // undirected: the entries' signed pair hashes (symcheck.go)
}

const noBad = ^uint64(0)

// adjPieceBytes is what Fill reads and checks at a time: small enough that
// the checksum and the list checks find the bytes in the core's L2 cache
// after the read put them there.
const adjPieceBytes = 256 << 10

// AdjCheck returns the checks still pending on c's adjacency (nil when none:
// every graph except one read with ReadOptions.DeferAdjCheck, and copies of
// its CSR such as FileOriented's).
func (c *CSR) AdjCheck() *AdjCheck { return c.check }

// Packed reports whether the section is stored in 3 bytes an entry: Fill
// and FillChecksum then copy those bytes, SectionBytes of them.
func (a *AdjCheck) Packed() bool { return a.packed }

// SectionBytes is the size of the section as stored, what Fill copies.
func (a *AdjCheck) SectionBytes() uint64 {
	if a.packed {
		return uint64(len(a.raw))
	}
	return 4 * uint64(len(a.adj))
}

// section returns the stored bytes: the mapping.
func (a *AdjCheck) section() []byte {
	if a.packed {
		return a.raw
	}
	if len(a.adj) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&a.adj[0])), 4*len(a.adj))
}

// Fill reads bytes [pos, pos+len(dst)) of the adjacency section from the
// file, checks them and copies them into dst. pos and len(dst) are
// multiples of 4 (of a packed section, any bytes: its lists are checked as
// FillChecksum leaves them); calls may run at once from several goroutines
// for disjoint ranges. A piece that
// fails its checks gives the same *InputError Finish would; the caller
// should then call Finish, which names the first bad entry of the section.
func (a *AdjCheck) Fill(dst []byte, pos uint64) error { return a.fill(dst, pos, false) }

// FillChecksum is Fill without the list checks: the caller checks the lists
// where it sends them (runtime checks them on the GPU, which reads them
// anyway, instead of the host cores that feed the upload) and reports its
// verdict with ListsChecked before Finish. Finish still joins the checksum
// and the order across pieces, and checks on the host every list whose
// verdict was not given or was bad, so its error names the first bad entry.
func (a *AdjCheck) FillChecksum(dst []byte, pos uint64) error { return a.fill(dst, pos, true) }

// ListsChecked gives the caller's verdict on the lists FillChecksum copied:
// ok says every list is increasing, below n and without a self loop, and
// every arc follows ArcOrder. It must come before Finish; ok false, or no
// call, makes Finish check them, and so does an undirected file, whose
// lists must also be symmetric.
func (a *AdjCheck) ListsChecked(ok bool) { a.listsOK.Store(ok) }

func (a *AdjCheck) fill(dst []byte, pos uint64, sumOnly bool) error {
	size := a.SectionBytes()
	if (!a.packed && (pos%4 != 0 || len(dst)%4 != 0)) || pos+uint64(len(dst)) > size {
		return fmt.Errorf("graph: %s: fill of %d bytes at %d outside the %d-byte adjacency section", a.name, len(dst), pos, size)
	}
	if a.done.Load() { // checked (the file is closed): its verdict, or the mapped lists
		if a.err != nil {
			return a.err
		}
		copy(dst, a.section()[pos:])
		return nil
	}
	sumOnly = sumOnly || a.packed
	var bp *[]byte
	if !sumOnly {
		bp = piecePool.Get().(*[]byte)
		defer piecePool.Put(bp)
	}
	for s := 0; s < len(dst); s += adjPieceBytes {
		// Fill checks a piece in a pooled buffer and then copies it;
		// FillChecksum reads it in place, its checksum finding it in the
		// cache.
		b := dst[s:min(s+adjPieceBytes, len(dst))]
		if !sumOnly {
			b = (*bp)[:len(b)]
		}
		if _, err := a.f.ReadAt(b, a.at+int64(pos)+int64(s)); err != nil {
			return &InputError{File: a.name, Msg: errMsg(err), Err: err}
		}
		crc := crc32.Checksum(b, castagnoli)
		var p adjPiece
		switch {
		case a.packed: // bytes
			p = adjPiece{lo: pos + uint64(s), hi: pos + uint64(s+len(b)), crc: crc, bad: noBad, sumOnly: true}
		case sumOnly:
			lo, ws := (pos+uint64(s))/4, unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4)
			p = adjPiece{lo: lo, hi: lo + uint64(len(ws)), crc: crc, first: ws[0], last: ws[len(ws)-1], bad: noBad, sumOnly: true}
		default:
			p = a.checkWords((pos+uint64(s))/4, unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), len(b)/4), crc)
		}
		a.mu.Lock()
		a.pieces = append(a.pieces, p)
		a.mu.Unlock()
		if p.bad != noBad {
			return a.corrupt(p.msg)
		}
		if !sumOnly {
			copy(dst[s:], b)
		}
	}
	return nil
}

// piecePool holds Fill's buffers: a piece is read and checked in ordinary
// memory, in the core's cache, and only then copied to dst: checking it in
// dst itself, pinned memory, was several times slower than a plain copy into
// it. FillChecksum's checksum alone runs as fast in dst as through a pooled
// buffer (TestGPUUploadPaths compares the paths).
var piecePool = sync.Pool{New: func() any { b := make([]byte, adjPieceBytes); return &b }}

// Finish completes the checks (Verify) and makes the graph's Adj readable:
// a packed section is unpacked into it, on all cores.
func (a *AdjCheck) Finish() error {
	if err := a.Verify(); err != nil {
		return err
	}
	a.unpack.Do(func() {
		if a.packed && !a.unpacked {
			unpack24Par(a.adj, a.raw)
		}
	})
	return nil
}

// Verify completes the checks (once; later calls return the same result):
// the pieces no Fill covered are checked from the mapping on all cores, the
// order across piece boundaries is checked, and the checksum is joined
// from the pieces'. The error names the first bad entry of the section.
// A reader that has the lists elsewhere (the GPU upload) needs only this;
// anything reading the graph's Adj calls Finish.
func (a *AdjCheck) Verify() error {
	a.once.Do(func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.packed {
			a.err = a.finishPacked()
		} else {
			a.err = a.finish()
		}
		if a.f != nil {
			a.f.Close()
		}
		a.done.Store(true)
	})
	return a.err
}

// finishPacked joins a packed section's checksum from the pieces FillChecksum
// read and the mapping, and, without a good verdict on the lists, unpacks
// them and checks them as an unpacked section's.
func (a *AdjCheck) finishPacked() error {
	if !a.crcDone {
		if crc := crcCombine(a.packedChecksum(), a.after, a.afterLen); crc != a.want {
			return a.corrupt(fmt.Sprintf("checksum mismatch (stored %08x, computed %08x)", a.want, crc))
		}
	}
	if a.listsOK.Load() && !a.undirected {
		return nil
	}
	unpack24Par(a.adj, a.raw)
	a.unpacked = true
	a.pieces, a.crcDone = nil, true // the lists, all from the unpacked words
	return a.finish()
}

// packedChecksum is the CRC-32C of the file up to the end of a packed
// section: the pieces' checksums, the gaps between them computed from the
// mapping.
func (a *AdjCheck) packedChecksum() uint32 {
	pieces, spans := uncovered(a.pieces, uint64(len(a.raw)), 1<<20) // 1 MiB per piece from the mapping
	found := make([]adjPiece, len(spans))
	parReduce(len(spans), 1, func() struct{} { return struct{}{} }, func(_ *struct{}, lo, hi int) {
		for i := lo; i < hi; i++ {
			s := spans[i]
			found[i] = adjPiece{lo: s[0], hi: s[1], crc: crc32.Checksum(a.raw[s[0]:s[1]], castagnoli)}
		}
	})
	a.pieces = append(pieces, found...)
	slices.SortFunc(a.pieces, byLo)
	return joinCRC(a.before, a.pieces, 1)
}

func byLo(x, y adjPiece) int { return cmp.Compare(x.lo, y.lo) }

// uncovered sorts ps by position and returns them with the ranges of
// [0, size) no piece covers, cut into spans of at most step positions.
// Pieces that overlap (a range filled twice) are all dropped: the whole
// section is then uncovered.
func uncovered(ps []adjPiece, size, step uint64) ([]adjPiece, [][2]uint64) {
	slices.SortFunc(ps, byLo)
	var spans [][2]uint64
	gap := func(lo, hi uint64) {
		for ; lo < hi; lo += step {
			spans = append(spans, [2]uint64{lo, min(lo+step, hi)})
		}
	}
	at := uint64(0)
	for _, p := range ps {
		if p.lo < at {
			ps, spans, at = nil, nil, 0
			break
		}
		gap(at, p.lo)
		at = p.hi
	}
	gap(at, size)
	return ps, spans
}

// joinCRC extends crc by the checksums of the pieces in order, each
// position unit bytes long; the pieces have few lengths, so each length's
// shift map is made once (crc.go).
func joinCRC(crc uint32, ps []adjPiece, unit uint64) uint32 {
	shifts := map[int64]*crcShift{}
	for _, p := range ps {
		ln := int64(unit * (p.hi - p.lo))
		if shifts[ln] == nil {
			shifts[ln] = newCRCShift(ln)
		}
		crc = shifts[ln].combine(crc, p.crc)
	}
	return crc
}

func (a *AdjCheck) finish() error {
	if !a.listsOK.Load() || a.undirected {
		// Lists FillChecksum copied without a good verdict: checked here,
		// from the mapping, each piece keeping its checksum.
		var todo []int
		for i, p := range a.pieces {
			if p.sumOnly {
				todo = append(todo, i)
			}
		}
		parReduce(len(todo), 1, func() struct{} { return struct{}{} }, func(_ *struct{}, lo, hi int) {
			for _, i := range todo[lo:hi] {
				p := &a.pieces[i]
				*p = a.checkWords(p.lo, a.adj[p.lo:p.hi], p.crc)
			}
		})
	}
	var todo [][2]uint64
	a.pieces, todo = uncovered(a.pieces, uint64(len(a.adj)), 1<<18) // 1 MiB per piece from the mapping
	found := make([]adjPiece, len(todo))
	parReduce(len(todo), 1, func() struct{} { return struct{}{} }, func(_ *struct{}, lo, hi int) {
		for i := lo; i < hi; i++ {
			w := a.adj[todo[i][0]:todo[i][1]]
			var crc uint32
			if !a.crcDone {
				crc = crc32.Checksum(unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 4*len(w)), castagnoli)
			}
			found[i] = a.checkWords(todo[i][0], w, crc)
		}
	})
	a.pieces = append(a.pieces, found...)
	slices.SortFunc(a.pieces, byLo)

	bad, msg := noBad, ""
	var sym uint64
	for i, p := range a.pieces {
		sym += p.sym
		if p.bad < bad {
			bad, msg = p.bad, p.msg
		}
		if i > 0 && p.lo < bad {
			// The boundary p.lo continues a list unless a list starts there.
			v := a.owner(p.lo)
			if prev := a.pieces[i-1].last; a.off[v] < p.lo && prev >= p.first {
				bad, msg = p.lo, entryMsg(a.off, p.lo, v, "neighbour %d does not follow %d (lists must be strictly increasing)", p.first, prev)
			}
		}
	}
	// The checksum first, as a read that is not mapped finds it first.
	if !a.crcDone {
		if crc := crcCombine(joinCRC(a.before, a.pieces, 4), a.after, a.afterLen); crc != a.want {
			return a.corrupt(fmt.Sprintf("checksum mismatch (stored %08x, computed %08x)", a.want, crc))
		}
	}
	if bad != noBad {
		return a.corrupt(msg)
	}
	if a.undirected && sym != 0 {
		return a.corrupt(a.asymmetricMsg())
	}
	if a.order == ArcsByDegree && !a.listsOK.Load() {
		if msg := a.byDegreeMsg(); msg != "" {
			return a.corrupt(msg)
		}
	}
	return nil
}

func (a *AdjCheck) corrupt(msg string) error {
	return &InputError{File: a.name, Msg: "corrupt tcgen CSR file: " + msg, Err: ErrCorrupt}
}

// owner returns the vertex whose list holds position p (p < arcs).
func (a *AdjCheck) owner(p uint64) uint32 {
	return uint32(sort.Search(len(a.off)-1, func(v int) bool { return a.off[v+1] > p }))
}

// checkWords checks words [lo, lo+len(ws)) of the section, ws holding them:
// every entry a vertex, no self loop, each list increasing within ws (the
// order across the piece's start is Finish's), of an ArcsUp file above its
// vertex; of an undirected file it also sums the entries' pair hashes, for
// Finish's symmetry check.
func (a *AdjCheck) checkWords(lo uint64, ws []uint32, crc uint32) adjPiece {
	hi := lo + uint64(len(ws))
	p := adjPiece{lo: lo, hi: hi, crc: crc, bad: noBad}
	if len(ws) == 0 {
		return p
	}
	p.first, p.last = ws[0], ws[len(ws)-1]
	for v, at := a.owner(lo), lo; at < hi; v++ {
		end := min(a.off[v+1], hi)
		seg := ws[at-lo : end-lo]
		at = end
		ok := false
		if a.undirected {
			var sym uint64
			ok, sym = sortedSym(seg, v, a.n)
			p.sym += sym
		} else {
			// Sorted, so an ArcsUp list is above v if its first entry is.
			ok = sortedFrom(seg, v, a.n) && (a.order != ArcsUp || len(seg) == 0 || seg[0] > v)
		}
		if ok {
			continue
		}
		at -= uint64(len(seg))
		for i, w := range seg { // find the first bad entry
			pos := at + uint64(i)
			switch {
			case uint64(w) >= a.n:
				p.msg = entryMsg(a.off, pos, v, "neighbour %d is not a vertex (n = %d)", w, a.n)
			case w == v:
				p.msg = entryMsg(a.off, pos, v, "neighbour %d is the vertex itself (a self loop)", w)
			case a.order == ArcsUp && w < v:
				p.msg = a.belowMsg(pos, v, w)
			case i > 0 && seg[i-1] >= w:
				p.msg = entryMsg(a.off, pos, v, "neighbour %d does not follow %d (lists must be strictly increasing)", w, seg[i-1])
			default:
				continue
			}
			p.bad = pos
			return p
		}
		at = end
	}
	return p
}

// sortedFrom reports whether seg is strictly increasing, below n and
// without v: one compare per entry in the common case, the entries' bounds
// and v's absence then follow from the order.
func sortedFrom(seg []uint32, v uint32, n uint64) bool {
	if len(seg) == 0 {
		return true
	}
	for i := 1; i < len(seg); i++ {
		if seg[i] <= seg[i-1] {
			return false
		}
	}
	if uint64(seg[len(seg)-1]) >= n {
		return false
	}
	if seg[0] > v || seg[len(seg)-1] < v { // an oriented list lies past v
		return true
	}
	_, found := slices.BinarySearch(seg, v)
	return !found
}
