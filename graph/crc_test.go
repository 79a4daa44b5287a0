package graph

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestCRC32C: the parallel checksum equals hash/crc32's over writes of every
// size around the parallel threshold, in one write or several, and
// crcCombine joins any split.
func TestCRC32C(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, crcParallelMin*3+12345)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for _, n := range []int{0, 1, 100, crcParallelMin - 1, crcParallelMin, crcParallelMin + 7, len(data)} {
		want := crc32.Checksum(data[:n], castagnoli)
		c := newCRC32C()
		c.Write(data[:n])
		if c.Sum32() != want {
			t.Fatalf("%d bytes in one write: %08x, want %08x", n, c.Sum32(), want)
		}
		c.Reset()
		c.Write(data[:n/3])
		c.Write(data[n/3 : n-n/5])
		c.Write(data[n-n/5 : n])
		if c.Sum32() != want {
			t.Fatalf("%d bytes in three writes: %08x, want %08x", n, c.Sum32(), want)
		}
	}
	for range 200 {
		a, b := rng.IntN(5000), rng.IntN(5000)
		x, y := data[:a], data[a:a+b]
		if got, want := crcCombine(crc32.Checksum(x, castagnoli), crc32.Checksum(y, castagnoli), int64(b)), crc32.Checksum(data[:a+b], castagnoli); got != want {
			t.Fatalf("combine %d + %d: %08x, want %08x", a, b, got, want)
		}
		if got, want := newCRCShift(int64(b)).combine(crc32.Checksum(x, castagnoli), crc32.Checksum(y, castagnoli)), crc32.Checksum(data[:a+b], castagnoli); got != want {
			t.Fatalf("shift combine %d + %d: %08x, want %08x", a, b, got, want)
		}
	}
}
