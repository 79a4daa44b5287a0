package graph

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// refText is the text edge-list rules written plainly, line by line, as the
// reference the fast parallel reader is checked against. It returns the
// records, the header and its line, or the line of the first error.
func refText(data []byte) (pairs [][2]uint64, header string, headerLine, errLine int64, ok bool) {
	data = bytes.TrimPrefix(data, utf8BOM)
	lines := strings.Split(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	isSepRune := func(r rune) bool { return r == ' ' || r == '\t' || r == ',' }
	isInt := func(f string) bool {
		if f != "" && (f[0] == '+' || f[0] == '-') {
			f = f[1:] // one sign at most
		}
		return f != "" && strings.Trim(f, "0123456789") == ""
	}
	dataSeen := false
	for i, l := range lines {
		no := int64(i + 1)
		l = strings.TrimSuffix(l, "\r")
		t := strings.TrimLeft(l, " \t,")
		if t == "" {
			continue
		}
		if t[0] == '#' || t[0] == '%' {
			continue
		}
		first := !dataSeen
		dataSeen = true
		// Control bytes (a bare CR included) are refused up to the end of
		// the second field; later columns are ignored whatever they hold.
		f := strings.FieldsFunc(l, isSepRune)
		head := l
		if len(f) >= 2 {
			head = l[:strings.Index(l, f[0])+len(f[0])]
			rest := l[len(head):]
			head += rest[:strings.Index(rest, f[1])+len(f[1])]
		}
		for _, c := range []byte(head) {
			if c < 0x20 && c != '\t' || c == 0x7f {
				return nil, "", 0, no, false
			}
		}
		if !isInt(f[0]) || len(f) > 1 && !isInt(f[1]) {
			// Only a line that cannot start a record is a header.
			if first && !strings.ContainsRune("0123456789+-.", rune(f[0][0])) {
				header, headerLine = l, no
				continue
			}
			return nil, "", 0, no, false
		}
		if len(f) < 2 {
			return nil, "", 0, no, false
		}
		var uv [2]uint64
		for k := 0; k < 2; k++ {
			if strings.HasPrefix(f[k], "-") {
				return nil, "", 0, no, false
			}
			x, err := strconv.ParseUint(strings.TrimPrefix(f[k], "+"), 10, 64)
			if err != nil || x > maxID {
				return nil, "", 0, no, false
			}
			uv[k] = x
		}
		pairs = append(pairs, uv)
	}
	return pairs, header, headerLine, 0, true
}

var textSeeds = []string{
	"",
	"1 2\n2 3\n3 1\n",
	"# c\n% c\nsource,target\n1,2\r\n2,3,5.0\n",
	"1\t2\t0.5\t1217567877\n\n  3   4  \n",
	"a b\n1 2\nc d\n",
	"1 2\n3\n",
	"1 -2\n",
	"9223372036854775807 9223372036854775806\n9223372036854775808 1\n",
	"00000000000000000000000001 2\n",
	"1 2\r3 4\r\n",
	"1 2\x00\n",
	"\ufeffnode_1,node_2\n0,1\n",
	"+1 +2\n-0 1\n",
	"1,,2\n,3,4\n",
	"5 5\n6 6\n5 6\n",
	"0 0 \x00",             // control bytes after the second field are extra columns
	"+-0",                  // one sign at most: not an integer, and data-like, so an error
	"x-0\n1 2\n",           // a header
	"1 2x\n3 4\n",          // data-like: an error, not a header
	"1 2\r 5\n# c\n3\t4\n", // a CR inside the first two fields' span is refused
}

// FuzzText: the reader never panics, agrees with refText on what it
// accepts, where it fails and what graph it builds, and its graphs are
// canonical.
func FuzzText(f *testing.F) {
	for i, s := range textSeeds {
		f.Add([]byte(s), uint8(i))
	}
	f.Fuzz(func(t *testing.T, data []byte, block uint8) {
		src, err := newSource("f.txt", bytes.NewReader(data), nil, -1, ReadOptions{Format: "text"}, nil)
		var g *Graph
		var rep *Report
		if err == nil {
			// Tiny blocks put block boundaries everywhere: carried partial
			// lines, headers and errors in later blocks, line counting.
			src.blockSize = 1 + int(block)%32
			g, rep, err = src.read()
		}
		// A pipe's short reads, with the usual blocks: the same verdict.
		sameThroughStream(t, data, "f.txt", ReadOptions{Format: "text"}, block, g, err)
		if err == nil {
			if cerr := g.CheckCanonical(); cerr != nil {
				t.Fatal(cerr)
			}
		}
		var ie *InputError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("error %v is not an *InputError", err)
		}
		if bytes.HasPrefix(data, gzipMagic) || formatFromContent(bytes.TrimPrefix(data, utf8BOM)) != "" {
			return // gzip or another format: outside the reference's rules
		}
		pairs, header, headerLine, errLine, ok := refText(data)
		if ok != (err == nil) {
			t.Fatalf("reference ok=%v (error line %d), reader error %v", ok, errLine, err)
		}
		if !ok {
			if ie.Line != errLine {
				t.Fatalf("error at line %d, reference says %d: %v", ie.Line, errLine, err)
			}
			return
		}
		want, _, wantErr := FromPairs(pairs)
		if wantErr != nil {
			t.Fatal(wantErr)
		}
		if !equalGraphs(g, want) {
			t.Fatalf("graph differs from reference: %v vs %v", edgesOf(g), edgesOf(want))
		}
		if rep.Header != header || rep.HeaderLine != headerLine || rep.InputEdges != uint64(len(pairs)) {
			t.Fatalf("report %+v, reference header %q at %d, %d records", rep, header, headerLine, len(pairs))
		}
	})
}

func equalGraphs(a, b *Graph) bool {
	return slices.Equal(a.Offsets, b.Offsets) && slices.Equal(a.Adj, b.Adj) && slices.Equal(a.OrigIDs, b.OrigIDs)
}

var mtxSeeds = []string{
	"%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n2 1\n3 1\n3 2\n",
	"%%MatrixMarket matrix coordinate real general\n% c\n\n4 4 4\n1 2 0.5\n2 1 1e3\n3 3 -1\n4 1 2\n",
	"%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n2 1 1.0 -2.0\n",
	"%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 7\n",
	"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
	"%%MatrixMarket matrix coordinate pattern general\n3 4 1\n1 2\n",
	"%%MatrixMarket matrix coordinate pattern general\n3 3 1\n0 2\n",
	"%%MatrixMarket matrix coordinate pattern general\n9223372036854775807 9223372036854775807 1\n9223372036854775807 1\n",
}

// FuzzMTX: the .mtx reader never panics, returns only *InputError, and its
// graphs are canonical with 1-based ids.
func FuzzMTX(f *testing.F) {
	for _, s := range mtxSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, rep, err := Read(bytes.NewReader(data), "f.mtx", ReadOptions{Format: "mtx"})
		// A pipe's short reads: the same verdict.
		sameThroughStream(t, data, "f.mtx", ReadOptions{Format: "mtx"}, uint8(len(data)), g, err)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}
			return
		}
		if cerr := g.CheckCanonical(); cerr != nil {
			t.Fatal(cerr)
		}
		if rep.Format != "mtx" {
			t.Fatalf("format %q", rep.Format)
		}
		for _, id := range g.OrigIDs {
			if id == 0 {
				t.Fatalf("0-based id %d from a 1-based file", id)
			}
		}
	})
}
