package graph

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func sampleGraph(t *testing.T) (*Graph, *Report) {
	t.Helper()
	g, rep := mustOpen(t, td("header.csv"), ReadOptions{})
	return g, rep
}

// forPacked runs a test on files with 4-byte entries and on packed ones.
func forPacked(t *testing.T, test func(t *testing.T, packed bool)) {
	for _, packed := range []bool{false, true} {
		t.Run(map[bool]string{false: "words", true: "packed"}[packed], func(t *testing.T) { test(t, packed) })
	}
}

func TestCSRRoundTrip(t *testing.T) { forPacked(t, testCSRRoundTrip) }

func testCSRRoundTrip(t *testing.T, packed bool) {
	dir := t.TempDir()
	g, rep := sampleGraph(t)
	meta := CacheMeta{SourceHash: [32]byte{1, 2, 3}, SourceSize: 57, SourceFormat: "text", Report: *rep, Packed: packed}
	p := filepath.Join(dir, "g.tcsr")
	if err := WriteCSR(p, g, meta); err != nil {
		t.Fatal(err)
	}
	got, m, err := ReadCSR(p)
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, got, g)
	if m.SourceHash != meta.SourceHash || m.SourceSize != 57 || m.SourceFormat != "text" || m.ToolVersion != ToolVersion ||
		m.Version != csrVersion || m.Packed != packed || m.Report.Header != rep.Header || m.Report.HeaderLine != rep.HeaderLine || m.Report.InputEdges != rep.InputEdges {
		t.Fatalf("meta %+v", m)
	}
	if st, err := os.Stat(p); err != nil || st.Size()%8 != 0 || st.Mode().Perm() != 0o644 {
		t.Fatalf("stat %v %v", st, err)
	}
	// Open reads it by extension and by content, also gzip-compressed.
	data, _ := os.ReadFile(p)
	for _, q := range []string{p, writeFile(t, dir, "noext", data), writeFile(t, dir, "g.tcsr.gz", gzipBytes(t, data))} {
		g2, rep2 := mustOpen(t, q, ReadOptions{})
		sameGraph(t, g2, g)
		g3, _ := mustOpen(t, q, ReadOptions{Map: true})
		sameGraph(t, g3, g)
		if rep2.Format != "csr" || rep2.Header != rep.Header {
			t.Fatalf("%s: report %+v", q, rep2)
		}
	}
	// Without OrigIDs, with an odd number of arcs (padding), and empty.
	odd := &Graph{CSR: CSR{Offsets: []uint64{0, 1, 1}, Adj: []uint32{1}}}
	empty := &Graph{CSR: CSR{Offsets: []uint64{0}, Adj: []uint32{}}}
	five := &Graph{CSR: CSR{Offsets: []uint64{0, 5, 5, 5, 5, 5, 5}, Adj: []uint32{1, 2, 3, 4, 5}}} // 15 packed bytes
	for _, h := range []*Graph{odd, empty, five} {
		if err := WriteCSR(p, h, CacheMeta{Orientation: ByID, Packed: packed}); err != nil {
			t.Fatal(err)
		}
		for _, mapped := range []bool{false, true} {
			got, rep, err := Open(p, ReadOptions{Map: mapped})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Offsets, h.Offsets) || !slices.Equal(got.Adj, h.Adj) || got.OrigIDs != nil || rep.Orientation != ByID {
				t.Fatalf("mapped %v: got %+v report %+v", mapped, got, rep)
			}
		}
	}
}

// TestCSRPackedLimit: ids of 24 bits hold at most MaxPackedVertices
// vertices; WriteCSR refuses more, and a reader refuses a header that
// claims them.
func TestCSRPackedLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.tcsr")
	big := &Graph{CSR: CSR{Offsets: make([]uint64, MaxPackedVertices+2)}}
	if err := WriteCSR(p, big, CacheMeta{Packed: true}); err == nil {
		t.Fatal("a packed file of 2^24+1 vertices was written")
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("something was left at %s: %v", p, err)
	}
	small := &Graph{CSR: CSR{Offsets: []uint64{0, 1, 1}, Adj: []uint32{1}}}
	if err := WriteCSR(p, small, CacheMeta{Packed: true}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	binary.LittleEndian.PutUint64(data[16:], MaxPackedVertices+1)
	os.WriteFile(p, data, 0o644)
	if _, _, err := ReadCSR(p); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "24-bit") {
		t.Fatalf("a packed header of 2^24+1 vertices: %v", err)
	}
}

// TestCSRCorrupt flips every byte and cuts the file at every length: each
// must be refused (corrupt, or stale for the version field), never read.
func TestCSRCorrupt(t *testing.T) { forPacked(t, testCSRCorrupt) }

func testCSRCorrupt(t *testing.T, packed bool) {
	dir := t.TempDir()
	g, rep := sampleGraph(t)
	p := filepath.Join(dir, "g.tcsr")
	if err := WriteCSR(p, g, CacheMeta{Report: *rep, Packed: packed}); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(p)
	q := filepath.Join(dir, "bad.tcsr")
	for i := range good {
		bad := slices.Clone(good)
		bad[i] ^= 0x10
		os.WriteFile(q, bad, 0o644)
		want := ErrCorrupt
		if i >= 8 && i < 12 {
			want = ErrStale
		}
		for _, mapped := range []bool{false, true} { // read, or mapped (cache_map.go)
			_, _, err := Open(q, ReadOptions{Map: mapped})
			var ie *InputError
			if !errors.Is(err, want) || !errors.As(err, &ie) || ie.File != q {
				t.Fatalf("byte %d flipped (mapped %v): %v, want %v", i, mapped, err, want)
			}
		}
	}
	for n := 0; n < len(good); n++ {
		os.WriteFile(q, good[:n], 0o644)
		if _, _, err := ReadCSR(q); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut at %d: %v", n, err)
		}
		if _, _, err := Open(q, ReadOptions{Map: true, Format: "csr"}); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut at %d, mapped: %v", n, err)
		}
	}
	// The same through a stream (gzip), where the size is not known first.
	for _, n := range []int{0, 100, 256, 300, len(good) - 1} {
		os.WriteFile(q, gzipBytes(t, good[:n]), 0o644)
		if _, _, err := Open(q, ReadOptions{Format: "csr"}); err == nil {
			t.Fatalf("gzip cut at %d read", n)
		}
	}
	os.WriteFile(q, gzipBytes(t, append(slices.Clone(good), 0)), 0o644)
	if _, _, err := Open(q, ReadOptions{Format: "csr"}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("trailing data: %v", err)
	}
	if _, _, err := ReadCSR(filepath.Join(dir, "missing.tcsr")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// TestCSRStructure: files with a valid checksum but an impossible graph.
func TestCSRStructure(t *testing.T) { forPacked(t, testCSRStructure) }

func testCSRStructure(t *testing.T, packed bool) {
	p := filepath.Join(t.TempDir(), "s.tcsr")
	cases := map[string]*Graph{
		"offsets decrease":     {CSR: CSR{Offsets: []uint64{0, 2, 1, 2}, Adj: []uint32{1, 2}}},
		"neighbour past n":     {CSR: CSR{Offsets: []uint64{0, 1, 2}, Adj: []uint32{1, 2}}},
		"offsets end short":    {CSR: CSR{Offsets: []uint64{0, 1, 1}, Adj: []uint32{1, 0}}},
		"unsorted list":        {CSR: CSR{Offsets: []uint64{0, 2, 3, 4}, Adj: []uint32{2, 1, 0, 0}}},
		"self loop":            {CSR: CSR{Offsets: []uint64{0, 1, 1}, Adj: []uint32{0}}},
		"orig ids not sorted":  {CSR: CSR{Offsets: []uint64{0, 1, 2}, Adj: []uint32{1, 0}}, OrigIDs: []uint64{5, 5}},
		"offsets start past 0": {CSR: CSR{Offsets: []uint64{1, 1, 2}, Adj: []uint32{1, 0}}},
	}
	for name, g := range cases {
		if err := WriteCSR(p, g, CacheMeta{Packed: packed}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := ReadCSR(p); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
		if _, _, err := Open(p, ReadOptions{Map: true}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s, mapped: %v", name, err)
		}
	}
}

func TestCSRStaleVersion(t *testing.T) {
	p := filepath.Join(t.TempDir(), "v.tcsr")
	g, _ := sampleGraph(t)
	if err := WriteCSR(p, g, CacheMeta{}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	binary.LittleEndian.PutUint32(data[8:], csrVersion+1)
	os.WriteFile(p, data, 0o644)
	_, _, err := ReadCSR(p)
	wantInputError(t, err, p, 0, "CSR format version 2, but this tcgen reads version 1")
	if !errors.Is(err, ErrStale) {
		t.Fatalf("not stale: %v", err)
	}
}

// TestWriteCSRAtomic: a failed write leaves neither a partial file at the
// path nor a temporary file, and does not disturb an older file there.
func TestWriteCSRAtomic(t *testing.T) {
	dir := t.TempDir()
	g, _ := sampleGraph(t)
	// The rename fails: the path is a non-empty directory.
	target := filepath.Join(dir, "out.tcsr")
	os.MkdirAll(filepath.Join(target, "keep"), 0o755)
	if err := WriteCSR(target, g, CacheMeta{}); err == nil {
		t.Fatal("write over a directory succeeded")
	}
	// Invalid input: rejected before anything is written.
	old := filepath.Join(dir, "old.tcsr")
	if err := WriteCSR(old, g, CacheMeta{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(old)
	bad := &Graph{CSR: g.CSR, OrigIDs: []uint64{1}}
	if err := WriteCSR(old, bad, CacheMeta{}); err == nil {
		t.Fatal("bad graph written")
	}
	after, _ := os.ReadFile(old)
	if !slices.Equal(before, after) {
		t.Fatal("failed write changed the existing file")
	}
	// The directory does not exist.
	if err := WriteCSR(filepath.Join(dir, "nodir", "x.tcsr"), g, CacheMeta{}); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"old.tcsr", "out.tcsr"}) {
		t.Fatalf("directory holds %v", names)
	}
	if st, _ := os.Stat(target); !st.IsDir() {
		t.Fatal("directory replaced")
	}
}

func TestCacheLoad(t *testing.T) {
	srcDir, cacheDir := t.TempDir(), filepath.Join(t.TempDir(), "tcgen")
	data, _ := os.ReadFile(td("header.csv"))
	src := writeFile(t, srcDir, "edges.csv", data)
	c := &Cache{Dir: cacheDir}

	g1, rep1, err := c.Load(src, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep1.FromCache || rep1.CachePath == "" || rep1.CacheNote != "" {
		t.Fatalf("first load: %+v", rep1)
	}
	if !strings.HasPrefix(rep1.CachePath, cacheDir) || !strings.HasSuffix(rep1.CachePath, "-text.tcsr") {
		t.Fatalf("cache path %s", rep1.CachePath)
	}
	g2, rep2, err := c.Load(src, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep2.FromCache || rep2.Header != rep1.Header || rep2.InputEdges != rep1.InputEdges || rep2.Format != "text" {
		t.Fatalf("second load: %+v", rep2)
	}
	sameGraph(t, g2, g1)
	// Nothing written beside the input.
	if ents, _ := os.ReadDir(srcDir); len(ents) != 1 {
		t.Fatalf("source dir holds %d entries", len(ents))
	}

	// Corrupt entry: detected, rebuilt, overwritten.
	entry, _ := os.ReadFile(rep1.CachePath)
	entry[len(entry)-9] ^= 1
	os.WriteFile(rep1.CachePath, entry, 0o644)
	g3, rep3, err := c.Load(src, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep3.FromCache || !strings.Contains(rep3.CacheNote, "checksum mismatch") {
		t.Fatalf("corrupt entry: %+v", rep3)
	}
	sameGraph(t, g3, g1)
	if _, _, err := ReadCSR(rep1.CachePath); err != nil {
		t.Fatalf("entry not rewritten: %v", err)
	}

	// Another tool version: stale, rebuilt.
	defer func(v string) { ToolVersion = v }(ToolVersion)
	ToolVersion = "v9.9.9"
	_, rep4, err := c.Load(src, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep4.FromCache || !strings.Contains(rep4.CacheNote, `tcgen "dev"`) {
		t.Fatalf("stale entry: %+v", rep4)
	}
	if _, rep5, _ := c.Load(src, ReadOptions{}); !rep5.FromCache {
		t.Fatalf("rebuilt entry not used: %+v", rep5)
	}

	// Changed source: another key, never the old graph.
	os.WriteFile(src, []byte("1 2\n"), 0o644)
	g6, rep6, err := c.Load(src, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep6.FromCache || g6.Edges() != 1 {
		t.Fatalf("changed source: %+v", rep6)
	}

	// A bad source is an input error, and caches nothing.
	os.WriteFile(src, []byte("1 2\nx y\n"), 0o644)
	if _, _, err := c.Load(src, ReadOptions{}); err == nil {
		t.Fatal("bad source loaded")
	}
	ents, _ := os.ReadDir(cacheDir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
	if len(ents) != 2 {
		t.Fatalf("cache holds %d entries, want 2", len(ents))
	}

	// An unwritable cache still loads the graph.
	ro := &Cache{Dir: filepath.Join(src, "sub")} // under a file: cannot be created
	g7, rep7, err := ro.Load(td("snap.txt"), ReadOptions{})
	if err != nil || g7.Edges() != 5 || !strings.Contains(rep7.CacheNote, "cache not written") {
		t.Fatalf("unwritable cache: %v %+v", err, rep7)
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/tmp/xdg")
	d, err := DefaultCacheDir()
	if err != nil || d != "/tmp/xdg/tcgen" {
		t.Fatalf("%q %v", d, err)
	}
}
