package autotune

import (
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/store"
)

// largeProfile is a SYNTHETIC graph for the cost model below: the shape
// that decides which plans of examples/spaces/large.yaml are fast. The
// eight profiles mirror the graphs examples/sweeps/record-large.yaml
// records (RMAT, grid, Erdos-Renyi, Chung-Lu, geometric, real), so the
// replay tests assert something until a recording of the space exists, and
// beside it afterwards.
type largeProfile struct {
	name, family string
	skew         float64 // 0: even degrees; 1: Graph500 RMAT's hubs
	local        float64 // how much the input ids keep neighbours close (grids, geometric graphs)
	deg          float64 // typical out-degree after degree orientation: where the cuts fall
	base         float64 // ms of a plain thread-per-edge merge
	block        int     // the block size the graph's kernels like best
	seed         uint64
}

// largeProfiles are named as the sweep names the graphs it mirrors.
var largeProfiles = []largeProfile{
	{"rmat14", "rmat", 1.0, 0.1, 12, 0.30, 256, 1},
	{"rmat13-ef32-s42", "rmat", 0.9, 0.1, 24, 0.35, 256, 2},
	{"grid300x300-diag", "grid", 0.0, 1.0, 3, 0.08, 128, 3},
	{"er-n40000-m320000-s42", "er", 0.05, 0.0, 6, 0.12, 256, 4},
	{"cl-n40000-d12-g2.1-s42", "chung-lu", 0.8, 0.0, 9, 0.20, 256, 5},
	{"rgg2d-n40000-d16-s42", "rgg", 0.1, 0.9, 10, 0.15, 512, 6},
	{"ca-AstroPh", "real", 0.5, 0.3, 14, 0.10, 256, 7},
	{"BlogCatalog3", "real", 0.85, 0.2, 30, 0.25, 128, 8},
}

// largeSyntheticRows is a SYNTHETIC recording of sp on profile pr: one row
// per point with three timed passes, as the record sweep measures them,
// times from largeTime with a fixed per-plan roughness (real landscapes
// are not smooth), 1% noise per pass and an occasional slow pass, and a few
// failed launches.
func largeSyntheticRows(sp *Space, pr largeProfile) []store.Row {
	rows := make([]store.Row, len(sp.Plans))
	for i, p := range sp.Plans {
		name := sp.Cands.Plans[i]
		h := fnv.New64a()
		h.Write([]byte(name))
		rng := rand.New(rand.NewPCG(h.Sum64(), pr.seed))
		// A count stands in for the graph's (every OK row must have it).
		row := store.Row{Graph: pr.name, GraphName: pr.name, GPU: "synthetic", Version: "synthetic", Plan: name, Runs: 3, Warmup: 1, Reference: pr.seed, Triangles: pr.seed}
		if rng.Float64() < 0.003 {
			row.Status, row.Reason = store.StatusLaunch, "synthetic launch failure"
			rows[i] = row
			continue
		}
		t := largeTime(p, pr) * math.Exp(0.03*rng.NormFloat64())
		row.Status = store.StatusOK
		for range row.Runs {
			s := t * (1 + 0.01*rng.NormFloat64())
			if rng.Float64() < 0.03 {
				s *= 1.3
			}
			row.Samples = append(row.Samples, s)
		}
		row.MedianMs = median(row.Samples)
		rows[i] = row
	}
	return rows
}

// largeTime is the cost model: each class's share of the work times its
// strategy's cost per unit of work at the class's list lengths, times the
// orientation's effect, plus a launch per class and the pivot's
// preparation. Its shape follows docs/performance.md: thread-per-edge
// merges (tiled on short lists) for light vertices, wide searches or
// hashes for heavy ones, the pivot's preparation dominant on small graphs,
// id order bad on skewed graphs and good where ids keep locality.
func largeTime(p ir.Plan, pr largeProfile) float64 {
	o := 1.0
	mu := pr.deg
	switch {
	case p.Orientation == ir.OrientID:
		o = (1 + 2.5*pr.skew*pr.skew) * (1 - 0.2*pr.local)
		mu *= 1 + 4*pr.skew // hubs keep their long lists
	case !p.Relabel:
		o = 1.08 * (1 - 0.2*pr.local)
	default:
		o = (1 - 0.1*pr.skew) * (1 + 0.1*pr.local)
	}
	t, pivot := 0.0, false
	for _, c := range p.Classes {
		lo, hi := float64(c.Select.Lo), float64(c.Select.Hi)
		if c.Select.Hi == 0 {
			hi = math.Inf(1)
		}
		share := largeWork(hi, mu) - largeWork(lo, mu)
		length := (lo + min(hi, 6*mu)) / 2
		if c.Select.Hi == 0 {
			length = lo + 2*mu
		}
		s := c.Strategy
		if s.Iterator == ir.IterPivot {
			pivot = true
		}
		t += pr.base * (share*largeCost(s, length, pr, p.Core) + 0.015)
	}
	if pivot {
		t += 0.35 * pr.base // its lists are built inside the timed pass
	}
	return o * t
}

// largeWork is the share of the work in items of out-degree below c, for
// out-degrees spread around mu (a gamma(2) distribution of the work).
func largeWork(c, mu float64) float64 {
	if c <= 0 {
		return 0
	}
	if math.IsInf(c, 1) {
		return 1
	}
	x := c / mu
	return 1 - math.Exp(-x)*(1+x)
}

// largeCost is a strategy's cost per unit of work on lists of about length
// entries: a bowl in each parameter around a best value that moves with
// the list length and the graph.
func largeCost(s ir.Strategy, length float64, pr largeProfile, core int) float64 {
	l2 := func(x float64) float64 { return math.Log2(max(x, 1)) }
	bowl := func(x, best, k float64) float64 { d := l2(x) - l2(best); return 1 + k*d*d }
	c := bowl(float64(s.EffectiveBlock()), float64(pr.block), 0.02)
	switch {
	case s.Intersection == ir.Merge:
		tile := float64(ir.Get(s, ir.ParamTile))
		best := 4.0
		if length >= 16 {
			best = 8
		}
		if length < 4 {
			best = 1
		}
		c *= bowl(tile, best, 0.04) * (1 - 0.15*min(l2(tile), 2)/2) * (1 + 0.004*length)
	case s.Intersection == ir.BinarySearch:
		best := min(max(math.Exp2(math.Round(l2(length/3))), 4), 32)
		c *= (0.55 + 0.7*math.Exp(-length/24)) * bowl(float64(s.EffectiveWidth()), best, 0.12)
	case s.Iterator == ir.IterVertex && s.Intersection == ir.Hash:
		w, b := 8.0, 32.0
		if length > 24 {
			w = 32
		}
		if length > 40 {
			b = 64
		}
		c *= (0.5 + 1.1*math.Exp(-length/40)) * bowl(float64(s.EffectiveWidth()), w, 0.04) *
			bowl(float64(ir.Get(s, ir.ParamBuckets)), b, 0.06)
	case s.Iterator == ir.IterPivot:
		table := 256.0
		if pr.deg*(1+pr.skew) > 20 {
			table = 1024
		}
		c *= (0.45 + 0.2*(1-pr.skew)) * bowl(float64(ir.Get(s, ir.ParamTable)), table, 0.05) *
			bowl(float64(ir.Get(s, ir.ParamItemWork)), 512, 0.02)
		if ir.Get(s, ir.ParamQueue) > 0 {
			c *= 1 - 0.08*pr.skew
		}
		if core > 0 {
			c *= 1 - 0.12*pr.skew + 0.06*(1-pr.skew)
		}
	}
	return c
}
