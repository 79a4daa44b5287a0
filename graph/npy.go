package graph

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// NumPy's .npy format (the arrays inside an .npz): the magic "\x93NUMPY",
// a version (1.0, 2.0 or 3.0), the header's length (2 bytes in 1.0, 4
// after), then the header, a Python dict literal such as
// {'descr': '<i4', 'fortran_order': False, 'shape': (5,), }, padded with
// spaces to a multiple of 64 bytes and ended by '\n'; then the elements.

const npyMagic = "\x93NUMPY"

// npyMaxHeader bounds the header: real ones are under 200 bytes, and the
// 4-byte length of version 2 must not make a corrupt file allocate 4 GiB.
const npyMaxHeader = 64 << 10

// npyHeader is what an array's header says.
type npyHeader struct {
	kind    byte // 'i', 'u' (integers), 'b' (bool), 'S' (bytes), 'U' (UCS-4), 'f', 'O', ...
	size    int  // bytes an element
	big     bool // big-endian elements
	descr   string
	fortran bool
	shape   []uint64
}

// count is the number of elements the shape holds (1 for a 0-d array).
func (h *npyHeader) count() (uint64, error) {
	c := uint64(1)
	for _, d := range h.shape {
		if d != 0 && c > maxID/d {
			return 0, errors.New("shape too large")
		}
		c *= d
	}
	return c, nil
}

// readNPYHeader reads an array's header from r, leaving r at its data.
func readNPYHeader(r io.Reader) (*npyHeader, error) {
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return nil, errors.New("not a .npy array (too short)")
	}
	if string(pre[:6]) != npyMagic {
		return nil, errors.New("not a .npy array (no \\x93NUMPY magic)")
	}
	var hlen uint32
	switch pre[6] {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return nil, errors.New("truncated .npy header")
		}
		hlen = uint32(binary.LittleEndian.Uint16(pre[8:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, errors.New("truncated .npy header")
		}
		hlen = binary.LittleEndian.Uint32(b[:])
	default:
		return nil, fmt.Errorf(".npy format version %d.%d is not supported (1.0 to 3.0)", pre[6], pre[7])
	}
	if hlen > npyMaxHeader {
		return nil, fmt.Errorf(".npy header of %d bytes, more than %d", hlen, npyMaxHeader)
	}
	text := make([]byte, hlen)
	if _, err := io.ReadFull(r, text); err != nil {
		return nil, errors.New("truncated .npy header")
	}
	return parseNPYHeader(string(text))
}

// parseNPYHeader parses the dict literal of a header: the keys descr,
// fortran_order and shape, with a string, a bool and a tuple of integers.
func parseNPYHeader(text string) (*npyHeader, error) {
	p := &pyLit{s: strings.TrimSpace(text)}
	h := &npyHeader{}
	seen := map[string]bool{}
	if !p.eat('{') {
		return nil, fmt.Errorf(".npy header is not a dict: %s", quoteToken([]byte(text)))
	}
	for !p.eat('}') {
		key, ok := p.str()
		if !ok || !p.eat(':') {
			return nil, fmt.Errorf("malformed .npy header %s", quoteToken([]byte(text)))
		}
		switch key {
		case "descr":
			h.descr, ok = p.str()
		case "fortran_order":
			h.fortran, ok = p.boolean()
		case "shape":
			h.shape, ok = p.tuple()
		default:
			ok = false
		}
		if !ok || seen[key] {
			return nil, fmt.Errorf("malformed .npy header %s", quoteToken([]byte(text)))
		}
		seen[key] = true
		if !p.eat(',') && !p.peek('}') {
			return nil, fmt.Errorf("malformed .npy header %s", quoteToken([]byte(text)))
		}
	}
	if !seen["descr"] || !seen["fortran_order"] || !seen["shape"] || p.s != "" {
		return nil, fmt.Errorf("malformed .npy header %s", quoteToken([]byte(text)))
	}
	return h, h.parseDescr()
}

// parseDescr reads a simple type string: a byte order ('<', '>', '|' or
// '='), a kind and a size ("<i8", "|S3", "<U3").
func (h *npyHeader) parseDescr() error {
	d := h.descr
	if strings.HasSuffix(d, "O") {
		return errors.New("holds pickled Python objects, which tcgen does not read")
	}
	if len(d) < 3 || !strings.ContainsRune("<>|=", rune(d[0])) {
		return fmt.Errorf("unsupported .npy element type %s", quoteToken([]byte(d)))
	}
	size, err := strconv.Atoi(d[2:])
	if err != nil || size <= 0 || size > 1<<16 {
		return fmt.Errorf("unsupported .npy element type %s", quoteToken([]byte(d)))
	}
	h.kind, h.size, h.big = d[1], size, d[0] == '>'
	if h.kind == 'U' {
		h.size *= 4 // UCS-4 code points
	}
	return nil
}

// pyLit scans the Python literals of a .npy header.
type pyLit struct{ s string }

func (p *pyLit) skip() { p.s = strings.TrimLeft(p.s, " \t\r\n") }

func (p *pyLit) peek(c byte) bool {
	p.skip()
	return len(p.s) > 0 && p.s[0] == c
}

func (p *pyLit) eat(c byte) bool {
	if p.peek(c) {
		p.s = p.s[1:]
		return true
	}
	return false
}

// str reads a quoted string without escapes (type strings and keys).
func (p *pyLit) str() (string, bool) {
	p.skip()
	if len(p.s) == 0 || p.s[0] != '\'' && p.s[0] != '"' {
		return "", false
	}
	end := strings.IndexByte(p.s[1:], p.s[0])
	if end < 0 || strings.ContainsRune(p.s[1:1+end], '\\') {
		return "", false
	}
	v := p.s[1 : 1+end]
	p.s = p.s[2+end:]
	return v, true
}

func (p *pyLit) boolean() (bool, bool) {
	p.skip()
	for _, b := range []string{"True", "False"} {
		if strings.HasPrefix(p.s, b) {
			p.s = p.s[len(b):]
			return b == "True", true
		}
	}
	return false, false
}

// tuple reads (), (5,) or (3, 4): non-negative integers.
func (p *pyLit) tuple() ([]uint64, bool) {
	if !p.eat('(') {
		return nil, false
	}
	shape := []uint64{}
	for !p.eat(')') {
		p.skip()
		i := 0
		for i < len(p.s) && p.s[i] >= '0' && p.s[i] <= '9' {
			i++
		}
		d, err := strconv.ParseUint(p.s[:i], 10, 64)
		if i == 0 || err != nil || len(shape) == 32 { // NumPy allows 64 dimensions; a graph needs 2
			return nil, false
		}
		p.s = strings.TrimPrefix(p.s[i:], "L") // Python 2's long suffix
		shape = append(shape, d)
		if !p.eat(',') && !p.peek(')') {
			return nil, false
		}
	}
	return shape, true
}

// npyHeaderBytes returns the version 1.0 preamble and header of a C-order
// array of the given type and shape, padded to 64 bytes as NumPy pads it.
func npyHeaderBytes(descr string, shape ...uint64) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.FormatUint(d, 10)
	}
	tuple := "(" + strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	tuple += ")"
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, tuple)
	total := 10 + len(dict) + 1
	pad := (64 - total%64) % 64
	var b bytes.Buffer
	b.WriteString(npyMagic)
	b.Write([]byte{1, 0})
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)+pad+1))
	b.WriteString(dict)
	b.WriteString(strings.Repeat(" ", pad))
	b.WriteByte('\n')
	return b.Bytes()
}
