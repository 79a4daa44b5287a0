package graph

import "math"

// EstimateBytes of the older generators: their records and scratch, and
// Build on the records (gen_common.go). Parameters Validate refuses give
// saturated or arbitrary large values.

// EstimateBytes is the peak of the records with the label shuffle, and of
// Build.
func (p RMAT) EstimateBytes() uint64 {
	if p.Validate() != nil {
		return math.MaxUint64
	}
	m, n := p.Samples(), uint64(1)<<p.Scale
	return peakBytes(satAdd(satMul(m, recordBytes), satMul(n, 4)), m, n)
}

// EstimateBytes is the peak of the candidate draws (a rank, a sorted
// (rank, index) pair and its radix buffer per candidate: 40 bytes, for
// about 1.42 candidates per rank kept), the records and Build.
func (p ErdosRenyi) EstimateBytes() uint64 {
	if p.Validate() != nil {
		return math.MaxUint64
	}
	k := choose2(p.N)
	want := min(p.M, k-p.M)
	cands := -float64(k)*math.Log1p(-float64(want)/float64(max(k, 1)))*erDrawMargin + 64
	gen := satAdd(floatBytes(cands, 40), satMul(want, 8))
	gen = satAdd(gen, satMul(p.M, recordBytes))
	return peakBytes(gen, p.M, p.N)
}

// records is the number of lattice edges.
func (p Grid) records() uint64 {
	count := p.Rows*(p.Cols-1) + (p.Rows-1)*p.Cols
	if p.Diagonals {
		count += (p.Rows - 1) * (p.Cols - 1)
	}
	return count
}

// EstimateBytes is the peak of the records and of Build.
func (p Grid) EstimateBytes() uint64 {
	if p.Validate() != nil {
		return math.MaxUint64
	}
	m := p.records()
	return peakBytes(satMul(m, recordBytes), m, p.Rows*p.Cols)
}

// EstimateBytes is the peak of the records and of Build.
func (p Complete) EstimateBytes() uint64 {
	m := satMul(p.N, max(p.N, 1)-1) / 2
	return peakBytes(satMul(m, recordBytes), m, p.N)
}

// EstimateBytes is the peak of the records and of Build.
func (p CompleteBipartite) EstimateBytes() uint64 {
	m := satMul(p.A, p.B)
	return peakBytes(satMul(m, recordBytes), m, satAdd(p.A, p.B))
}

// EstimateBytes is the peak of the records and of Build.
func (p Wheel) EstimateBytes() uint64 {
	m := satMul(p.Rim, 2)
	return peakBytes(satMul(m, recordBytes), m, satAdd(p.Rim, 1))
}

// EstimateBytes is the peak of the records and of Build.
func (p Star) EstimateBytes() uint64 {
	return peakBytes(satMul(p.Leaves, recordBytes), p.Leaves, satAdd(p.Leaves, 1))
}
