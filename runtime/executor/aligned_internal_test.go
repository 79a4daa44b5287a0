package executor

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
)

// TestAlignedWords: a list of at most a tile lies inside one tile, right
// after the previous list where it fits, a longer one starts on a tile
// boundary, and each word keeps its list's length; an out-degree past the
// word's bits is refused.
func TestAlignedWords(t *testing.T) {
	o := &graph.Oriented{CSR: graph.CSR{Offsets: []uint64{0, 3, 3, 12, 13, 21}, Adj: make([]uint32, 21)}}
	words, entries, err := alignedWords(o, []uint64{8})
	if err != nil {
		t.Fatal(err)
	}
	// d+ = 3, 0, 9, 1, 8: starts 0, 3, 8 (9 > 8 entries: a boundary), 17
	// (inside 16-24), 24 (8 entries would cross 24 from 18); the end, 32, is
	// a whole tile.
	want := []uint64{0<<24 | 3, 3<<24 | 0, 8<<24 | 9, 17<<24 | 1, 24<<24 | 8}
	if !slices.Equal(words, want) || entries != 32 {
		t.Errorf("words %x, %d entries; want %x, 32", words, entries, want)
	}
	// For tiles of 4 and 8: 3 at 0; 0 at 3; 9 at 8; 1 at 17; 8 at 24.
	if words, entries, err := alignedWords(o, []uint64{4, 8}); err != nil || !slices.Equal(words, want) || entries != 32 {
		t.Errorf("tiles 4 and 8: words %x, %d entries, %v; want %x, 32", words, entries, err, want)
	}
	// d+ 3 then 3: the second list would cross 4 from 3 (a tile of 4) though
	// it fits 0-8 (a tile of 8).
	two := &graph.Oriented{CSR: graph.CSR{Offsets: []uint64{0, 3, 6}}}
	if words, _, _ := alignedWords(two, []uint64{4, 8}); words[1]>>24 != 4 {
		t.Errorf("tiles 4 and 8: the second list at %d, want 4", words[1]>>24)
	}
	if got := gen.AlignListsWord(5); got != 6 {
		t.Errorf("the lists of 5 vertices start at word %d, want 6 (16 bytes)", got)
	}
	hub := &graph.Oriented{CSR: graph.CSR{Offsets: []uint64{0, 1 << 24}}}
	if _, _, err := alignedWords(hub, []uint64{4}); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "16777216 out-neighbours") {
		t.Errorf("a hub of 2^24 out-neighbours: %v", err)
	}
}
