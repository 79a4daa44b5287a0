package executor

import (
	"fmt"
	"testing"

	"github.com/tcgen/tcgen/graph"
)

// TestCutBlocks: blocks cut by their lists' need and by the worst case
// (a list as long as the rows) both cover the chunks in order, and the
// window, src and list they share (the largest block's rows, the longest
// pair's list) fit the block's room; the lists' cut needs no more blocks,
// and copies no more, than the worst case's.
func TestCutBlocks(t *testing.T) {
	for _, scale := range []int{10, 12} {
		g, _, err := graph.Generate(graph.DefaultRMAT(scale))
		if err != nil {
			t.Fatal(err)
		}
		o := graph.Orient(g, graph.ByDegree, true)
		rows := 4 * o.Arcs()
		for _, div := range []uint64{2, 4, 8} {
			t.Run(fmt.Sprintf("rmat%d/%d", scale, div), func(t *testing.T) {
				room, chunkCap, err := partitionCaps(uint64(o.N()), maxRow(o), partitionFixed(uint64(o.N()))+rows*4/div, 0, partCost{})
				if err != nil {
					t.Fatal(err)
				}
				p, err := cutPartition(o, room, chunkCap, partCost{})
				if err != nil {
					t.Fatal(err)
				}
				worst := *p
				worst.pairs, worst.maxList, worst.maxBlock, worst.listedArcs = nil, 0, 0, 0
				var ok bool
				if worst.blocks, ok = worst.cutBlocks(o, true); !ok {
					t.Fatal("the worst case's cut failed")
				}
				for a := range worst.numBlocks() {
					lo, hi := worst.blockRange(a)
					worst.maxBlock = max(worst.maxBlock, o.Offsets[hi]-o.Offsets[lo])
				}
				worst.countPairs(o)
				for _, q := range []*partition{p, &worst} {
					if q.blocks[0] != 0 || q.blocks[len(q.blocks)-1] != q.numChunks() {
						t.Fatalf("blocks %v do not cover %d chunks", q.blocks, q.numChunks())
					}
					for a := range q.numBlocks() {
						if q.blocks[a] >= q.blocks[a+1] {
							t.Fatalf("blocks %v: block %d is empty", q.blocks, a)
						}
					}
					if need := blockRowBytes*q.maxBlock + listEntryBytes*q.maxList; need > room {
						t.Errorf("blocks %v need %d bytes, room %d", q.blocks, need, room)
					}
					if q.listedArcs != o.Arcs() {
						t.Errorf("%d edges listed, want %d", q.listedArcs, o.Arcs())
					}
				}
				t.Logf("lists' cut: %d blocks, %d bytes a pass; worst case's: %d blocks, %d bytes", p.numBlocks(), p.copiedBytes(o.Offsets), worst.numBlocks(), worst.copiedBytes(o.Offsets))
				if p.numBlocks() > worst.numBlocks() || p.copiedBytes(o.Offsets) > worst.copiedBytes(o.Offsets) {
					t.Errorf("the lists' cut has %d blocks, the worst case's %d", p.numBlocks(), worst.numBlocks())
				}
			})
		}
	}
}

// TestCutPivot: the pivot's cut under caps from the tightest up covers the
// chunks in order, with blocks whose rows, tails and items fit the room and
// chunks of at most a quarter as many vertices as entries; its pairs are
// (block, one chunk at or after the block's first), own or streamed, and
// list every in-edge with a tail below the core once; RMAT's hubs (a
// chunk each) are blocks of a single vertex under the tighter caps.
func TestCutPivot(t *testing.T) {
	for _, gg := range []graph.Generator{graph.DefaultRMAT(10), graph.Complete{N: 40}} {
		g, _, err := graph.Generate(gg)
		if err != nil {
			t.Fatal(err)
		}
		o := graph.Orient(g, graph.ByDegree, true)
		n := uint32(o.N())
		for _, top := range []uint32{n, n - min(n, 16)} {
			cost := partCost{pivot: &pivotCost{top: top, classes: 2, minWork: 64, tile: 2048, counts: 48}}
			var in uint64 // in-edges with a tail, below the core
			for u := range n {
				for e := o.Offsets[u]; e+1 < o.Offsets[u+1]; e++ {
					if o.Adj[e] < top {
						in++
					}
				}
			}
			single := false
			for capBytes := uint64(8*(n+1)) + 256; capBytes < 1<<22; capBytes = capBytes * 9 / 8 {
				room, chunkCap, err := partitionCaps(uint64(n), maxRow(o), capBytes, 0, cost)
				if err != nil {
					continue
				}
				p, err := cutPartition(o, room, chunkCap, cost)
				if err != nil {
					continue
				}
				checkPivotCut(t, o, p, in, capBytes)
				for a := range p.numBlocks() {
					lo, hi := p.blockRange(a)
					single = single || hi-lo == 1
				}
			}
			if _, clique := gg.(graph.Complete); !clique && !single {
				t.Errorf("%T top %d: no cut has a block of one vertex", gg, top)
			}
		}
	}
}

// checkPivotCut checks a pivot cut of o under capBytes that should list in
// in-edges.
func checkPivotCut(t *testing.T, o *graph.Oriented, p *partition, in, capBytes uint64) {
	t.Helper()
	if p.blocks[0] != 0 || p.blocks[len(p.blocks)-1] != p.numChunks() || p.deviceBytes() > capBytes {
		t.Fatalf("blocks %v of %d chunks, %d bytes under a cap of %d", p.blocks, p.numChunks(), p.deviceBytes(), capBytes)
	}
	for k := range p.numChunks() {
		lo, hi := p.chunkRange(k)
		if hi <= lo || uint64(hi-lo) > max(1, p.chunkCap/pivotTargetShare) {
			t.Fatalf("chunk %d: %d vertices, cap %d entries", k, hi-lo, p.chunkCap)
		}
	}
	if need := p.cost.blockBytes(p.maxBlock, listNeed{p.maxList, p.maxItems}); need > p.blockRoom {
		t.Errorf("blocks need %d bytes, room %d", need, p.blockRoom)
	}
	var listed uint64
	for _, q := range p.pairs {
		if q.chunk < p.blocks[q.block] || q.own != (q.chunk < p.blocks[q.block+1]) || q.edges == 0 || q.items == 0 {
			t.Fatalf("pair %+v of block %v", q, p.blocks[q.block:q.block+2])
		}
		listed += q.edges
	}
	if listed != in || p.listedArcs != in {
		t.Errorf("%d in-edges listed (%d), want %d", listed, p.listedArcs, in)
	}
}
