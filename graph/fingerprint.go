package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"unsafe"
)

// Fingerprint identifies a CSR by its content: the same graph read from any
// format (text, Matrix Market, a CSR cache) has the same fingerprint, so the
// tuning store finds its measurements. It hashes the sizes and the CRC-32C
// of the offsets and of the adjacency (computed on all cores: a second for
// a billion edges on one core is too slow for count's store lookup, and two
// CRCs with the sizes make an accidental collision between real graphs
// unlikely enough for a cache key). An oriented file's CSR differs from the
// canonical graph's, so it has its own fingerprint.
func Fingerprint(c *CSR) string {
	var head [16]byte
	binary.LittleEndian.PutUint64(head[0:], uint64(c.N()))
	binary.LittleEndian.PutUint64(head[8:], uint64(len(c.Adj)))
	h := sha256.New()
	h.Write([]byte("tcgen-graph-v1"))
	h.Write(head[:])
	var sums [8]byte
	binary.LittleEndian.PutUint32(sums[0:], crcOf(u64Bytes(c.Offsets)))
	binary.LittleEndian.PutUint32(sums[4:], crcOf(u32Bytes(c.Adj)))
	h.Write(sums[:])
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func crcOf(b []byte) uint32 {
	c := newCRC32C()
	c.Write(b)
	return c.Sum32()
}

// u64Bytes and u32Bytes view a slice's memory as bytes (little-endian on
// the machines tcgen runs on, as the CSR file format is).
func u64Bytes(s []uint64) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 8*len(s))
}

func u32Bytes(s []uint32) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), 4*len(s))
}
