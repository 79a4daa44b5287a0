package executor

import (
	"errors"
	"slices"
	"testing"

	"github.com/tcgen/tcgen/gen"
)

func TestPlanScratch(t *testing.T) {
	bitmap := func(name string, groups, block int, zeroed bool) gen.Class {
		return gen.Class{Name: name, Kernel: "k_" + name, Block: block,
			Grid:    gen.Grid{ItemsPerBlock: groups, BlocksPerSM: 2048 / block},
			Scratch: &gen.Scratch{Groups: groups, BitsPerVertex: 1, Zeroed: zeroed}}
	}
	plain := gen.Class{Name: "plain", Kernel: "k_plain", Block: 256, Grid: gen.Grid{ItemsPerBlock: 8}}
	skip := gen.Class{Name: "skip", Skip: true}
	const n = 1 << 20 // 2^14 words, 128 KiB per group
	perGroup := uint64(128 << 10)

	// Plenty of memory: the grids are the formulas', capped at 8 blocks of
	// 256 per SM; the buffer fits the larger class.
	cs := []gen.Class{skip, bitmap("warp", 8, 256, true), plain, bitmap("block", 1, 1024, true)}
	items := []uint64{5, 1 << 20, 1 << 20, 3}
	sp, err := planScratch(cs, items, n, 4, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint32{0, 32, 1 << 17, 3}; !slices.Equal(sp.grids, want) {
		t.Errorf("grids %v, want %v", sp.grids, want)
	}
	if sp.words[1] != 1<<14 || sp.words[2] != 0 || sp.words[3] != 1<<14 {
		t.Errorf("words %v", sp.words)
	}
	if sp.bytes != 32*8*perGroup || sp.zeroFirst[1] || sp.zeroFirst[3] {
		t.Errorf("bytes %d zeroFirst %v", sp.bytes, sp.zeroFirst)
	}

	// Tight: the grid shrinks to what fits; a class without items gets no
	// grid and no scratch.
	items[1] = 1 << 20
	items[3] = 0
	sp, err = planScratch(cs, items, n, 4, 3*8*perGroup+5)
	if err != nil {
		t.Fatal(err)
	}
	if sp.grids[1] != 3 || sp.grids[3] != 0 || sp.words[3] != 0 || sp.bytes != 3*8*perGroup {
		t.Errorf("tight: grids %v words %v bytes %d", sp.grids, sp.words, sp.bytes)
	}

	// Not even one block: an error saying how much one block needs.
	_, err = planScratch(cs, items, n, 4, 8*perGroup-1)
	var se *scratchError
	if !errors.As(err, &se) || se.perBlock != 8*perGroup || se.class != "warp" {
		t.Errorf("too small: %v", err)
	}

	// A class that does not promise to leave its slice zeroed makes the
	// zeroed ones zero the buffer first.
	cs = []gen.Class{bitmap("a", 8, 256, true), bitmap("b", 8, 256, false)}
	sp, err = planScratch(cs, []uint64{10, 10}, n, 4, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if !sp.zeroFirst[0] || sp.zeroFirst[1] {
		t.Errorf("zeroFirst %v", sp.zeroFirst)
	}
}
