package graph

import (
	"encoding/binary"
	"fmt"
	"io"
	"slices"
)

// Packed adjacency sections (CacheMeta.Packed, `tcgen convert --pack`):
// each entry is stored in 3 little-endian bytes instead of 4, so a graph of
// at most MaxPackedVertices vertices, every id below 2^24, takes a quarter
// fewer bytes in its largest section. Loading a large oriented file onto
// the GPU is bound by host memory bandwidth (the page cache read, the
// staging buffers written, the DMA reading them: docs/performance.md,
// "Reading and uploading"), so fewer bytes is what makes it faster; the device
// unpacks the entries (runtime/executor/upload.go). Readers on the host unpack them
// on all cores.

// MaxPackedVertices is the most vertices a packed section can hold: ids
// of 24 bits.
const MaxPackedVertices = 1 << 24

// packedBytes is the size of a packed section of arcs entries, without
// the padding to 8 bytes.
func packedBytes(arcs uint64) uint64 { return 3 * arcs }

// writeU24s writes s in 3 bytes an entry, padded to 8 bytes; every entry
// must be below 2^24 (WriteCSR checks n).
func writeU24s(w io.Writer, s []uint32) error {
	const chunk = ioChunk / 4 // entries a write
	buf := make([]byte, 0, 3*chunk+8)
	pad := padTo8(packedBytes(uint64(len(s))))
	for len(s) > 0 {
		k := min(len(s), chunk)
		buf = buf[:0]
		for _, x := range s[:k] {
			buf = append(buf, byte(x), byte(x>>8), byte(x>>16))
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		s = s[k:]
	}
	if pad > 0 {
		_, err := w.Write(make([]byte, pad))
		return err
	}
	return nil
}

// readU24s reads a packed section of count entries and its padding from a
// stream, unpacking it as it comes: with the length not known, the slice
// grows with the data actually read.
func readU24s(r io.Reader, count uint64, known bool) ([]uint32, error) {
	const chunk = ioChunk / 4
	out := make([]uint32, 0, capHint(count, known))
	buf := make([]byte, 3*chunk)
	for rest := count; rest > 0; {
		k := min(rest, chunk)
		m, err := fill(r, buf[:3*k])
		if uint64(m) != 3*k {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		at := len(out)
		out = slices.Grow(out, int(k))[:at+int(k)]
		unpack24(out[at:], buf[:3*k])
		rest -= k
	}
	if pad := padTo8(packedBytes(count)); pad > 0 {
		if m, err := fill(r, buf[:pad]); uint64(m) != pad {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return out, nil
}

// unpack24 writes the entries src holds (3 bytes each) into dst.
func unpack24(dst []uint32, src []byte) {
	if len(src) != 3*len(dst) {
		panic(fmt.Sprintf("graph: unpacking %d bytes into %d entries", len(src), len(dst)))
	}
	le := binary.LittleEndian
	i := 0
	for ; i+4 <= len(dst); i += 4 { // 4 entries from 12 bytes, as 3 words
		b := src[3*i : 3*i+12]
		w0, w1, w2 := le.Uint32(b), le.Uint32(b[4:]), le.Uint32(b[8:])
		dst[i] = w0 & 0xffffff
		dst[i+1] = w0>>24 | (w1&0xffff)<<8
		dst[i+2] = w1>>16 | (w2&0xff)<<16
		dst[i+3] = w2 >> 8
	}
	for ; i < len(dst); i++ {
		b := src[3*i:]
		dst[i] = uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
	}
}

// unpack24Par is unpack24 on all cores, in pieces of 1 MiB of entries.
func unpack24Par(dst []uint32, src []byte) {
	const words = 1 << 18
	parReduce(len(dst), words, func() struct{} { return struct{}{} }, func(_ *struct{}, lo, hi int) {
		unpack24(dst[lo:hi], src[3*lo:3*hi])
	})
}
