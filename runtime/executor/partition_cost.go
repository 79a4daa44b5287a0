package executor

// How the cut of a count in partitions (partition_plan.go) charges device
// memory, by the family that counts the pairs. The tiled edge merge keeps
// adj and src of a block's entries and lists a pair's edges (a u64 each).
// The pivot keeps adj alone, and a pair needs the tails of its in-edges (a
// u64 each), its items (a u64 each per pivot class) and, per vertex of its
// targets, the preparation's counters (wrk, end, inoff: u64; csz: u32) and
// the bin's tile sums (partition_pivot.go).

// partCost is the cut's cost model: the merge's when pivot is nil.
type partCost struct {
	pivot *pivotCost
}

// pivotCost is the pivot's part of the cost model.
type pivotCost struct {
	top     uint32 // the core's first id: in-edges to the core are the core kernel's (n without a core)
	classes uint64 // the plan's pivot classes: an item list and two counters each
	minWork uint64 // the smallest item_work: a pivot gets at most its wedges / minWork items and one
	tile    uint64 // vertices of a tile of the bin kernel (a tile sum each)
	// The device memory that does not grow with the graph: the core's
	// matrix, the global tables of spill-global classes, the class counts.
	core, spill, counts uint64
}

// extra is the pivot's memory that does not grow with the graph: its
// core, tables and counts, and an item count and a queue counter a class.
func (pc *pivotCost) extra() uint64 { return pc.core + pc.spill + pc.counts + 16*pc.classes }

// pivotTargetShare: a pivot pair's targets are one chunk, whose vertices
// cost 28 bytes each (wrk, end, inoff, csz), 7 times a row entry's 4; a
// chunk holds at most a quarter as many vertices as entries, so that its
// vertices' counters cost less than the two slots of its rows.
const pivotTargetShare = 4

// rowBytes is what a resident entry costs besides its pairs' lists.
func (c partCost) rowBytes() uint64 {
	if c.pivot != nil {
		return chunkEntryBytes // adj
	}
	return blockRowBytes // adj and src
}

// top is the first id whose in-edges are left out of the pivot's lists.
func (c partCost) top(n uint32) uint32 {
	if c.pivot != nil {
		return c.pivot.top
	}
	return n
}

// itemsCap bounds the items the bin writes per class for a pair of in
// in-edges whose tails hold wedges entries, on verts target vertices: a
// pivot with in-edges gets min(in-edges, ceil(wedges / item_work)) items,
// so at most in, and at most wedges / minWork plus one a pivot (and one
// more, so that a list is never empty).
func (c partCost) itemsCap(in, wedges, verts uint64) uint64 {
	return min(in, wedges/max(c.pivot.minWork, 1)+verts) + 1
}

// listNeed is what pairs' lists take: the most entries of a list (the
// merge's edge ids, the pivot's tails) and the most items per class of a
// pair (the pivot's). Each is a buffer that every pair of the pass
// shares, so a block's need is the largest of each over its pairs.
type listNeed struct{ entries, items uint64 }

// or is the need of both a's pairs and b's.
func (a listNeed) or(b listNeed) listNeed {
	return listNeed{max(a.entries, b.entries), max(a.items, b.items)}
}

// need is the list of a pair with load ld on verts target vertices.
func (c partCost) need(ld chunkLoad, verts uint64) listNeed {
	if c.pivot == nil {
		return listNeed{entries: ld.edges}
	}
	if ld.in == 0 {
		return listNeed{}
	}
	return listNeed{ld.in, c.itemsCap(ld.in, ld.wedges, verts)}
}

// needBytes is the device memory of a need.
func (c partCost) needBytes(n listNeed) uint64 {
	b := listEntryBytes * n.entries
	if c.pivot != nil {
		b += listEntryBytes * c.pivot.classes * n.items
	}
	return b
}

// worstList is the list of a pair that takes all of r rows' entries.
func (c partCost) worstList(r uint64) listNeed {
	if c.pivot == nil {
		return listNeed{entries: r}
	}
	return listNeed{r, r + 1}
}

// worstPerEntry is a block entry's bytes with a worst list: the per-entry
// part of blockBytes(r, worstList(r)).
func (c partCost) worstPerEntry() uint64 {
	if c.pivot == nil {
		return blockEntryBytes
	}
	return chunkEntryBytes + listEntryBytes*(1+c.pivot.classes)
}

// blockBytes is a block of r entries with lists of need l.
func (c partCost) blockBytes(r uint64, l listNeed) uint64 { return c.rowBytes()*r + c.needBytes(l) }

// fixed is the device memory that does not depend on the cut: the offsets
// of every vertex and the counters (and for the pivot its extra, and the
// tails and items of a cut without pairs: one entry each).
func (c partCost) fixed(n uint64) uint64 {
	if c.pivot == nil {
		return partitionFixed(n)
	}
	return (n+1)*8 + c.pivot.extra() + listEntryBytes*(1+c.pivot.classes) + 8 + 32 // 8: the sum; 32: adjBytes' tile padding
}

// vertCap is the most vertices of a chunk of chunkCap entries (0: any).
func (c partCost) vertCap(chunkCap uint64) uint64 {
	if c.pivot == nil {
		return 0
	}
	return max(1, chunkCap/pivotTargetShare)
}

// targetBytes is the pivot's counters for targets of v vertices:
// wrk, end, csz, inoff (v + 1 of them) and the tile sums.
func (c partCost) targetBytes(v uint64) uint64 {
	if c.pivot == nil {
		return 0
	}
	v = max(v, 1)
	return 8*v + 8*v + 4*v + 8*(v+1) + 8*((v+c.pivot.tile-1)/c.pivot.tile+1)
}

// chunkSide is what chunks of chunkCap entries cost: two slots of rows
// and, for the pivot, the counters of a chunk's vertices.
func (c partCost) chunkSide(chunkCap uint64) uint64 {
	return 2*chunkEntryBytes*chunkCap + c.targetBytes(c.vertCap(chunkCap))
}

// chunkSideLinear bounds chunkSide(k) + blockBytes(k, worstList(k)) -
// worstPerEntry() * k by per * k + fix, for a cut that shrinks its chunks
// until a block holds one: the counters are at most 29 bytes a vertex and
// 53 bytes more (tiles of 8 vertices at least), a quarter vertex an entry.
func (c partCost) chunkSideLinear() (per, fix uint64) {
	if c.pivot == nil {
		return 2 * chunkEntryBytes, 0
	}
	return 2*chunkEntryBytes + 8, 64 + listEntryBytes*c.pivot.classes
}
