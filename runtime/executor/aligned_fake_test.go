package executor_test

import (
	"encoding/binary"
	"fmt"

	"github.com/tcgen/tcgen/gen"
)

// launchCopy does what an aligned class's copy kernel does
// (templates/isect_merge.cu.tmpl): each list into the aligned copy, at
// the start its word gives.
func launchCopy(args []any) error {
	if len(args) != len(gen.AlignArgs) {
		return fmt.Errorf("copy: %d args, want %d", len(args), len(gen.AlignArgs))
	}
	off, adj, n, buf := args[0].(*fakeBuf), args[1].(*fakeBuf), uint64(args[2].(uint32)), args[3].(*fakeBuf)
	for v := range n {
		w := buf.u64(v)
		s, d := w>>gen.AlignDegreeBits, w&(1<<gen.AlignDegreeBits-1)
		if d != off.u64(v+1)-off.u64(v) {
			return fmt.Errorf("copy: vertex %d's word says %d entries, its list has %d", v, d, off.u64(v+1)-off.u64(v))
		}
		for k := range d {
			at := 8*gen.AlignListsWord(n) + 4*(s+k)
			if at+4 > uint64(len(buf.data)) {
				return fmt.Errorf("copy: vertex %d's entry %d at byte %d, past the buffer's %d", v, k, at, len(buf.data))
			}
			binary.LittleEndian.PutUint32(buf.data[at:], adj.u32(off.u64(v)+k))
		}
	}
	return nil
}

// checkAligned checks an aligned class's scratch: the copy, every list in
// it within as few of the class's tiles as its length allows, their last
// one inside the buffer, and scratch_words 0.
func checkAligned(c gen.Class, off, adj *fakeBuf, n uint32, scratch any, words uint64) error {
	buf, ok := scratch.(*fakeBuf)
	if !ok || words != 0 {
		return fmt.Errorf("aligned class %s: scratch %T, %d words", c.Name, scratch, words)
	}
	tile, lists := uint64(c.Aligned.Tile), 8*gen.AlignListsWord(uint64(n)) // the lists' first byte
	for v := range uint64(n) {
		w := buf.u64(v)
		s, d := w>>gen.AlignDegreeBits, w&(1<<gen.AlignDegreeBits-1)
		if (s+d+tile-1)/tile-s/tile > max((d+tile-1)/tile, 1) || lists+4*((s+d+tile-1)/tile*tile) > uint64(len(buf.data)) {
			return fmt.Errorf("aligned class %s: vertex %d's list at %d (%d entries), tile %d, buffer %d bytes", c.Name, v, s, d, tile, len(buf.data))
		}
		for k := range d {
			if got, want := binary.LittleEndian.Uint32(buf.data[lists+4*(s+k):]), adj.u32(off.u64(v)+k); got != want {
				return fmt.Errorf("aligned class %s: vertex %d's entry %d is %d in the copy, %d in the lists", c.Name, v, k, got, want)
			}
		}
	}
	return nil
}

// launchCarry does what a carry kernel's launch does
// (templates/iter_edge.cu.tmpl): items [lo, hi) of the 8-byte items in the
// list's second half (word nitems+i) become 16 bytes (words 2i, 2i+1),
// the item and N+(v)'s word of the aligned copy. The launches must take
// the items in order, and no thread may write over another's item not
// yet read (threads run in any order on a GPU).
func (d *fakeDevice) launchCarry(args []any) error {
	if len(args) != len(gen.CarryArgs) {
		return fmt.Errorf("carry: %d args, want %d", len(args), len(gen.CarryArgs))
	}
	adj, wide, nitems, aligned, lo, hi := args[0].(*fakeBuf), args[1].(*fakeBuf), args[2].(uint64), args[3].(*fakeBuf), args[4].(uint64), args[5].(uint64)
	if uint64(len(wide.data)) < 16*nitems || lo >= hi || hi > nitems {
		return fmt.Errorf("carry: items [%d, %d) of %d in %d bytes", lo, hi, nitems, len(wide.data))
	}
	if d.carried[wide] != lo {
		return fmt.Errorf("carry: items [%d, %d) after %d widened", lo, hi, d.carried[wide])
	}
	if i, j, bad := gen.CarryOverwrite(nitems, lo, hi); bad {
		return fmt.Errorf("carry: items [%d, %d): item %d writes over item %d, not read before the launch", lo, hi, i, j)
	}
	base := d.base << gen.TargetLenBits
	for i := lo; i < hi; i++ {
		it := wide.u64(nitems + i)
		word := aligned.u64(uint64(adj.u32((it - base) >> gen.TargetLenBits)))
		binary.LittleEndian.PutUint64(wide.data[16*i:], it)
		binary.LittleEndian.PutUint64(wide.data[16*i+8:], word)
	}
	d.carried[wide] = hi
	return nil
}

// checkCarried checks a carry class's items of 16 bytes: each second word
// is N+(v)'s word of the aligned copy, v the target of the first's edge.
func checkCarried(wide *fakeBuf, nitems, base uint64, adj, aligned *fakeBuf) error {
	if uint64(len(wide.data)) < 16*nitems {
		return fmt.Errorf("%d items in %d bytes, want 16 an item", nitems, len(wide.data))
	}
	for i := range nitems {
		v := adj.u32((wide.u64(2*i) - base) >> gen.TargetLenBits)
		if got, want := wide.u64(2*i+1), aligned.u64(uint64(v)); got != want {
			return fmt.Errorf("item %d carries word %#x for vertex %d, whose word is %#x", i, got, v, want)
		}
	}
	return nil
}
