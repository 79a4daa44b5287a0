package graph

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Matrix Market coordinate files: a banner, % comments, a size line
// "rows cols nnz", then nnz entries "i j [value...]" with 1-based indices.
// Values are ignored and the matrix is read as an undirected graph, so
// general, symmetric, skew-symmetric and hermitian files read alike (the
// canonical graph is the same whichever triangle an entry is stored in).

var mtxFields = map[string]bool{"pattern": true, "integer": true, "real": true, "double": true, "complex": true}

var mtxSymmetries = map[string]bool{"general": true, "symmetric": true, "skew-symmetric": true, "hermitian": true}

// readMTX returns the records and the declared vertex count (rows).
func (s *source) readMTX(rep *Report) (*EdgeList, uint64, error) {
	var lineNo int64
	bad := func(msg string, args ...any) error {
		return &InputError{File: s.name, Line: lineNo, Msg: fmt.Sprintf(msg, args...)}
	}
	nextLine := func() (string, error) {
		b, err := s.r.ReadBytes('\n')
		if len(b) == 0 && err != nil {
			if err == io.EOF {
				return "", err
			}
			return "", s.ioError(err)
		}
		lineNo++
		return string(bytes.TrimRight(b, "\r\n")), nil
	}

	banner, err := nextLine()
	if err != nil || !strings.HasPrefix(strings.ToLower(banner), "%%matrixmarket") {
		lineNo = 1
		return nil, 0, bad("missing %%%%MatrixMarket banner: not a Matrix Market file (wrong format?)")
	}
	f := strings.Fields(strings.ToLower(banner))
	if len(f) != 5 {
		return nil, 0, bad("banner should be \"%%%%MatrixMarket matrix coordinate <field> <symmetry>\", got %s", quoteLine([]byte(banner)))
	}
	switch {
	case f[1] != "matrix":
		return nil, 0, bad("Matrix Market object %s is not supported (only matrix)", quoteToken([]byte(f[1])))
	case f[2] == "array":
		return nil, 0, bad("dense (array) Matrix Market files are not supported: a graph needs the coordinate format")
	case f[2] != "coordinate":
		return nil, 0, bad("unknown Matrix Market format %s (want coordinate)", quoteToken([]byte(f[2])))
	case !mtxFields[f[3]]:
		return nil, 0, bad("unknown Matrix Market field %s (want pattern, integer, real or complex)", quoteToken([]byte(f[3])))
	case !mtxSymmetries[f[4]]:
		return nil, 0, bad("unknown Matrix Market symmetry %s (want general, symmetric, skew-symmetric or hermitian)", quoteToken([]byte(f[4])))
	}

	// Comments and blank lines, then the size line.
	var size []string
	for {
		l, err := nextLine()
		if err == io.EOF {
			return nil, 0, bad("file ends before the size line")
		}
		if err != nil {
			return nil, 0, err
		}
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if t[0] == '%' {
			rep.Comments++
			continue
		}
		size = strings.Fields(t)
		break
	}
	if len(size) != 3 {
		return nil, 0, bad("size line should be \"rows cols entries\", got %s", quoteLine([]byte(strings.Join(size, " "))))
	}
	var dims [3]uint64
	for i, x := range size {
		v, err := strconv.ParseUint(x, 10, 64)
		if err != nil || v > maxID {
			return nil, 0, bad("size line should be \"rows cols entries\" (integers up to 2^63-1), got %s", quoteToken([]byte(x)))
		}
		dims[i] = v
	}
	rows, cols, nnz := dims[0], dims[1], dims[2]
	if rows != cols {
		return nil, 0, bad("matrix is %d x %d: an adjacency matrix must be square", rows, cols)
	}
	sizeLine := lineNo
	if err := s.mem.Check(s.name, buildBytes(nnz, rows)); err != nil {
		return nil, 0, err
	}

	el, records, err := s.readLines(s.r, &textMode{mtx: true, rows: rows, cols: cols, skipped: lineNo}, rep)
	if err != nil {
		return nil, 0, err
	}
	if records != nnz {
		lineNo = sizeLine
		if records < nnz {
			return nil, 0, bad("truncated: %d of the %d entries the size line declares", records, nnz)
		}
		return nil, 0, bad("%d entries, more than the %d the size line declares", records, nnz)
	}
	return el, rows, nil
}
