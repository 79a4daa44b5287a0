package graph

import (
	"context"
	"fmt"
	"math"
)

// Graph500 RMAT defaults: the Kronecker initiator (a, b, c, d = .57, .19,
// .19, .05), edge factor and seed of the Graph500 benchmark, the values
// other codes' published RMAT timings were measured with.
const (
	DefaultRMATEdgeFactor = 16
	DefaultRMATSeed       = 42
	DefaultRMATA          = 0.57
	DefaultRMATB          = 0.19
	DefaultRMATC          = 0.19
)

// Constants of tcgen's RMAT definition. They are part of
// the graph's identity: change one and every check value changes.
const (
	// rmatScrambleKey is XORed into the seed to start the label shuffle's
	// stream, so that it is unrelated to the sample streams.
	rmatScrambleKey = 0xabcdef12345
	// rmatSeedMul (the 64-bit FNV prime) and rmatSampleMul (an odd constant
	// with well-mixed bits) place sample e's stream at
	// seed*rmatSeedMul + e*rmatSampleMul, so streams of different samples
	// and seeds start far apart.
	rmatSeedMul   = 0x100000001B3
	rmatSampleMul = 0xD1B54A32D192ED03
	// rmatMaxScale keeps vertex labels below 2^32, the range of dense ids.
	rmatMaxScale = 32
	// rmatSumSlack is the rounding error tolerated in a+b+c <= 1: a few
	// float64 ulps of 1 would do; 1e-9 also forgives inputs printed with
	// nine digits.
	rmatSumSlack = 1e-9
	// rmatTask is the number of samples a worker claims at a time: scale
	// splitmix calls each, so a task is a few milliseconds of work, and
	// there are enough tasks to balance cores from scale 12 up. It divides
	// edgeChunkPairs, so a task never straddles two EdgeList chunks.
	rmatTask = 1 << 16
)

// splitmix64 advances the state *x and returns the next output of Steele,
// Lea and Flood's SplitMix64 (the constants are the published ones: the
// golden-ratio increment and the two finaliser multipliers).
func splitmix64(x *uint64) uint64 {
	*x += 0x9E3779B97F4A7C15
	z := *x
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// RMAT describes a Graph500-style recursive-matrix graph, defined exactly
// as below so that tcgen's RMAT graphs are the very graphs other codes
// were measured on:
//
//   - n = 2^Scale vertex labels, m = EdgeFactor*n samples.
//   - Labels are shuffled: perm = 0..n-1; with state ps = Seed XOR
//     0xabcdef12345, for i = n-1 down to 1: j = splitmix64(ps) mod (i+1),
//     swap perm[i], perm[j].
//   - Sample e has its own state st = Seed*0x100000001B3 +
//     e*0xD1B54A32D192ED03 (mod 2^64). Starting from u = v = 0, Scale
//     times: r = (splitmix64(st) >> 11) * 2^-53, and the bits (bu, bv) are
//     (0,0) if r < A, (0,1) if r < A+B, (1,0) if r < A+B+C, else (1,1);
//     u = 2u+bu, v = 2v+bv. The record is (perm[u], perm[v]).
//
// The raw records contain loops and duplicates; Build (or Generate) turns
// them into the canonical graph, dropping isolated labels too.
type RMAT struct {
	Scale      int     // log2 of the number of vertex labels, 1..32
	EdgeFactor int     // samples per vertex label
	Seed       uint64  // selects the graph
	A, B, C    float64 // initiator probabilities; D = 1-A-B-C
}

// DefaultRMAT returns the Graph500 parameters at the given scale.
func DefaultRMAT(scale int) RMAT {
	return RMAT{Scale: scale, EdgeFactor: DefaultRMATEdgeFactor, Seed: DefaultRMATSeed,
		A: DefaultRMATA, B: DefaultRMATB, C: DefaultRMATC}
}

// Validate reports parameters that cannot describe a graph.
func (p RMAT) Validate() error {
	if p.Scale < 1 || p.Scale > rmatMaxScale {
		return fmt.Errorf("rmat: scale %d out of range 1..%d", p.Scale, rmatMaxScale)
	}
	if p.EdgeFactor < 1 {
		return fmt.Errorf("rmat: edge factor %d must be at least 1", p.EdgeFactor)
	}
	if uint64(p.EdgeFactor) > math.MaxUint64>>p.Scale {
		return fmt.Errorf("rmat: edge factor %d at scale %d overflows the sample count", p.EdgeFactor, p.Scale)
	}
	for _, x := range []float64{p.A, p.B, p.C} {
		if !(x >= 0 && x <= 1) { // also rejects NaN
			return fmt.Errorf("rmat: probabilities a=%g b=%g c=%g must lie in [0, 1]", p.A, p.B, p.C)
		}
	}
	// A sum of decimal inputs that should be 1 can round just above it
	// ((0.34+0.55)+0.11); that only means d = 0, so allow rounding-sized excess.
	if p.A+p.B+p.C > 1+rmatSumSlack {
		return fmt.Errorf("rmat: a+b+c = %g exceeds 1", p.A+p.B+p.C)
	}
	return nil
}

// Samples returns the number of raw records, EdgeFactor * 2^Scale.
func (p RMAT) Samples() uint64 { return uint64(p.EdgeFactor) << p.Scale }

// EdgeList generates the raw records, in sample order. Samples are computed
// in parallel into a preallocated list; each depends only on its index, so
// the list is the same whatever the number of cores.
func (p RMAT) EdgeList() (*EdgeList, error) { return p.EdgeListContext(context.Background()) }

// EdgeListContext implements ContextGenerator: ctx is checked at every
// task of samples.
func (p RMAT) EdgeListContext(ctx context.Context) (*EdgeList, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	perm := rmatPerm(ctx, p.Scale, p.Seed)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := p.Samples()
	el := newSizedEdgeList(m)
	// The definition compares r = k * 2^-53 (k = splitmix64 >> 11, an
	// integer below 2^53) with the float64 cumulative sums a, a+b, a+b+c.
	// Scaling by 2^53 is exact, and for an integer k, k < T iff k <
	// ceil(T); so the same decisions are integer compares against
	// rmatThreshold's values, which the quadrant bits then follow without a
	// branch (the 57/19/19/5 split defeats branch prediction; this halved
	// the generation time).
	k1, k2, k3 := rmatThreshold(p.A), rmatThreshold(p.A+p.B), rmatThreshold(p.A+p.B+p.C)
	seedBase := p.Seed * rmatSeedMul
	scale := p.Scale
	tasks := (m + rmatTask - 1) / rmatTask
	parForCtx(ctx, int(tasks), 1, func(lo, _ int) {
		first := uint64(lo) * rmatTask
		last := min(first+rmatTask, m)
		buf := el.chunks[first/edgeChunkPairs][2*(first%edgeChunkPairs):]
		for e := first; e < last; e++ {
			st := seedBase + e*rmatSampleMul
			var u, v uint64
			for range scale {
				k := splitmix64(&st) >> 11
				ge1, ge2, ge3 := b2u(k >= k1), b2u(k >= k2), b2u(k >= k3)
				// Quadrants in order (0,0), (0,1), (1,0), (1,1): bu is
				// set from the third on, bv in the second and fourth.
				u = 2*u + ge2
				v = 2*v + (ge1 ^ ge2 ^ ge3)
			}
			buf[0], buf[1] = uint64(perm[u]), uint64(perm[v])
			buf = buf[2:]
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return el, nil
}

// rmatThreshold returns ceil(t * 2^53): for k < 2^53, k < rmatThreshold(t)
// exactly when float64(k) * 2^-53 < t. t is in [0, 1], so the result is at
// most 2^53.
func rmatThreshold(t float64) uint64 {
	return uint64(math.Ceil(t * 0x1p53))
}

// b2u is 1 for true, 0 for false; the compiler makes it a SETcc, no branch.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// rmatPerm is the label shuffle of the definition (a Fisher-Yates shuffle
// driven by one splitmix64 stream; inherently sequential). A done ctx
// stops it, checked every 2^20 swaps (a few milliseconds).
func rmatPerm(ctx context.Context, scale int, seed uint64) []uint32 {
	n := uint64(1) << scale
	perm := make([]uint32, n)
	for i := range perm {
		perm[i] = uint32(i)
	}
	ps := seed ^ rmatScrambleKey
	for i := n - 1; i >= 1; i-- {
		if i&(1<<20-1) == 0 && ctx.Err() != nil {
			return perm
		}
		j := splitmix64(&ps) % (i + 1)
		perm[i], perm[j] = perm[j], perm[i]
	}
	return perm
}

// newSizedEdgeList returns an EdgeList of m records, all zero, laid out in
// the same chunks Add would have made, for generators that fill records in
// parallel by index.
func newSizedEdgeList(m uint64) *EdgeList {
	el := &EdgeList{n: m}
	for left := m; left > 0; {
		k := min(left, edgeChunkPairs)
		el.chunks = append(el.chunks, make([]uint64, 2*k))
		left -= k
	}
	return el
}

// set overwrites record i of a list made by newSizedEdgeList.
func (l *EdgeList) set(i, u, v uint64) {
	c := l.chunks[i/edgeChunkPairs]
	j := 2 * (i % edgeChunkPairs)
	c[j], c[j+1] = u, v
}
