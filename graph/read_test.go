package graph

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// edgesOf lists g's undirected edges as sorted pairs of original ids.
func edgesOf(g *Graph) [][2]uint64 {
	var out [][2]uint64
	for v := 0; v < g.N(); v++ {
		for _, u := range g.Neighbors(uint32(v)) {
			if uint32(v) < u {
				out = append(out, [2]uint64{g.OrigID(uint32(v)), g.OrigID(u)})
			}
		}
	}
	return out
}

func mustOpen(t *testing.T, path string, opt ReadOptions) (*Graph, *Report) {
	t.Helper()
	g, rep, err := Open(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.CheckCanonical(); err != nil {
		t.Fatal(err)
	}
	return g, rep
}

func wantEdges(t *testing.T, g *Graph, want [][2]uint64) {
	t.Helper()
	if got := edgesOf(g); !slices.Equal(got, want) {
		t.Fatalf("edges %v, want %v", got, want)
	}
}

// wantInputError asserts err is an *InputError naming file:line (line 0:
// no line) and containing msg.
func wantInputError(t *testing.T, err error, file string, line int64, msg string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T), want *InputError", err, err)
	}
	prefix := fmt.Sprintf("%s:%d: ", file, line)
	if line == 0 {
		prefix = file + ": "
	}
	if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), msg) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q, want one line starting %q containing %q", err, prefix, msg)
	}
}

func td(name string) string { return filepath.Join("testdata", name) }

func TestReadSNAP(t *testing.T) {
	g, rep := mustOpen(t, td("snap.txt"), ReadOptions{})
	wantEdges(t, g, [][2]uint64{{0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 4}})
	want := Report{Format: "text", Comments: 3, InputEdges: 7, SelfLoops: 1, Duplicates: 1}
	if rep.ParseMs <= 0 || rep.CleanMs < 0 {
		t.Errorf("parse %v ms, clean %v ms: not timed", rep.ParseMs, rep.CleanMs)
	}
	rep.ParseMs, rep.CleanMs = 0, 0 // timings, checked above
	if *rep != want {
		t.Fatalf("report %+v, want %+v", *rep, want)
	}
}

func TestReadHeaderCSV(t *testing.T) {
	g, rep := mustOpen(t, td("header.csv"), ReadOptions{})
	wantEdges(t, g, [][2]uint64{{1, 2}, {1, 3}, {2, 3}, {3, 4}})
	if rep.Header != "source,target,weight" || rep.HeaderLine != 1 {
		t.Fatalf("header %q at line %d", rep.Header, rep.HeaderLine)
	}
}

func TestReadMixed(t *testing.T) {
	// Spaces, tab runs, commas, extra columns (floats, negative numbers,
	// timestamps, words), CRLF, blank lines, # and % comments, a loop.
	g, rep := mustOpen(t, td("mixed.txt"), ReadOptions{})
	wantEdges(t, g, [][2]uint64{{10, 20}, {10, 30}, {10, 40}, {20, 30}, {50, 60}})
	if rep.Comments != 2 || rep.SelfLoops != 1 || rep.Header != "" || rep.Isolated != 0 {
		t.Fatalf("report %+v", rep)
	}
}

func TestReadEmptyAndNoTriangles(t *testing.T) {
	for _, f := range []string{"empty.txt", "comments-only.txt"} {
		g, rep := mustOpen(t, td(f), ReadOptions{})
		if g.N() != 0 || g.Edges() != 0 || len(g.Offsets) != 1 {
			t.Fatalf("%s: %d vertices %d edges", f, g.N(), g.Edges())
		}
		if rep.InputEdges != 0 {
			t.Fatalf("%s: report %+v", f, rep)
		}
	}
	g, _ := mustOpen(t, td("no-triangles.txt"), ReadOptions{})
	wantEdges(t, g, [][2]uint64{{1, 2}, {1, 3}, {1, 4}, {4, 5}, {5, 6}})
}

func TestReadBadText(t *testing.T) {
	cases := []struct {
		file string
		line int64
		msg  string
	}{
		{"bad-nonnumeric.txt", 4, `expected two vertex ids, got "abc def"`},
		{"bad-onefield.txt", 3, `expected two vertex ids, got one field "4"`},
		{"bad-negative.txt", 2, `negative vertex id "-3"`},
		{"bad-toobig.txt", 3, "vertex id 9223372036854775808 exceeds 2^63-1"},
	}
	for _, c := range cases {
		_, _, err := Open(td(c.file), ReadOptions{})
		wantInputError(t, err, td(c.file), c.line, c.msg)
	}
}

// TestReadTextCases runs small inline inputs through Read.
func TestReadTextCases(t *testing.T) {
	cases := []struct {
		name, in string
		edges    [][2]uint64
		header   string
		errLine  int64
		errMsg   string
	}{
		{name: "no final newline", in: "1 2\n2 3", edges: [][2]uint64{{1, 2}, {2, 3}}},
		{name: "bom", in: "\ufeff1 2\n", edges: [][2]uint64{{1, 2}}},
		{name: "bom header", in: "\ufeffnode_1,node_2\n0,1\n", edges: [][2]uint64{{0, 1}}, header: "node_1,node_2"},
		{name: "header after comments", in: "# c\n\n% d\nFrom To\n5 6\n", edges: [][2]uint64{{5, 6}}, header: "From To"},
		{name: "malformed second field", in: "1 x\n5 6\n", errLine: 1, errMsg: `expected two vertex ids, got "1 x"`},
		{name: "malformed first record", in: "1 2x\n5 6\n", errLine: 1, errMsg: `got "1 2x"`},
		{name: "exponent first record", in: "1e0 2\n5 6\n", errLine: 1, errMsg: `got "1e0 2"`},
		{name: "signed first record", in: "+x 2\n5 6\n", errLine: 1, errMsg: `got "+x 2"`},
		{name: "quoted header", in: "\"source\",\"target\"\n5 6\n", edges: [][2]uint64{{5, 6}}, header: `"source","target"`},
		{name: "one-word header", in: "edges\n5 6\n", edges: [][2]uint64{{5, 6}}, header: "edges"},
		{name: "second header", in: "a b\nc d\n", errLine: 2, errMsg: `expected two vertex ids, got "c d"`},
		{name: "float ids", in: "1.0 2.0\n3 4\n5.5 6\n", errLine: 1, errMsg: `got "1.0 2.0"`},
		{name: "float ids later", in: "1 2\n3 4\n5.5 6\n", errLine: 3, errMsg: `got "5.5 6"`},
		{name: "point first", in: ".5 6\n", errLine: 1, errMsg: `got ".5 6"`},
		{name: "max id", in: "9223372036854775807 0\n", edges: [][2]uint64{{0, 1<<63 - 1}}},
		{name: "19 digit id", in: "1000000000000000000 00000000000000000000001\n", edges: [][2]uint64{{1, 1e18}}},
		{name: "huge id", in: "1 2\n99999999999999999999 1\n", errLine: 2, errMsg: "exceeds 2^63-1"},
		{name: "plus sign", in: "+1 +2\n", edges: [][2]uint64{{1, 2}}},
		{name: "negative first line", in: "-1 2\n", errLine: 1, errMsg: `negative vertex id "-1"`},
		{name: "one field first line", in: "4039\n1 2\n", errLine: 1, errMsg: "one field"},
		{name: "leading separators", in: " \t,1,,2\n", edges: [][2]uint64{{1, 2}}},
		{name: "blank crlf lines", in: "\r\n \r\n1 2\r\n", edges: [][2]uint64{{1, 2}}},
		{name: "bare cr", in: "1 2\r3 4\r", errLine: 1, errMsg: "carriage return"},
		{name: "nul byte", in: "1 2\n3\x004\n", errLine: 2, errMsg: "binary data (byte 0x00"},
		{name: "binary header", in: "\x01\x02\x03\x04\n1 2\n", errLine: 1, errMsg: "binary data"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, rep, err := Read(strings.NewReader(c.in), "in.txt", ReadOptions{})
			if c.errMsg != "" {
				wantInputError(t, err, "in.txt", c.errLine, c.errMsg)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantEdges(t, g, c.edges)
			if rep.Header != c.header {
				t.Fatalf("header %q, want %q", rep.Header, c.header)
			}
		})
	}
}

// TestReadBlocks crosses block boundaries: exact line numbers far into a
// file, a header after more than a block of comments, a line longer than a
// block, and many blocks of records against Build on the same pairs.
func TestReadBlocks(t *testing.T) {
	var b strings.Builder
	var pairs [][2]uint64
	for i := 0; i < 300000; i++ {
		u, v := uint64(i*7919%100003), uint64(i*104729%99991)
		pairs = append(pairs, [2]uint64{u, v})
		fmt.Fprintf(&b, "%d %d\n", u, v)
	}
	good := b.String()
	g, rep, err := Read(strings.NewReader(good), "big.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := FromPairs(pairs)
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, g, want)
	if rep.InputEdges != uint64(len(pairs)) {
		t.Fatalf("input edges %d", rep.InputEdges)
	}

	bad := good + "1 x\n" + good
	_, _, err = Read(strings.NewReader(bad), "big.txt", ReadOptions{})
	wantInputError(t, err, "big.txt", 300001, `got "1 x"`)

	comments := strings.Repeat("# a comment line that fills the first blocks\n", 3*textBlockSize/45)
	n := int64(strings.Count(comments, "\n"))
	g, rep, err = Read(strings.NewReader(comments+"src dst\n1 2\n"), "c.txt", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Header != "src dst" || rep.HeaderLine != n+1 || rep.Comments != n || g.Edges() != 1 {
		t.Fatalf("report %+v", rep)
	}
	_, _, err = Read(strings.NewReader(comments+"1 2\nsrc dst\n"), "c.txt", ReadOptions{})
	wantInputError(t, err, "c.txt", n+2, `got "src dst"`)

	long := "1 2 " + strings.Repeat("w", 3*textBlockSize) + "\n3 4\n5 y\n"
	_, _, err = Read(strings.NewReader(long), "long.txt", ReadOptions{})
	wantInputError(t, err, "long.txt", 3, `got "5 y"`)
}

func gzipBytes(t testing.TB, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadGzip(t *testing.T) {
	dir := t.TempDir()
	plain, err := os.ReadFile(td("snap.txt"))
	if err != nil {
		t.Fatal(err)
	}
	z := gzipBytes(t, plain)
	// Recognised by magic, with or without the extension; two concatenated
	// members read as one stream (as gzip -c a b > c makes).
	for _, name := range []string{"snap.txt.gz", "snap.txt", "snap.edges"} {
		p := writeFile(t, dir, name, z)
		g, rep := mustOpen(t, p, ReadOptions{})
		wantEdges(t, g, [][2]uint64{{0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 4}})
		if !rep.Gzip || rep.Format != "text" {
			t.Fatalf("%s: report %+v", name, rep)
		}
	}
	two := append(gzipBytes(t, []byte("1 2\n")), gzipBytes(t, []byte("2 3\n"))...)
	g, _ := mustOpen(t, writeFile(t, dir, "two.gz", two), ReadOptions{})
	wantEdges(t, g, [][2]uint64{{1, 2}, {2, 3}})

	// A plain file named .gz is read as plain.
	g, rep := mustOpen(t, writeFile(t, dir, "plain.txt.gz", plain), ReadOptions{})
	if rep.Gzip || g.Edges() != 5 {
		t.Fatalf("plain .gz: report %+v", rep)
	}

	// Truncated: cut the stream at several points, including inside the
	// trailer; each must fail with an InputError, never a short graph.
	var big strings.Builder
	for i := 0; i < 200000; i++ {
		fmt.Fprintf(&big, "%d\t%d\n", i, i+1)
	}
	zb := gzipBytes(t, []byte(big.String()))
	for _, cut := range []int{len(zb) / 2, len(zb) - 9, len(zb) - 1, 11, 2} {
		p := writeFile(t, dir, "cut.txt.gz", zb[:cut])
		_, _, err := Open(p, ReadOptions{})
		wantInputError(t, err, p, 0, "truncated gzip data")
	}
	// Bytes after the last member: too few for a header, or not one.
	for _, tail := range []string{"junk\n", "not a gzip member at all\n"} {
		p := writeFile(t, dir, "tail.txt.gz", append(slices.Clone(zb), tail...))
		_, _, err := Open(p, ReadOptions{})
		wantInputError(t, err, p, 0, "after")
	}
	// Corrupt: a flipped byte in the middle.
	bad := slices.Clone(zb)
	bad[len(bad)/2] ^= 0x55
	p := writeFile(t, dir, "flip.txt.gz", bad)
	_, _, err = Open(p, ReadOptions{})
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("corrupt gzip: %v", err)
	}
}

func TestReadMTX(t *testing.T) {
	g, rep := mustOpen(t, td("triangle-sym.mtx"), ReadOptions{})
	wantEdges(t, g, [][2]uint64{{1, 2}, {1, 3}, {2, 3}, {3, 4}})
	if rep.Format != "mtx" || rep.Comments != 1 || rep.Isolated != 0 {
		t.Fatalf("report %+v", rep)
	}
	// General, real values, a diagonal entry, vertices 4 and 5 declared
	// but without edges, banner in odd case.
	g, rep = mustOpen(t, td("general-real.mtx"), ReadOptions{})
	wantEdges(t, g, [][2]uint64{{1, 2}, {1, 3}, {2, 3}})
	if rep.Isolated != 2 || rep.SelfLoops != 1 || rep.Duplicates != 1 {
		t.Fatalf("report %+v", rep)
	}
	g, _ = mustOpen(t, td("hermitian.mtx"), ReadOptions{})
	wantEdges(t, g, [][2]uint64{{1, 2}, {1, 3}, {2, 3}})
	// Content decides without the extension; gzip as well.
	data, _ := os.ReadFile(td("triangle-sym.mtx"))
	dir := t.TempDir()
	for _, p := range []string{writeFile(t, dir, "noext", data), writeFile(t, dir, "x.mtx.gz", gzipBytes(t, data))} {
		g, rep := mustOpen(t, p, ReadOptions{})
		if rep.Format != "mtx" || g.Edges() != 4 {
			t.Fatalf("%s: report %+v", p, rep)
		}
	}
	// A size line of 3e12 rows over three entries: the ids are sparse, so
	// the reader takes the sorted index, and the memory estimate with it
	// (not a bitmap of 3e12 bits) fits in 1 GiB.
	sparse := "%%MatrixMarket matrix coordinate pattern symmetric\n3000000000000 3000000000000 3\n2 1\n3 2\n3000000000000 1\n"
	g, rep = mustOpen(t, writeFile(t, dir, "sparse.mtx", []byte(sparse)), ReadOptions{Memory: MemoryLimit{Bytes: 1 << 30}})
	wantEdges(t, g, [][2]uint64{{1, 2}, {1, 3000000000000}, {2, 3}})
}

func TestReadBadMTX(t *testing.T) {
	cases := []struct {
		file string
		line int64
		msg  string
	}{
		{"bad-truncated.mtx", 2, "truncated: 1 of the 2 entries"},
		{"bad-array.mtx", 1, "dense (array) Matrix Market files are not supported"},
		{"bad-nonsquare.mtx", 2, "matrix is 3 x 4"},
		{"bad-index.mtx", 4, "row index 0 out of range 1..3"},
	}
	for _, c := range cases {
		_, _, err := Open(td(c.file), ReadOptions{})
		wantInputError(t, err, td(c.file), c.line, c.msg)
	}
	inline := []struct {
		in   string
		line int64
		msg  string
	}{
		{"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n2 1\n", 2, "2 entries, more than the 1"},
		{"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 3\n", 3, "column index 3 out of range 1..2"},
		{"%%MatrixMarket matrix coordinate pattern general\n% only comments\n", 2, "file ends before the size line"},
		{"%%MatrixMarket matrix coordinate pattern general\n2 2\n", 2, "size line should be"},
		{"%%MatrixMarket matrix coordinate pattern\n", 1, "banner should be"},
		{"%%MatrixMarket vector coordinate real general\n", 1, `object "vector"`},
		{"%%MatrixMarket matrix coordinate boolean general\n", 1, `field "boolean"`},
		{"%%MatrixMarket matrix coordinate real upper\n", 1, `symmetry "upper"`},
		{"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x\n", 3, `got "1 x"`},
	}
	for _, c := range inline {
		_, _, err := Read(strings.NewReader(c.in), "m.mtx", ReadOptions{})
		wantInputError(t, err, "m.mtx", c.line, c.msg)
	}
}

func TestReadBinary(t *testing.T) {
	g, rep := mustOpen(t, td("edges.bin32"), ReadOptions{})
	wantEdges(t, g, [][2]uint64{{0, 1}, {0, 2}, {1, 2}, {2, 3}})
	if rep.Format != "bin32" || rep.SelfLoops != 1 || rep.Duplicates != 1 {
		t.Fatalf("report %+v", rep)
	}
	const big = 1 << 40
	g, _ = mustOpen(t, td("edges.bin64"), ReadOptions{})
	wantEdges(t, g, [][2]uint64{{big, big + 1}, {big, big + 2}, {big + 1, big + 2}, {big + 2, big + 3}})

	// Declared by flag, gzip-compressed.
	data, _ := os.ReadFile(td("edges.bin32"))
	dir := t.TempDir()
	p := writeFile(t, dir, "e.dat", gzipBytes(t, data))
	g, rep = mustOpen(t, p, ReadOptions{Format: "bin32"})
	if g.Edges() != 4 || !rep.Gzip {
		t.Fatalf("report %+v", rep)
	}
	// Size not a multiple of the pair size.
	p = writeFile(t, dir, "odd.bin32", data[:len(data)-3])
	_, _, err := Open(p, ReadOptions{})
	wantInputError(t, err, p, 0, "file size 45 bytes is not a multiple of 8")
	p = writeFile(t, dir, "odd.bin64", data[:40])
	_, _, err = Open(p, ReadOptions{})
	wantInputError(t, err, p, 0, "file size 40 bytes is not a multiple of 16")
	// A bin64 id past 2^63-1.
	p = writeFile(t, dir, "neg.bin64", append(make([]byte, 8), 0, 0, 0, 0, 0, 0, 0, 0x80))
	_, _, err = Open(p, ReadOptions{})
	wantInputError(t, err, p, 0, "record 1 (byte offset 8): vertex id 9223372036854775808 exceeds 2^63-1")
	// Binary content without a declaration is not guessed: read as text it
	// fails plainly.
	p = writeFile(t, dir, "e.dat", data)
	_, _, err = Open(p, ReadOptions{})
	wantInputError(t, err, p, 1, "binary data")
}

func TestWrongFormat(t *testing.T) {
	dir := t.TempDir()
	bin := td("edges.bin32")
	cases := []struct {
		path, format string
		line         int64
		msg          string
	}{
		{bin, "text", 1, "binary data (byte 0x00"},
		{td("snap.txt"), "mtx", 1, "not a Matrix Market file (wrong format?)"},
		{td("snap.txt"), "bin32", 0, "content looks like text, not a bin32 binary edge list"},
		{td("snap.txt"), "bin64", 0, "looks like text"},
		{td("snap.txt"), "csr", 0, "not a tcgen CSR file"},
		{td("triangle-sym.mtx"), "text", 0, "content is Matrix Market, not a text edge list"},
		{writeFile(t, dir, "edges.mtx", []byte("1 2\n")), "", 1, "no %%MatrixMarket banner"},
	}
	for _, c := range cases {
		_, _, err := Open(c.path, ReadOptions{Format: c.format})
		wantInputError(t, err, c.path, c.line, c.msg)
	}
	if _, _, err := Open(td("snap.txt"), ReadOptions{Format: "json"}); err == nil || !strings.Contains(err.Error(), `unknown format "json"`) {
		t.Fatalf("unknown format: %v", err)
	}
	_, _, err := Open(filepath.Join(dir, "missing.txt"), ReadOptions{})
	wantInputError(t, err, filepath.Join(dir, "missing.txt"), 0, "no such file")
	_, _, err = Open(dir, ReadOptions{})
	wantInputError(t, err, dir, 0, "is a directory")
}

func TestReadProgress(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 1000000; i++ {
		fmt.Fprintf(&b, "%d %d\n", i, i+1)
	}
	p := writeFile(t, t.TempDir(), "p.txt", []byte(b.String()))
	var calls int
	var last, total int64
	_, _, err := Open(p, ReadOptions{Progress: func(done, tot int64) {
		if done < last {
			t.Errorf("progress went back from %d to %d", last, done)
		}
		calls++
		last, total = done, tot
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 2 || last != int64(b.Len()) || total != int64(b.Len()) {
		t.Fatalf("%d progress calls, last %d of %d, want done = total = %d", calls, last, total, b.Len())
	}
}

func TestDetectFormat(t *testing.T) {
	cases := map[string]string{"snap.txt": "text", "triangle-sym.mtx": "mtx", "edges.bin32": "bin32", "header.csv": "text"}
	for f, want := range cases {
		got, gz, err := DetectFormat(td(f), "")
		if err != nil || got != want || gz {
			t.Fatalf("%s: %q %v %v, want %q", f, got, gz, err, want)
		}
	}
}

// TestReadSummary: the reader's running summary (segment stats and a
// growing endpoint bitmap) gives the same graph as Build's own passes, when
// the bitmap grows late, when it is dropped for sparse ids, and across
// segment and chunk boundaries.
func TestReadSummary(t *testing.T) {
	cases := map[string]func(i int) (uint64, uint64){
		"late large id": func(i int) (uint64, uint64) {
			if i == 150000 {
				return 1<<26 + 5, 3
			}
			return uint64(i % 1000), uint64(i * 7 % 1003)
		},
		"sparse ids": func(i int) (uint64, uint64) {
			return uint64(i%5000) << 30, uint64(i*13%4999)<<30 + 1
		},
		"loops and dense": func(i int) (uint64, uint64) {
			if i%3 == 0 {
				return uint64(i % 777), uint64(i % 777)
			}
			return uint64(i % 1234), uint64(i * 31 % 1235)
		},
	}
	for name, gen := range cases {
		t.Run(name, func(t *testing.T) {
			var b strings.Builder
			pairs := make([][2]uint64, 0, 200000)
			for i := 0; i < 200000; i++ {
				u, v := gen(i)
				pairs = append(pairs, [2]uint64{u, v})
				fmt.Fprintf(&b, "%d,%d\n", u, v)
			}
			g, rep, err := Read(strings.NewReader(b.String()), "s.csv", ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			want, wrep, err := FromPairs(pairs)
			if err != nil {
				t.Fatal(err)
			}
			sameGraph(t, g, want)
			if rep.SelfLoops != wrep.SelfLoops || rep.Duplicates != wrep.Duplicates || rep.Isolated != wrep.Isolated {
				t.Fatalf("report %+v, want %+v", rep, wrep)
			}
		})
	}
	// Records appended another way after the reader's: the summary is
	// stale and Build must not use it.
	var el EdgeList
	el.appendPairs([]uint64{1, 2, 2, 3})
	el.Add(3, 1)
	el.Add(1<<40, 1)
	g, err := Build(&el, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantEdges(t, g, [][2]uint64{{1, 2}, {1, 3}, {1, 1 << 40}, {2, 3}})
}

// TestBOMOnlyText: a UTF-8 byte-order mark is dropped from text, never from
// binary records that happen to start with those bytes.
func TestBOMOnlyText(t *testing.T) {
	rec := []byte{0xef, 0xbb, 0xbf, 0x00, 0x05, 0x00, 0x00, 0x00}
	g, _, err := Read(bytes.NewReader(rec), "x.bin32", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantEdges(t, g, [][2]uint64{{5, 0xbfbbef}})
}
