package graph

import (
	"hash/crc32"
	"runtime"
	"sync"
)

// crc32c is the CSR file's checksum (CRC-32C) as a hash.Hash32 that
// checksums large writes on all cores: the pieces' CRCs are joined with
// crcCombine, so a large file's checksum is not bound by one core.
type crc32c struct{ crc uint32 }

// crcParallelMin is the write size from which pieces are checksummed in
// parallel; crcPiece is the size of a piece (at least 4 MiB, so joining, 32 x
// 32 bit operations per halving of the length, stays negligible).
const (
	crcParallelMin = 16 << 20
	crcPiece       = 4 << 20
)

func newCRC32C() *crc32c { return &crc32c{} }

func (c *crc32c) Write(p []byte) (int, error) {
	workers := runtime.GOMAXPROCS(0)
	if len(p) < crcParallelMin || workers < 2 {
		c.crc = crc32.Update(c.crc, castagnoli, p)
		return len(p), nil
	}
	n := max(workers, (len(p)+crcPiece*workers-1)/(crcPiece*workers)*workers)
	size := (len(p) + n - 1) / n
	sums := make([]uint32, n)
	var wg sync.WaitGroup
	for i := range n {
		lo := min(i*size, len(p))
		hi := min(lo+size, len(p))
		wg.Go(func() { sums[i] = crc32.Checksum(p[lo:hi], castagnoli) })
	}
	wg.Wait()
	for i, s := range sums {
		lo := min(i*size, len(p))
		hi := min(lo+size, len(p))
		c.crc = crcCombine(c.crc, s, int64(hi-lo))
	}
	return len(p), nil
}

func (c *crc32c) Sum32() uint32 { return c.crc }
func (c *crc32c) Reset()        { c.crc = 0 }
func (c *crc32c) Size() int     { return 4 }
func (c *crc32c) BlockSize() int {
	return 1
}
func (c *crc32c) Sum(b []byte) []byte {
	s := c.crc
	return append(b, byte(s>>24), byte(s>>16), byte(s>>8), byte(s))
}

// crcCombine returns the CRC-32C of A followed by B from crcA, crcB and the
// length of B: appending n zero bits to a CRC register is a linear map over
// GF(2), applied by squaring the one-bit map (the method zlib's
// crc32_combine describes).
func crcCombine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	var even, odd [32]uint32
	odd[0] = crc32.Castagnoli // the map of one zero bit
	for i, row := 1, uint32(1); i < 32; i, row = i+1, row<<1 {
		odd[i] = row
	}
	gf2Square(&even, &odd) // two zero bits
	gf2Square(&odd, &even) // four
	for {
		gf2Square(&even, &odd) // one zero byte, then two, four, ...
		if lenB&1 != 0 {
			crcA = gf2Times(&even, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
		gf2Square(&odd, &even)
		if lenB&1 != 0 {
			crcA = gf2Times(&odd, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
}

func gf2Times(m *[32]uint32, v uint32) uint32 {
	var s uint32
	for i := 0; v != 0; i, v = i+1, v>>1 {
		if v&1 != 0 {
			s ^= m[i]
		}
	}
	return s
}

func gf2Square(sq, m *[32]uint32) {
	for i := range 32 {
		sq[i] = gf2Times(m, m[i])
	}
}

// crcShift is the linear map that appending a fixed number of zero bytes
// applies to a CRC register: built once (as crcCombine builds it, composing
// maps instead of applying them), it joins each piece of that length with
// 32 operations. AdjCheck joins thousands of equal pieces of 256 KiB, where
// crcCombine's log2(length) squarings per piece would cost more than the
// checks themselves.
type crcShift [32]uint32

func newCRCShift(lenB int64) *crcShift {
	var m crcShift
	for i := range 32 {
		m[i] = 1 << i
	}
	if lenB <= 0 {
		return &m
	}
	var even, odd [32]uint32
	odd[0] = crc32.Castagnoli
	for i, row := 1, uint32(1); i < 32; i, row = i+1, row<<1 {
		odd[i] = row
	}
	gf2Square(&even, &odd)
	gf2Square(&odd, &even)
	apply := func(op *[32]uint32) {
		for i := range 32 {
			m[i] = gf2Times(op, m[i])
		}
	}
	for {
		gf2Square(&even, &odd)
		if lenB&1 != 0 {
			apply(&even)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
		gf2Square(&odd, &even)
		if lenB&1 != 0 {
			apply(&odd)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
	}
	return &m
}

// combine returns the CRC of A followed by B, B of the shift's length.
func (s *crcShift) combine(crcA, crcB uint32) uint32 {
	return gf2Times((*[32]uint32)(s), crcA) ^ crcB
}
