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
	// wide holds the items of 16 bytes of the classes with carry on
	// (gen.AlignedLaunch.Carry), by class index. The 8-byte lists they are
	// written from stay allocated: 24 bytes an item in all.
	wide map[int]*wideItems
}

// wideItems is a carry class's items of 16 bytes: n of them in buf.
type wideItems struct {
	n   uint64
	buf gpu.Buffer
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
	f := &alignedLists{slots: slots, words: words, bytes: gen.AlignListsWord(uint64(len(words)))*8 + entries*4,
		wide: map[int]*wideItems{}}
	for _, i := range slots {
		if pl.classes[i].Aligned.Carry != nil && pl.lists[i].Count > 0 {
			f.wide[i] = &wideItems{n: pl.lists[i].Count}
		}
	}
	return f, nil
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
	b := []bufferSpec{{name: "aligned lists", bytes: f.bytes, dst: &f.buf, zero: true}}
	for _, i := range f.slots {
		if w := f.wide[i]; w != nil {
			b = append(b, bufferSpec{name: "items of 16 bytes", bytes: 16 * w.n, dst: &w.buf})
		}
	}
	return b
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

// carry gives a class with carry on (gen.AlignedLaunch.Carry) its items
// of 16 bytes, each target item and N+(v)'s word, written by its carry
// kernel from its list, which the class then no longer reads.
func (f *alignedLists) carry(pr *Prepared, i int) error {
	pc := &pr.classes[i]
	if pc.c.Aligned.Carry == nil || pc.items == 0 {
		return nil
	}
	// Its kernel reads 16 bytes an item: a list of 8 must not reach it.
	w := f.wide[i]
	if w == nil || pc.list == nil || pc.items != w.n {
		return fmt.Errorf("plan %s: class %s carries N+(v)'s word, but its %d items have no list of 16 bytes", pr.name, pc.c.Name, pc.items)
	}
	if err := pr.launchHelper(*pc.c.Aligned.Carry, pc.items, pr.adj, pc.list, pc.items, f.buf, w.buf); err != nil {
		return err
	}
	pc.list = w.buf
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
