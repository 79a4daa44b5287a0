package graph

import (
	"context"
	"fmt"
	"math"
	"sort"
)

// SBM is the stochastic block model with planted communities: N vertices
// in blocks of consecutive ids (Blocks of equal size, the first N mod
// Blocks one larger, or the given Sizes), each pair inside a block joined
// with probability p_in and each pair across blocks with p_out, all
// independently. The probabilities come from the mean degrees asked:
// p_in = N*DegreeIn / (2*I) and p_out = N*DegreeOut / (2*O), I and O the
// numbers of inside and across pairs, so a vertex expects DegreeIn
// neighbours in its block and DegreeOut outside (on average over vertices
// when the sizes differ).
//
// Definition of the draws (linear in the edges): the inside pairs are
// ranked block after block, (u, v) of block b (local ids u < v) at
// C(s_0,2)+...+C(s_{b-1},2) + v(v-1)/2 + u; the across pairs block after
// block too, v of block b against each u of the earlier blocks at
// s_0*start_0+...+s_{b-1}*start_{b-1} + (v-start_b)*start_b + u. Each of
// the two rank ranges is cut into tasks of L = ceil(2^15/p) pairs (about
// 2^15 edges each); task t of the inside (across) range walks its pairs by
// geometric skipping with the splitmix64 stream at
// (Seed XOR sbmInKey (sbmOutKey))*0x100000001B3 + t*0xD1B54A32D192ED03:
// from the first untried pair, skip floor(ln U / ln(1-p)) pairs, U =
// (top 53 bits + 1) * 2^-53 in (0, 1], and take the next. That is exactly
// a Bernoulli(p) trial per pair. No loop or duplicate arises. The result
// is the same whatever the number of cores; math.Log's last bit may
// differ between architectures.
type SBM struct {
	N         uint64   // vertices
	Blocks    uint64   // number of equal blocks (or 0 with Sizes)
	Sizes     []uint64 // block sizes, summing to N (or nil with Blocks)
	DegreeIn  float64  // expected neighbours inside a vertex's block
	DegreeOut float64  // expected neighbours in other blocks
	Seed      uint64
}

// sbmTaskEdges is the expected number of edges of an SBM task: enough to
// amortise claiming it. A variable so that tests can cut the ranges into
// many small tasks, which must give the same distribution.
var sbmTaskEdges = float64(1 << 15)

// Validate reports parameters that cannot describe a graph. It allocates
// nothing, so it is cheap whatever the sizes asked.
func (p SBM) Validate() error {
	_, _, err := p.probs()
	return err
}

// probs checks p and returns p_in and p_out.
func (p SBM) probs() (pIn, pOut float64, err error) {
	if p.N > MaxVertices {
		return 0, 0, fmt.Errorf("sbm: %d vertices exceed the %d a graph can have", p.N, uint64(MaxVertices))
	}
	inside, err := p.insidePairs()
	if err != nil {
		return 0, 0, err
	}
	n := float64(p.N)
	if pIn, err = sbmProb("degree-in", p.DegreeIn, n, inside, "inside blocks"); err != nil {
		return 0, 0, err
	}
	pOut, err = sbmProb("degree-out", p.DegreeOut, n, choose2(p.N)-inside, "across blocks")
	return pIn, pOut, err
}

// insidePairs checks the blocks and returns the number of pairs inside
// them, without laying them out.
func (p SBM) insidePairs() (uint64, error) {
	if len(p.Sizes) == 0 {
		k := p.Blocks
		if p.N == 0 {
			return 0, fmt.Errorf("sbm: 0 vertices; need at least 1")
		}
		if k == 0 || k > p.N {
			return 0, fmt.Errorf("sbm: %d blocks for %d vertices; need 1 to %d", k, p.N, p.N)
		}
		q, rem := p.N/k, p.N%k // rem blocks of q+1, the others of q
		return rem*choose2(q+1) + (k-rem)*choose2(q), nil
	}
	if p.Blocks != 0 && p.Blocks != uint64(len(p.Sizes)) {
		return 0, fmt.Errorf("sbm: %d blocks but %d sizes", p.Blocks, len(p.Sizes))
	}
	var sum, inside uint64
	for b, s := range p.Sizes {
		if s == 0 {
			return 0, fmt.Errorf("sbm: block %d is empty", b)
		}
		if s > p.N-sum {
			return 0, fmt.Errorf("sbm: block sizes exceed the %d vertices", p.N)
		}
		sum += s
		inside += choose2(s)
	}
	if sum != p.N {
		return 0, fmt.Errorf("sbm: block sizes sum to %d, not the %d vertices", sum, p.N)
	}
	return inside, nil
}

// sbmLayout is where the blocks and the two rank ranges lie.
type sbmLayout struct {
	start  []uint64 // block b is start[b] to start[b+1]-1
	inOff  []uint64 // block b's inside pairs start at rank inOff[b]
	outOff []uint64 // block b's across pairs start at rank outOff[b]
}

// layout lays out the blocks of a valid p.
func (p SBM) layout() *sbmLayout {
	k := max(p.Blocks, uint64(len(p.Sizes)))
	l := &sbmLayout{start: make([]uint64, k+1), inOff: make([]uint64, k+1), outOff: make([]uint64, k+1)}
	for b := range k {
		s := p.N/k + b2u(b < p.N%k)
		if len(p.Sizes) > 0 {
			s = p.Sizes[b]
		}
		l.start[b+1] = l.start[b] + s
		l.inOff[b+1] = l.inOff[b] + choose2(s)
		l.outOff[b+1] = l.outOff[b] + s*l.start[b] // < C(N,2): no overflow
	}
	return l
}

// sbmProb is the pair probability giving mean degree d over n vertices
// with pairs pairs, or why there is none.
func sbmProb(name string, d, n float64, pairs uint64, where string) (float64, error) {
	if !(d >= 0 && d <= math.MaxFloat64) {
		return 0, fmt.Errorf("sbm: %s %g must be a non-negative number", name, d)
	}
	if d == 0 {
		return 0, nil
	}
	if pairs == 0 {
		return 0, fmt.Errorf("sbm: %s %g but there are no pairs %s", name, d, where)
	}
	if p := n * d / 2 / float64(pairs); p <= 1 {
		return p, nil
	}
	return 0, fmt.Errorf("sbm: %s %g exceeds %g, every pair %s", name, d, 2*float64(pairs)/n, where)
}

// sbmRange is one of the two rank ranges with its task cut.
type sbmRange struct {
	pairs, per, tasks uint64
	p, logq           float64 // probability and ln(1-p)
	key               uint64
}

func newSBMRange(pairs uint64, p float64, key uint64) sbmRange {
	r := sbmRange{pairs: pairs, p: p, logq: math.Log1p(-p), key: key}
	if p == 0 || pairs == 0 {
		return r
	}
	per := math.Ceil(sbmTaskEdges / p)
	r.per = pairs
	if per < float64(pairs) {
		r.per = max(1, uint64(per))
	}
	r.tasks = (pairs + r.per - 1) / r.per
	return r
}

// walk calls emit with the ranks of task t's pairs that are drawn.
func (r *sbmRange) walk(seed uint64, t uint64, emit func(x uint64)) {
	lo := t * r.per
	hi := min(lo+r.per, r.pairs)
	st := genStream(seed, r.key, t)
	for next := lo; ; {
		u := float64(splitmix64(&st)>>11+1) * 0x1p-53
		skip := math.Log(u) / r.logq // 0 when p = 1 (ln u / -Inf)
		if !(skip < float64(hi-next)) {
			return
		}
		x := next + uint64(skip)
		emit(x)
		next = x + 1
	}
}

// blockAt returns the block whose range in off holds rank x.
func blockAt(off []uint64, x uint64) int {
	return sort.Search(len(off)-1, func(b int) bool { return off[b+1] > x })
}

// EdgeList returns the inside edges (tasks in rank order), then the
// across ones.
func (p SBM) EdgeList() (*EdgeList, error) { return p.EdgeListContext(context.Background()) }

// EdgeListContext implements ContextGenerator: ctx is checked at every
// task of pairs.
func (p SBM) EdgeListContext(ctx context.Context) (*EdgeList, error) {
	pIn, pOut, err := p.probs()
	if err != nil {
		return nil, err
	}
	l := p.layout()
	k := len(l.start) - 1
	in := newSBMRange(l.inOff[k], pIn, sbmInKey)
	out := newSBMRange(l.outOff[k], pOut, sbmOutKey)
	// A task expects sbmTaskEdges edges or fewer (one task a range at
	// most); the binomial spread is a few hundred.
	hint := min(sbmTaskEdges*1.05, p.ExpectedEdges()*1.05+64)
	return collect(ctx, int(in.tasks+out.tasks), hint, func(t int, buf []uint32) []uint32 {
		b := 0
		if uint64(t) < in.tasks {
			in.walk(p.Seed, uint64(t), func(x uint64) {
				if x >= l.inOff[b+1] {
					b = blockAt(l.inOff, x)
				}
				u, v := unrankPair(x - l.inOff[b])
				buf = append(buf, uint32(l.start[b]+u), uint32(l.start[b]+v))
			})
			return buf
		}
		out.walk(p.Seed, uint64(t)-in.tasks, func(x uint64) {
			if x >= l.outOff[b+1] {
				b = blockAt(l.outOff, x)
			}
			r := x - l.outOff[b]
			buf = append(buf, uint32(r%l.start[b]), uint32(l.start[b]+r/l.start[b]))
		})
		return buf
	})
}

// ExpectedEdges is N*(DegreeIn+DegreeOut)/2.
func (p SBM) ExpectedEdges() float64 {
	return float64(p.N) * (p.DegreeIn + p.DegreeOut) / 2
}

// EstimateBytes is the peak of the layout, the task buffers, the records
// (their expected count plus a twentieth, well past the binomial count's
// deviation, a square root) and Build.
func (p SBM) EstimateBytes() uint64 {
	if p.Validate() != nil {
		return math.MaxUint64
	}
	m := p.ExpectedEdges()*1.05 + 1024
	blocks := max(p.Blocks, uint64(len(p.Sizes)))
	gen := satAdd(satMul(blocks+1, 24), floatBytes(m, recordBytes+collectBytes))
	gen = satAdd(gen, floatBytes(m/sbmTaskEdges+2, 24)) // a buffer header a task
	return peakBytes(gen, floatBytes(m, 1), p.N)
}
