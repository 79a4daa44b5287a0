package graph

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// RandomGeometric is the random geometric graph: N points uniform in the
// unit square (Dim 2) or cube (Dim 3), two joined when they lie closer than
// a radius r, either Radius or the radius that makes the expected mean
// degree Degree (exactly one of the two is set).
//
// Definition: point i draws its coordinates x_1..x_Dim, in that order, from
// the splitmix64 stream at (Seed XOR rggKey)*0x100000001B3 +
// i*0xD1B54A32D192ED03, each the top 53 bits times 2^-53. Points i and j
// are joined when the squared distance, the float64 sum in coordinate order
// of the rounded squares of the differences, is below the rounded r*r. With
// Torus the square wraps around: each difference d becomes min(|d|, 1-|d|).
//
// The expected degree is (N-1)*A(r), A(r) the chance that a random point
// lies within r of another: on the torus pi r^2 or 4/3 pi r^3 (r <= 1/2);
// in the unit square pi r^2 - 8/3 r^3 + 1/2 r^4, in the unit cube
// 4/3 pi r^3 - 3/2 pi r^4 + 8/5 r^5 - 1/6 r^6 (r <= 1; the integral of the
// overlap of the two boxes). Degree picks r by bisection on these.
//
// Vertex ids keep spatial locality: the cube is cut into g^Dim cells of
// side 1/g >= r, g = floor(1/(r*(1+1e-9))) but at most the integer
// Dim-th root of N and at least 1, and 1 instead of 2 on the torus (where
// a cell's two neighbours along an axis would be one); point i lies in
// cell c_1 + g*(c_2 +
// g*c_3), c_k = min(floor(x_k*g), g-1) (x fastest). Points are numbered
// in increasing (cell, i) order, so neighbours get ids within about two
// rows (2D) or planes (3D) of cells of each other. With Shuffle the id j
// becomes a seeded pseudo-random permutation of it (permuter), for
// kernels that should not profit from that locality.
//
// Pairs are found in the cells, each cell against itself and half of its
// 3^Dim-1 neighbours (the other half meet it from their side), so the work
// is linear in N plus the edges. The same
// parameters give the same graph whatever the number of cores (and, since
// only exact float64 operations are used, on every machine).
type RandomGeometric struct {
	N       uint64  // points
	Dim     int     // 2 or 3
	Radius  float64 // in (0, 1/2] on the torus, (0, 1] in the unit cube; or 0
	Degree  float64 // expected mean degree, in (0, (N-1)*A(rmax)]; or 0
	Torus   bool    // wrap around the borders (no boundary effect on degrees)
	Shuffle bool    // randomise vertex ids instead of keeping locality
	Seed    uint64
}

// rggCellSlack makes the cells a little wider than r, so that two points
// closer than r lie in adjacent cells even after x*g rounds.
const rggCellSlack = 1e-9

// rggMaxRadius is the largest radius allowed: on the torus a ball of radius
// 1/2 still does not overlap itself, and the area formulas hold up to there;
// in the cube those of the box overlap hold up to 1.
func (p RandomGeometric) rggMaxRadius() float64 {
	if p.Torus {
		return 0.5
	}
	return 1
}

// area is A(r), the chance that two random points lie within r. The
// conversions round each term, so that no machine fuses a multiply into
// the sum and the radius bisected from it is the same everywhere.
func (p RandomGeometric) area(r float64) float64 {
	r2, r3 := r*r, r*r*r
	switch {
	case p.Dim == 2 && p.Torus:
		return math.Pi * r2
	case p.Dim == 2:
		return float64(math.Pi*r2) - float64(8.0/3*r3) + float64(r2*r2/2)
	case p.Torus:
		return 4.0 / 3 * math.Pi * r3
	default:
		return float64(4.0/3*math.Pi*r3) - float64(1.5*math.Pi*r2*r2) + float64(1.6*r2*r3) - float64(r3*r3/6)
	}
}

// Validate reports parameters that cannot describe a graph.
func (p RandomGeometric) Validate() error {
	if p.N > MaxVertices {
		return fmt.Errorf("rgg: %d vertices exceed the %d a graph can have", p.N, uint64(MaxVertices))
	}
	if p.Dim != 2 && p.Dim != 3 {
		return fmt.Errorf("rgg: dimension %d must be 2 or 3", p.Dim)
	}
	rmax := p.rggMaxRadius()
	dmax := float64(max(p.N, 1)-1) * p.area(rmax)
	switch {
	case (p.Radius != 0) == (p.Degree != 0):
		return errors.New("rgg: give exactly one of radius and degree, a positive number")
	case p.Radius != 0 && !(p.Radius > 0 && p.Radius <= rmax):
		return fmt.Errorf("rgg: radius %g must lie in (0, %g]", p.Radius, rmax)
	case p.Degree != 0 && p.N < 2:
		return fmt.Errorf("rgg: a mean degree needs at least 2 vertices, not %d", p.N)
	case p.Degree != 0 && !(p.Degree > 0 && p.Degree <= dmax):
		return fmt.Errorf("rgg: mean degree %g must lie in (0, %.6g] for %d vertices", p.Degree, dmax, p.N)
	}
	return nil
}

// radius returns Radius, or the radius whose expected mean degree is
// Degree: bisection on the increasing (N-1)*A(r) over [0, rmax], run until
// the interval stops shrinking.
func (p RandomGeometric) radius() float64 {
	if p.Radius != 0 {
		return p.Radius
	}
	lo, hi := 0.0, p.rggMaxRadius()
	for {
		mid := (lo + hi) / 2
		if mid <= lo || mid >= hi {
			return hi
		}
		if float64(p.N-1)*p.area(mid) < p.Degree {
			lo = mid
		} else {
			hi = mid
		}
	}
}

// ExpectedEdges is C(N,2)*A(r).
func (p RandomGeometric) ExpectedEdges() float64 {
	n := float64(p.N)
	return n * (n - 1) / 2 * p.area(p.radius())
}

// cellsPerSide is g of the definition.
func (p RandomGeometric) cellsPerSide(r float64) uint64 {
	g := uint64(1)
	if f := 1 / (r * (1 + rggCellSlack)); f >= 2 {
		g = uint64(min(f, 1<<32))
	}
	root := uint64(1) // the integer Dim-th root of N
	for pow(root+1, p.Dim) <= p.N {
		root++
		if g <= root {
			break // no need to know the root past g
		}
	}
	g = max(1, min(g, root))
	if g == 2 && p.Torus {
		g = 1 // both neighbours of a cell would be the other cell
	}
	return g
}

// pow is x^d, saturated.
func pow(x uint64, d int) uint64 {
	y := uint64(1)
	for range d {
		y = satMul(y, x)
	}
	return y
}

// point writes point i's coordinates to xs.
func (p RandomGeometric) point(i uint64, xs []float64) {
	st := genStream(p.Seed, rggKey, i)
	for k := range xs {
		xs[k] = unitDraw(&st)
	}
}

// cellOf is the cell index of coordinates xs on a grid of g per side.
func cellOf(xs []float64, g uint64) uint64 {
	c := uint64(0)
	for k := len(xs) - 1; k >= 0; k-- {
		c = c*g + min(uint64(xs[k]*float64(g)), g-1)
	}
	return c
}

// rggTaskPoints: an edge task takes about this many points' cells, enough
// to amortise claiming it, small enough to balance dense and sparse parts.
const rggTaskPoints = 1 << 13

// EdgeList returns one record per joined pair, cell by cell.
func (p RandomGeometric) EdgeList() (*EdgeList, error) {
	return p.EdgeListContext(context.Background())
}

// EdgeListContext implements ContextGenerator: ctx is checked at every
// task of points (drawing, sorting, placing them) and of cells.
func (p RandomGeometric) EdgeListContext(ctx context.Context) (*EdgeList, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s := p.newSpace(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cells := pow(s.g, p.Dim)
	per := max(1, rggTaskPoints*cells/max(p.N, 1))
	tasks := int((cells + per - 1) / per)
	// A task's expected edges: its share of them, a tenth more for the
	// spread between tasks.
	hint := p.ExpectedEdges() / float64(tasks) * 1.1
	return collect(ctx, tasks, hint, func(t int, buf []uint32) []uint32 {
		buf = s.pairs(uint64(t)*per, min(uint64(t+1)*per, cells), buf)
		if s.ids != nil {
			for k, j := range buf {
				buf[k] = s.ids[j]
			}
		}
		return buf
	})
}

// rggSpace is the sorted point set of a RandomGeometric graph.
type rggSpace struct {
	dim   int
	g     uint64
	torus bool
	r2    float64   // the rounded r*r
	pts   []float64 // coordinates of point j (in id order) at j*dim
	start []uint32  // cell c holds points start[c] to start[c+1]-1
	ids   []uint32  // with Shuffle, the id of point j; else nil
}

// newSpace draws the points, sorts them by (cell, index) and lays out the
// cells, all in parallel; once ctx is done it stops early, and the caller
// must check ctx and drop the result.
func (p RandomGeometric) newSpace(ctx context.Context) *rggSpace {
	r := p.radius()
	s := &rggSpace{dim: p.Dim, g: p.cellsPerSide(r), torus: p.Torus, r2: float64(r * r)}
	n := p.N
	cells := pow(s.g, p.Dim)
	keys := make([]uint64, n)
	parForCtx(ctx, int(n), genTask, func(lo, hi int) {
		var xs [3]float64
		for i := lo; i < hi; i++ {
			p.point(uint64(i), xs[:p.Dim])
			keys[i] = cellOf(xs[:p.Dim], s.g)<<32 | uint64(i)
		}
	})
	keys, _ = radixSort(ctx, keys, make([]uint64, n), 32+bits.Len64(cells-1))
	s.start = make([]uint32, cells+1)
	s.pts = make([]float64, n*uint64(p.Dim))
	parForCtx(ctx, int(n), genTask, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			p.point(keys[j]&(1<<32-1), s.pts[j*p.Dim:(j+1)*p.Dim])
			// Cells from the previous point's (exclusive) to this one's
			// start here; each j writes its own range of start.
			c, prev := keys[j]>>32, int64(-1)
			if j > 0 {
				prev = int64(keys[j-1] >> 32)
			}
			for x := uint64(prev + 1); x <= c; x++ {
				s.start[x] = uint32(j)
			}
		}
	})
	last := uint64(0)
	if n > 0 {
		last = keys[n-1]>>32 + 1
	}
	for x := last; x <= cells; x++ {
		s.start[x] = uint32(n)
	}
	if p.Shuffle {
		perm := newPermuter(n, p.Seed)
		s.ids = make([]uint32, n)
		parForCtx(ctx, int(n), genTask, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				s.ids[j] = uint32(perm.at(uint64(j)))
			}
		})
	}
	return s
}

// rggForward are the cell offsets (dx, dy, dz) whose linear offset
// dx + g*dy + g^2*dz is positive: one of each pair +-d, so that each two
// neighbouring cells meet once, from the one the other is forward of.
// 2D uses the first four (dz = 0), 3D all thirteen.
var rggForward = [13][3]int64{
	{1, 0, 0}, {-1, 1, 0}, {0, 1, 0}, {1, 1, 0},
	{-1, -1, 1}, {0, -1, 1}, {1, -1, 1}, {-1, 0, 1}, {0, 0, 1}, {1, 0, 1}, {-1, 1, 1}, {0, 1, 1}, {1, 1, 1},
}

// neighbours writes to nb the forward neighbours of cell c, wrapped on the
// torus (distinct there since g is 1 or at least 3), clipped otherwise.
func (s *rggSpace) neighbours(c uint64, nb []uint64) []uint64 {
	if s.g == 1 {
		return nb[:0]
	}
	g := int64(s.g)
	var co [3]int64
	for k, x := 0, c; k < s.dim; k++ {
		co[k], x = int64(x%s.g), x/s.g
	}
	nb = nb[:0]
	fwd := rggForward[:4]
	if s.dim == 3 {
		fwd = rggForward[:]
	}
next:
	for _, d := range fwd {
		idx := int64(0)
		for k := s.dim - 1; k >= 0; k-- {
			x := co[k] + d[k]
			if s.torus {
				x = (x + g) % g
			} else if x < 0 || x >= g {
				continue next
			}
			idx = idx*g + x
		}
		nb = append(nb, uint64(idx))
	}
	return nb
}

// pairs appends a, b to buf for every joined pair with a in a cell of
// [c0, c1) and b in the same cell after a or in a forward neighbour, in a
// fixed order, and returns buf.
func (s *rggSpace) pairs(c0, c1 uint64, buf []uint32) []uint32 {
	var nbuf [13]uint64
	for c := c0; c < c1; c++ {
		lo, hi := s.start[c], s.start[c+1]
		if lo == hi {
			continue
		}
		nb := s.neighbours(c, nbuf[:0])
		for a := lo; a < hi; a++ {
			buf = s.scan(a, a+1, hi, buf)
			for _, c2 := range nb {
				buf = s.scan(a, s.start[c2], s.start[c2+1], buf)
			}
		}
	}
	return buf
}

// scan appends a, b to buf for the points b in [lo, hi) within r of
// point a.
// The rounded squares are added as float64 values: the conversions forbid
// fusing them into a multiply-add, whose rounding differs between
// machines.
func (s *rggSpace) scan(a, lo, hi uint32, buf []uint32) []uint32 {
	if s.dim == 2 {
		pts := s.pts[:2*uint64(max(hi, a+1))] // hints the bounds to the compiler
		ax, ay := pts[2*a], pts[2*a+1]
		for b := lo; b < hi; b++ {
			dx, dy := ax-pts[2*b], ay-pts[2*b+1]
			if s.torus {
				dx, dy = torusGap(dx), torusGap(dy)
			}
			if float64(dx*dx)+float64(dy*dy) < s.r2 {
				buf = append(buf, a, b)
			}
		}
		return buf
	}
	pts := s.pts[:3*uint64(max(hi, a+1))]
	ax, ay, az := pts[3*a], pts[3*a+1], pts[3*a+2]
	for b := lo; b < hi; b++ {
		dx, dy, dz := ax-pts[3*b], ay-pts[3*b+1], az-pts[3*b+2]
		if s.torus {
			dx, dy, dz = torusGap(dx), torusGap(dy), torusGap(dz)
		}
		if float64(dx*dx)+float64(dy*dy)+float64(dz*dz) < s.r2 {
			buf = append(buf, a, b)
		}
	}
	return buf
}

// torusGap is the distance on the circle of length 1 of a coordinate
// difference d: min(|d|, 1-|d|).
func torusGap(d float64) float64 {
	d = math.Abs(d)
	return min(d, 1-d)
}

// EstimateBytes is the peak of the points (keys, sort buffer, coordinates,
// cells, ids), the records (their expected count plus a tenth) and Build.
func (p RandomGeometric) EstimateBytes() uint64 {
	if p.Validate() != nil {
		return math.MaxUint64
	}
	m := p.ExpectedEdges()*1.1 + 1024
	cells := pow(p.cellsPerSide(p.radius()), p.Dim)
	gen := satAdd(satMul(p.N, uint64(20+8*p.Dim)), satMul(cells, 4))
	gen = satAdd(gen, floatBytes(m, recordBytes+collectBytes))
	return peakBytes(gen, floatBytes(m, 1), p.N)
}
