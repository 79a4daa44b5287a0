package graph

import (
	"hash"
	"io"
	"os"
	"unsafe"
)

// mappedReader serves a CSR file that is mapped into memory (ReadOptions.Map,
// cache_map_linux.go): Read copies like any reader, and take hands out the
// mapped bytes themselves, so readU64s and readU32s return slices that point
// into the mapping instead of copies (no allocation, zeroing and copy of
// the file's largest sections). Both feed the file's checksum.
type mappedReader struct {
	data []byte
	off  int
	crc  hash.Hash32 // set by readCSRFrom
	f    *os.File    // the file mapped, for AdjCheck's reads
}

func (m *mappedReader) Read(p []byte) (int, error) {
	if m.off >= len(m.data) {
		return 0, io.EOF
	}
	n := copy(p, m.data[m.off:])
	if m.crc != nil {
		m.crc.Write(p[:n])
	}
	m.off += n
	return n, nil
}

// take returns the next k mapped bytes, or io.ErrUnexpectedEOF when fewer
// are left.
func (m *mappedReader) take(k uint64) ([]byte, error) {
	if k > uint64(len(m.data)-m.off) {
		m.off = len(m.data)
		return nil, io.ErrUnexpectedEOF
	}
	b := m.data[m.off : m.off+int(k)]
	if m.crc != nil {
		m.crc.Write(b)
	}
	m.off += int(k)
	return b, nil
}

// mappedSlice views the next count elements of type T in a mapped file, or
// returns ok false when r is not mapped or the bytes are misaligned for T.
func mappedSlice[T uint32 | uint64](r io.Reader, count uint64) (s []T, ok bool, err error) {
	m, isMapped := r.(*mappedReader)
	if !isMapped || !littleEndian || count == 0 {
		return nil, false, nil
	}
	size := uint64(unsafe.Sizeof(T(0)))
	if m.off < len(m.data) && uintptr(unsafe.Pointer(&m.data[m.off]))%uintptr(size) != 0 {
		return nil, false, nil
	}
	b, err := m.take(size * count)
	if err != nil {
		return nil, true, err
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), count), true, nil
}
