package graph

// TCBW's center / non-center orientation (Lin et al., "Parallelize
// Accelerated Triangle Counting Using Bit-Wise on GPU", WISA 2023,
// shared/seeds/tcbw-bitwise.txt §3.1).
//
// §3.1: "We first collect the degree d(u) of each vertex u and calculate the
// average degree d̄ = |E|/|V|, when d(u) ≥ d̄, we treat vertex u as a center
// vertex [...] otherwise a non-center vertex. When [...] v_c [is] connected
// to v_n, we set the direction of the edge [to] v_n → v_c, when both two
// vertices of an edge are v_c, or both are v_n, the pointing of the edge can
// be set arbitrarily." Hubs thus lose their out-edges to the many low-degree
// vertices, which balances the out-degrees the edge iterator works on.
//
// d̄ is the average degree, the mean of d(u): sum of degrees / |V|, with |E|
// in the formula read as the adjacency entries of the undirected CSR the
// section stores in "|V| + |E|" space, each edge in both directions. (With
// |E| the undirected edges the threshold would be half the mean degree, and
// on a star every leaf would be a center, which defeats the balancing the
// section describes.) "Arbitrarily" must still be a total order, or a cycle
// among vertices of one kind could count a triangle zero or two times: ties
// are broken by id, so the order is (center, id) with non-centers first, and
// the oriented graph is acyclic.

// TCBWCenter reports whether a vertex of degree deg is a center vertex of a
// graph with n vertices whose degrees sum to degSum (twice its undirected
// edges): deg >= degSum / n, compared exactly as deg * n >= degSum (deg < n,
// so the product fits 64 bits).
func TCBWCenter(deg, n, degSum uint64) bool {
	return deg*n >= degSum
}

// tcbwRank returns each vertex's rank in TCBW's order on the symmetric CSR
// c: non-center vertices by id, then center vertices by id.
func tcbwRank(c *CSR) []uint32 {
	n := c.N()
	rank := make([]uint32, n)
	degSum := c.Arcs() // c holds every undirected edge in both directions
	var nonCenter uint64
	for u := range n {
		if !TCBWCenter(c.Degree(uint32(u)), uint64(n), degSum) {
			nonCenter++
		}
	}
	lo, hi := uint64(0), nonCenter // next rank of a non-center, of a center
	for u := range n {
		if TCBWCenter(c.Degree(uint32(u)), uint64(n), degSum) {
			rank[u] = uint32(hi)
			hi++
		} else {
			rank[u] = uint32(lo)
			lo++
		}
	}
	return rank
}
