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
				room, chunkCap, err := partitionCaps(uint64(o.N()), maxRow(o), partitionFixed(uint64(o.N()))+rows*4/div, 0)
				if err != nil {
					t.Fatal(err)
				}
				p, err := cutPartition(o, room, chunkCap)
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
