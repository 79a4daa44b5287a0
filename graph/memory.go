package graph

import (
	"fmt"
	"math"
)

// MemoryLimit bounds the bytes an operation may allocate at its peak.
// From says what set the bound, for messages ("MemAvailable in
// /proc/meminfo", "--memory-limit"). Zero Bytes means no bound.
type MemoryLimit struct {
	Bytes uint64
	From  string
}

// Check returns a *TooLargeError when need, with headroom, exceeds the
// limit.
func (m MemoryLimit) Check(what string, need uint64) error {
	need = withHeadroom(need)
	if m.Bytes == 0 || need <= m.Bytes {
		return nil
	}
	return &TooLargeError{What: what, Need: need, Limit: m}
}

// TooLargeError is the refusal of an input or a generator that would need
// more memory than the limit, before the memory is allocated.
type TooLargeError struct {
	What string // the file, or the generator and its size
	Need uint64 // estimated peak bytes
	// Records, when not zero: the input was refused while it was read,
	// after this many records (its size was not known before).
	Records uint64
	Limit   MemoryLimit
}

func (e *TooLargeError) Error() string {
	from := ""
	if e.Limit.From != "" {
		from = " (" + e.Limit.From + ")"
	}
	if e.Records > 0 {
		return fmt.Sprintf("%s: %d edge records read so far already need about %s of memory, more than the limit of %s%s",
			e.What, e.Records, FormatBytes(e.Need), FormatBytes(e.Limit.Bytes), from)
	}
	return fmt.Sprintf("%s: needs about %s of memory, more than the limit of %s%s",
		e.What, FormatBytes(e.Need), FormatBytes(e.Limit.Bytes), from)
}

// FormatBytes writes b in binary units with three significant digits:
// "512 B", "1.50 KiB", "24.0 GiB", "7.11 EiB".
func FormatBytes(b uint64) string {
	const units = "KMGTPE"
	if b < 1024 {
		return fmt.Sprintf("%d B", b)
	}
	x, u := float64(b)/1024, 0
	for x >= 1024 && u < len(units)-1 {
		x /= 1024
		u++
	}
	// Round first, so 1023.9 KiB prints as 1.00 MiB rather than 1024 KiB.
	if x >= 999.5 && u < len(units)-1 {
		x /= 1024
		u++
	}
	prec := 2
	switch {
	case x >= 99.95:
		prec = 0
	case x >= 9.995:
		prec = 1
	}
	return fmt.Sprintf("%.*f %ciB", prec, x, units[u])
}

// withHeadroom adds to a peak of live data what the process holds beside
// it: an eighth for the collector's slack and 32 MiB for the runtime and
// buffers (measured: peak RSS up to 20% over estimates of live data alone,
// 25 MiB for a tiny graph; 91-98% of the generators' estimates, which
// count Build's uncollected list, for RMAT 20, Chung-Lu and road graphs of
// 8-16M records).
func withHeadroom(b uint64) uint64 { return satAdd(satAdd(b, b/8), 32<<20) }

// Memory model. The figures follow the allocations of Build and the
// generators (gen_size.go, gen_*.go); they are peaks of live data, which
// the garbage collector holds to under debug.SetMemoryLimit, and of a
// consumed list it may not have collected yet (buildBytes).
const (
	// buildBytesPerRecord: Build's peak per raw record: the 16 bytes of the
	// EdgeList while the 8-byte packed keys are written, then the keys and
	// their radix scratch with the CSR's 8 bytes per edge (see Build).
	buildBytesPerRecord = 24
	// buildBytesPerVertex: the CSR's offsets and original ids.
	buildBytesPerVertex = 16
	// indexBitsPerID: the bitmap compaction's bitmap and ranks, 1.5 bits
	// per possible id (bitmapIDsPerRecord).
	indexBitsPerID = 3 / 2.0
	// readBytesPerRecord: reading a file whose vertex count is unknown,
	// per record: Build's 24 and the CSR's 16 per vertex at a mean degree
	// of 8 (4 records per vertex), the middle of the shared datasets'
	// range. The id bitmaps are left out: up to 3 bytes a record for ids
	// spread 16 times wider than the records, but a few bits where ids
	// are dense, as in most files (measured: RMAT 21 as text, 31.7M
	// records, peaks at 813 MB, 26 bytes a record).
	readBytesPerRecord = buildBytesPerRecord + buildBytesPerVertex/4
)

// buildBytes estimates Build's peak for records raw records over vertex
// labels 0..labels-1 (the generators' and an .mtx file's case: the id
// range is known); at most 2*records labels become vertices. Below
// freeOSThreshold Build leaves the consumed list to the collector, which
// may not have run when the sort buffer is allocated: it is counted too
// (measured against the sampled peak heap, TestEstimateBytes).
func buildBytes(records, labels uint64) uint64 {
	vertices := min(labels, satMul(2, records))
	// The bitmap index where ids are dense enough (newVertexIndex), else
	// the sorted one: each segment's ids (16 bytes a record, held until
	// the merge) and a segment's sort scratch beside the records.
	idx := satMul(records, 24)
	if labels < bitmapMinBits || labels/bitmapIDsPerRecord < records {
		idx = uint64(math.Min(math.Ceil(float64(labels)*indexBitsPerID/8), math.MaxUint64))
	}
	b := satAdd(satAdd(satMul(records, buildBytesPerRecord), satMul(vertices, buildBytesPerVertex)), idx)
	return satAdd(b, min(satMul(records, recordBytes), freeOSThreshold))
}

// ReadBytes estimates the peak of reading and building a file of records
// raw records whose vertex count is unknown.
func ReadBytes(records uint64) uint64 { return satMul(records, readBytesPerRecord) }

// OracleBytes estimates what Oracle (and CountTriangles on a graph it
// orients) allocates for a symmetric CSR of n vertices and arcs entries on
// workers goroutines: the oriented copy (4 bytes per kept arc, half of
// them; offsets and rank, 12 per vertex), the in-lists (8 per kept arc,
// offsets and cursors 16 per vertex) and a bitmap per worker. perVertex
// adds the per-vertex counts (CountPerVertex: a uint32 per vertex and
// worker, two uint64 arrays).
func OracleBytes(n, arcs uint64, workers int, perVertex bool) uint64 {
	kept := arcs / 2
	b := satAdd(satMul(kept, 4+8), satMul(n, 12+16))
	scratch := satMul(uint64(workers), (n+63)/64*8)
	if perVertex {
		scratch = satAdd(satMul(uint64(workers), satMul(n, 4)), satMul(n, 16))
	}
	return satAdd(b, scratch)
}
