package graph

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// mappedAccepted counts the inputs FuzzCSR read mapped and accepted: an
// accepted mapped file stays mapped for the life of the process
// (cache_map_linux.go), and a fuzzing process reads hundreds of thousands
// of inputs, so mapped reads stop after csrFuzzMapped of them.
var mappedAccepted int

const csrFuzzMapped = 2000

// fuzzFiles names FuzzCSR's files (the inputs of a process run one at a time).
var fuzzFiles int

// FuzzCSR: a CSR file, packed (3 bytes an entry) or not, is read the same
// way as a stream, mapped, and mapped with its list checks deferred (the
// section filled in two pieces with its checksum only, the lists then
// checked by Finish): each accepts it with the same graph or refuses it
// with the same *InputError (corrupt or stale); nothing panics. With fix,
// the input's checksum is recomputed first, so the mutations reach the
// structural checks behind it.
func FuzzCSR(f *testing.F) {
	dir := f.TempDir()
	graphs := []*Graph{
		{CSR: CSR{Offsets: []uint64{0, 2, 3, 3}, Adj: []uint32{1, 2, 2}}},
		{CSR: CSR{Offsets: []uint64{0, 3, 4, 5, 5}, Adj: []uint32{1, 2, 3, 3, 3}}, OrigIDs: []uint64{4, 9, 10, 70}},
		{CSR: CSR{Offsets: []uint64{0}, Adj: []uint32{}}},
	}
	for i, g := range graphs {
		// By degree without relabelling: the arcs' order needs the
		// degrees (orientcheck.go); the first graph follows it.
		for _, by := range []Orientation{ByID, ByDegree} {
			for _, packed := range []bool{false, true} {
				p := filepath.Join(dir, "seed.tcsr")
				meta := CacheMeta{Orientation: by, Packed: packed, Report: Report{Header: "src dst", HeaderLine: 1}}
				if err := WriteCSR(p, g, meta); err != nil {
					f.Fatal(err)
				}
				data, _ := os.ReadFile(p)
				f.Add(data, i%2 == 0)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if fix && len(data) >= csrHeaderSize {
			data = slices.Clone(data)
			clear(data[csrCRCOffset : csrCRCOffset+4])
			binary.LittleEndian.PutUint32(data[csrCRCOffset:], crc32.Checksum(data, castagnoli))
		}
		if len(data) > 1<<16 {
			return // large inputs add nothing the small ones miss, and slow every read
		}
		// A new name each time: an accepted mapped file stays mapped, and
		// rewriting it in place would cut the pages under that mapping.
		fuzzFiles++
		p := filepath.Join(dir, fmt.Sprintf("f%d.tcsr", fuzzFiles))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(p)
		g, _, err := ReadCSR(p)
		checkCSRError(t, "stream", err)
		if mappedAccepted >= csrFuzzMapped {
			return
		}
		gm, _, errm := Open(p, ReadOptions{Map: true, Format: "csr"})
		checkCSRError(t, "mapped", errm)
		gd, _, errd := Open(p, ReadOptions{Map: true, Format: "csr", DeferAdjCheck: true})
		if errd == nil {
			if ck := gd.AdjCheck(); ck != nil {
				size := ck.SectionBytes()
				half := size / 2
				if !ck.Packed() {
					half &^= 3
				}
				_ = ck.FillChecksum(make([]byte, half), 0)
				_ = ck.FillChecksum(make([]byte, size-half), half)
				ck.ListsChecked(false)
				errd = ck.Finish()
			}
		}
		checkCSRError(t, "deferred", errd)
		// The same verdict, and the same graph; mapped with or without
		// deferred checks, the same message too (a file too short to map
		// is read as a stream by Open, whose first check may differ).
		for _, c := range []struct {
			name string
			g    *Graph
			err  error
		}{{"mapped", gm, errm}, {"deferred", gd, errd}} {
			switch {
			case (err == nil) != (c.err == nil), err != nil && errors.Is(err, ErrStale) != errors.Is(c.err, ErrStale):
				t.Fatalf("stream: %v; %s: %v", err, c.name, c.err)
			case err == nil && !equalGraphs(g, c.g):
				t.Fatalf("%s read another graph than the stream", c.name)
			}
		}
		if errm != nil && errm.Error() != errd.Error() {
			t.Fatalf("mapped: %v; deferred: %v", errm, errd)
		}
		if err == nil {
			mappedAccepted++
		}
	})
}

// checkCSRError fails unless err is nil or an *InputError marking the file
// corrupt or stale.
func checkCSRError(t *testing.T, how string, err error) {
	t.Helper()
	var ie *InputError
	if err != nil && (!errors.As(err, &ie) || !(errors.Is(err, ErrCorrupt) || errors.Is(err, ErrStale))) {
		t.Fatalf("%s: %v is not a corrupt or stale file's *InputError", how, err)
	}
}
