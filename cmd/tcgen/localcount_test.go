package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/graph"
)

// readNPY parses a format 1.0 .npy file as NumPy's spec describes it and
// returns its descr, shape and raw little-endian 8-byte elements.
func readNPY(t *testing.T, b []byte) (descr string, shape []uint64, words []uint64) {
	t.Helper()
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" || b[6] != 1 || b[7] != 0 {
		t.Fatalf("bad magic or version: %q", b[:min(len(b), 10)])
	}
	hlen := int(binary.LittleEndian.Uint16(b[8:10]))
	if (10+hlen)%64 != 0 || len(b) < 10+hlen || b[10+hlen-1] != '\n' {
		t.Fatalf("header of %d bytes: not padded to 64 or not ended by a newline", hlen)
	}
	h := string(b[10 : 10+hlen])
	re := regexp.MustCompile(`^\{'descr': '([<>|][a-z][0-9]+)', 'fortran_order': False, 'shape': \(([0-9, ]*)\), \} *\n$`)
	m := re.FindStringSubmatch(h)
	if m == nil {
		t.Fatalf("header %q is not the dict NumPy writes", h)
	}
	for _, d := range strings.Split(m[2], ",") {
		if d = strings.TrimSpace(d); d != "" {
			n, err := strconv.ParseUint(d, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			shape = append(shape, n)
		}
	}
	data := b[10+hlen:]
	if len(data)%8 != 0 {
		t.Fatalf("%d data bytes", len(data))
	}
	for i := 0; i < len(data); i += 8 {
		words = append(words, binary.LittleEndian.Uint64(data[i:]))
	}
	return m[1], shape, words
}

func TestNPYHeader(t *testing.T) {
	for _, tc := range []struct {
		descr string
		shape []uint64
		dict  string
	}{
		{"<u8", []uint64{34}, "{'descr': '<u8', 'fortran_order': False, 'shape': (34,), }"},
		{"<u8", []uint64{78, 3}, "{'descr': '<u8', 'fortran_order': False, 'shape': (78, 3), }"},
		{"<f8", []uint64{0, 2}, "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 2), }"},
	} {
		var buf bytes.Buffer
		if err := writeNPYHeader(&buf, tc.descr, tc.shape); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		// What numpy.lib.format.write_array_header_1_0 writes: the dict,
		// spaces, '\n', the whole a multiple of 64 bytes.
		pad := 64 - (10+len(tc.dict)+1)%64
		want := fmt.Sprintf("\x93NUMPY\x01\x00%c%c%s%s\n", byte(len(tc.dict)+pad+1), 0, tc.dict, strings.Repeat(" ", pad%64))
		if string(b) != want {
			t.Errorf("header\n%q\nwant\n%q", b, want)
		}
		descr, shape, words := readNPY(t, b)
		if descr != tc.descr || fmt.Sprint(shape) != fmt.Sprint(tc.shape) || len(words) != 0 {
			t.Errorf("read back %s %v %d words", descr, shape, len(words))
		}
	}
}

func TestClusteringClosedForm(t *testing.T) {
	// K_4 and a pendant vertex 4 on vertex 0: vertex 0 has 3 triangles of
	// C(4, 2) = 6 pairs, the others 3 of 3, the pendant 0.
	g, _, err := graph.FromPairs([][2]uint64{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}, {0, 4}})
	if err != nil {
		t.Fatal(err)
	}
	coef, avg, wedges := clustering(g, []uint64{3, 3, 3, 3, 0})
	if fmt.Sprint(coef) != "[0.5 1 1 1 0]" || avg != 3.5/5 || wedges != 6+3*3 {
		t.Errorf("coefficients %v, average %v, wedges %d", coef, avg, wedges)
	}
}
