package graph

import (
	"context"
	"math"
	"math/bits"
)

// Stream keys of the newer generators: XORed into the seed so that two
// generators, or two uses within one, given the same seed draw unrelated
// streams. Arbitrary distinct constants with well-mixed bits; they are part
// of each graph's definition.
const (
	baKey        = 0x8a5cd789635d2dff
	wsKey        = 0x121fd2155c472f97
	rggKey       = 0x5bd1e9955bd1e995
	permKey      = 0x27d4eb2f165667c5
	clKey        = 0x165667b19e3779f9
	sbmInKey     = 0x85ebca77c2b2ae63
	sbmOutKey    = 0x9e3779b185ebca87
	roadKey      = 0xc2b2ae3d27d4eb4f
	roadLinksKey = 0x94d049bb133111eb
)

// genStream is the splitmix64 state of draw i of a generator: the RMAT
// placement (seed*0x100000001B3 + i*0xD1B54A32D192ED03) with the seed
// XORed with the generator's key.
func genStream(seed, key, i uint64) uint64 {
	return (seed^key)*rmatSeedMul + i*rmatSampleMul
}

// unitDraw returns a uniform float64 in [0, 1): the top 53 bits of the next
// splitmix64 output times 2^-53 (exact, so the same on every machine).
func unitDraw(st *uint64) float64 {
	return float64(splitmix64(st)>>11) * 0x1p-53
}

// genTask is the number of records a worker fills at a time in the
// generators that place records by index: well over the cost of claiming a
// task, and a divisor of edgeChunkPairs so that a task never straddles two
// EdgeList chunks.
const genTask = 1 << 16

// fillByIndex returns an EdgeList of m records filled in parallel: body
// gets the index of a task's first record and the slice u0 v0 u1 v1 ... of
// its records to write. Records depend only on their index, so the list is
// the same whatever the number of cores. Workers stop claiming tasks once
// ctx is done, and ctx.Err() is returned.
func fillByIndex(ctx context.Context, m uint64, body func(first uint64, buf []uint64)) (*EdgeList, error) {
	el := newSizedEdgeList(m)
	tasks := (m + genTask - 1) / genTask
	parForCtx(ctx, int(tasks), 1, func(t, _ int) {
		first := uint64(t) * genTask
		n := min(genTask, m-first)
		off := 2 * (first % edgeChunkPairs)
		body(first, el.chunks[first/edgeChunkPairs][off:off+2*n])
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return el, nil
}

// collect builds an EdgeList from tasks whose record counts are not known
// in advance: body(t, buf) appends task t's records to buf as ids u0 v0 u1
// v1 ... (below 2^32) and returns it, and the lists are concatenated in
// task order, so the result does not depend on the number of cores. The
// work is done once; the buffers cost 8 bytes a record (plus append's
// slack) beside the list's 16 until they are copied, about Build's own
// peak of 24. hint is the records a task is expected to have (buf's
// initial room, which spares most regrowth). Workers stop claiming tasks
// once ctx is done, and ctx.Err() is returned.
func collect(ctx context.Context, tasks int, hint float64, body func(t int, buf []uint32) []uint32) (*EdgeList, error) {
	bufs := make([][]uint32, tasks)
	room := int(min(max(2*hint, 0), 1<<24)) // 1<<24 ids: a 64 MiB ceiling for an overestimated hint
	parForCtx(ctx, tasks, 1, func(t, _ int) { bufs[t] = body(t, make([]uint32, 0, room)) })
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	off := make([]uint64, tasks+1)
	for t, b := range bufs {
		off[t+1] = off[t] + uint64(len(b)/2)
	}
	el := newSizedEdgeList(off[tasks])
	parFor(tasks, 1, func(t, _ int) {
		for k, i := 0, off[t]; k+1 < len(bufs[t]); k, i = k+2, i+1 {
			el.set(i, uint64(bufs[t][k]), uint64(bufs[t][k+1]))
		}
		bufs[t] = nil
	})
	return el, nil
}

// Sizes in bytes for EstimateBytes.
const (
	recordBytes = 16 // an EdgeList record: two uint64 ids
	// collectBytes is a record in collect's buffers: two uint32 ids, plus
	// a quarter for the slack append leaves (it grows large slices by
	// about 1.25).
	collectBytes = 10
)

// peakBytes is the peak of a generator whose own scratch (gen bytes, the
// EdgeList included) is released before Build runs on its records
// (buildBytes, memory.go).
func peakBytes(gen, records, labels uint64) uint64 {
	return max(gen, buildBytes(records, labels))
}

// satMul and satAdd saturate at the largest uint64 instead of wrapping, so
// an estimate of an absurd size stays absurd.
func satMul(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

func satAdd(a, b uint64) uint64 {
	s, c := bits.Add64(a, b, 0)
	if c != 0 {
		return math.MaxUint64
	}
	return s
}

// floatBytes converts an expected count to bytes at per bytes each,
// saturating (the float may exceed 2^64 for parameters Validate refuses).
func floatBytes(x float64, per uint64) uint64 {
	if !(x < 0x1p63) { // also NaN
		return math.MaxUint64
	}
	return satMul(uint64(max(x, 0)), per)
}

// validProb reports whether p is a probability (NaN is not).
func validProb(p float64) bool { return p >= 0 && p <= 1 }

// permuter is a seeded pseudo-random permutation of [0, n) that any core
// can evaluate at any point without tables: a four-round Feistel network
// on the smallest even number of bits covering n, with cycle walking (a
// value that leaves [0, n) is encrypted again until it is back), so each
// point costs a few hashes and no memory.
type permuter struct {
	n, seed uint64
	half    uint // bits of each Feistel half
}

func newPermuter(n, seed uint64) permuter {
	b := uint(bits.Len64(max(n, 2) - 1))
	return permuter{n: n, seed: seed, half: (b + 1) / 2}
}

// at returns the image of x < n.
func (p permuter) at(x uint64) uint64 {
	mask := uint64(1)<<p.half - 1
	for {
		l, r := x>>p.half, x&mask
		for round := range uint64(4) {
			st := genStream(p.seed, permKey, r<<2|round)
			l, r = r, l^(splitmix64(&st)&mask)
		}
		x = l<<p.half | r
		if x < p.n {
			return x
		}
	}
}
