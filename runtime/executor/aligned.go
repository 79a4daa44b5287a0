package executor

import (
	"context"
	"fmt"
	"slices"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// alignedLists runs the merge classes with align on (gen.KindAligned):
// before the first pass the host writes a word per vertex, start <<
// gen.AlignDegreeBits | d+(v), and the first class's copy kernel copies
// the lists into the same buffer, laid out for the classes' tiles
// (alignedWords, gen.AlignedLaunch); every class then launches once with
// gen.KernelArgs, the buffer as its scratch.
type alignedLists struct {
	noStats
	slots []int
	words []uint64   // the per-vertex words, written at setup
	bytes uint64     // the buffer: the words, then the padded lists
	buf   gpu.Buffer // allocated at setup
}

// carries says whether class c takes items of 16 bytes (the item and
// N+(v)'s word, gen.AlignedLaunch.Carry): its work list is allocated at 16
// bytes an item, the 8-byte items uploaded into its second half and
// widened in place by the carry kernel at setup (alignedLists.carry).
func carries(c gen.Class) bool {
	return c.Kind == gen.KindAligned && c.Aligned != nil && c.Aligned.Carry != nil
}

// listOffset is where class c's 8-byte list l is uploaded in its buffer,
// which takes the offset and the list: the second half for a carry class.
func listOffset(c gen.Class, l *WorkList) uint64 {
	if carries(c) {
		return l.Bytes()
	}
	return 0
}

func newAligned(pl *planning, slots []int) (family, error) {
	var tiles []uint64 // the classes' tiles, powers of two
	for _, i := range slots {
		if t := uint64(pl.classes[i].Aligned.Tile); !slices.Contains(tiles, t) {
			tiles = append(tiles, t)
		}
	}
	slices.Sort(tiles)
	words, entries, err := alignedWords(pl.o, tiles)
	if err != nil {
		return nil, err
	}
	return &alignedLists{slots: slots, words: words, bytes: gen.AlignListsWord(uint64(len(words)))*8 + entries*4}, nil
}

// alignedWords lays out o's lists so that each spans as few tiles as its
// length allows, for each of tiles (powers of two, increasing): a list of
// at most t entries inside one tile of t (after the previous list where it
// fits), a longer one from a boundary of t. It returns the word of each
// vertex (start << gen.AlignDegreeBits | d+) and the entries the lists
// take, up to a whole last tile (a merge reads whole tiles). An
// out-degree of 2^AlignDegreeBits or more (a graph oriented by id around
// a hub) does not fit the word: a *LimitError, so that a chosen plan falls
// back as for memory.
func alignedWords(o *graph.Oriented, tiles []uint64) ([]uint64, uint64, error) {
	off := o.Offsets
	n := len(off) - 1
	words := make([]uint64, n)
	var start uint64
	for v := range n {
		d := off[v+1] - off[v]
		if d >= 1<<gen.AlignDegreeBits {
			return nil, 0, &LimitError{Why: fmt.Sprintf("align: a vertex has %d out-neighbours, more than the aligned copy's %d; use align off", d, uint64(1)<<gen.AlignDegreeBits-1)}
		}
		// Moving to a boundary of t keeps every smaller tile's boundaries,
		// so a pass over the tiles in increasing order settles it.
		for _, t := range tiles {
			if r := start % t; r != 0 && r+d > t {
				start += t - r
			}
		}
		words[v] = start<<gen.AlignDegreeBits | d
		start += d
	}
	last := tiles[len(tiles)-1]
	start = (start + last - 1) / last * last
	if start >= 1<<(64-gen.AlignDegreeBits) {
		return nil, 0, &LimitError{Why: fmt.Sprintf("align: %d entries with their padding, more than the aligned copy addresses", start)}
	}
	return words, start, nil
}

func (f *alignedLists) buffers() []bufferSpec {
	// Zeroed: the lists' padding is read with their tiles (and masked).
	return []bufferSpec{{name: "aligned lists", bytes: f.bytes, dst: &f.buf, zero: true}}
}

// setup writes the words and copies the lists with the copy kernel of the
// first class (any class's: they differ in name alone).
func (f *alignedLists) setup(pr *Prepared) error {
	if err := pr.allocate(f.buffers()); err != nil {
		return fmt.Errorf("plan %s: %w", pr.name, err)
	}
	if err := gpu.WriteSlice(f.buf, 0, f.words); err != nil {
		return fmt.Errorf("plan %s: writing the aligned lists' words: %w", pr.name, err)
	}
	f.words = nil
	if err := pr.launchHelper(pr.classes[f.slots[0]].c.Aligned.Copy, uint64(pr.n), pr.off, pr.adj, pr.n, f.buf); err != nil {
		return err
	}
	for _, i := range f.slots {
		if err := f.carry(pr, i); err != nil {
			return err
		}
	}
	return nil
}

// carry widens a carry class's items in place (carries): each target
// item and N+(v)'s word, written by its carry kernel over the launches of
// gen.CarryRounds from the 8-byte items in the list's second half.
func (f *alignedLists) carry(pr *Prepared, i int) error {
	pc := &pr.classes[i]
	if !carries(pc.c) || pc.items == 0 {
		return nil
	}
	// Its kernel reads 16 bytes an item: a list of 8 must not reach it.
	if pc.list == nil || pc.list.Size() < 16*pc.items {
		return fmt.Errorf("plan %s: class %s carries N+(v)'s word, but its %d items have no list of 16 bytes", pr.name, pc.c.Name, pc.items)
	}
	for _, r := range gen.CarryRounds(pc.items) {
		if err := pr.launchHelper(*pc.c.Aligned.Carry, r[1]-r[0], pr.adj, pc.list, pc.items, f.buf, r[0], r[1]); err != nil {
			return err
		}
	}
	return nil
}

// launchHelper launches helper kernel h, untimed, on a grid for items.
func (pr *Prepared) launchHelper(h gen.Helper, items uint64, args ...any) error {
	grid := h.Grid.Blocks(items, pr.sms)
	if grid == 0 {
		return nil
	}
	fn, err := pr.mod.Function(h.Kernel)
	if err == nil {
		err = fn.Launch(gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(h.Block), Y: 1, Z: 1}, 0, args...)
	}
	if err != nil {
		return fmt.Errorf("plan %s: kernel %s: %w", pr.name, h.Kernel, err)
	}
	return nil
}

func (f *alignedLists) launch(_ context.Context, pr *Prepared, pc *prepClass) error {
	return pr.launchWith(pc, f.buf, 0)
}
