package graph

import (
	"encoding/binary"
	"fmt"
	"io"
)

// binaryBlockSize: binary records are decoded 1 MiB at a time, a multiple
// of both pair sizes (8 and 16 bytes).
const binaryBlockSize = 1 << 20

// readBinary reads little-endian pairs of uint32 (bin32) or uint64 (bin64).
func (s *source) readBinary(rep *Report) (*EdgeList, error) {
	width := 4
	if s.format == "bin64" {
		width = 8
	}
	pair := int64(2 * width)
	el := &EdgeList{}
	buf := make([]byte, binaryBlockSize)
	ids := make([]uint64, 0, binaryBlockSize/width)
	var read int64
	for {
		n, err := fill(s.r, buf)
		whole := n - n%int(pair)
		ids = ids[:0]
		for i := 0; i < whole; i += width {
			var x uint64
			if width == 4 {
				x = uint64(binary.LittleEndian.Uint32(buf[i:]))
			} else {
				x = binary.LittleEndian.Uint64(buf[i:])
				if x > maxID {
					return nil, &InputError{File: s.name, Msg: fmt.Sprintf("record %d (byte offset %d): vertex id %d exceeds 2^63-1",
						(read+int64(i))/pair+1, read+int64(i), x)}
				}
			}
			ids = append(ids, x)
		}
		el.appendPairs(ids)
		read += int64(n)
		if err := s.guard(el.Len()); err != nil {
			return nil, err
		}
		switch err {
		case nil:
			continue
		case io.EOF:
			if read%pair != 0 {
				what := "file size"
				if s.gz {
					what = "decompressed size"
				}
				return nil, &InputError{File: s.name, Msg: fmt.Sprintf("%s %d bytes is not a multiple of %d (%s: pairs of %d-byte ids)",
					what, read, pair, s.format, width)}
			}
			return el, nil
		default:
			return nil, s.ioError(err)
		}
	}
}

// fill reads until buf is full or the stream ends. Unlike io.ReadFull it
// keeps a clean end (io.EOF) apart from a stream cut short inside, such as
// truncated gzip data (io.ErrUnexpectedEOF from the inflater).
func fill(r io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
