package gen

import (
	"math/bits"
	"testing"
)

// TestCarryRounds: the launches of a carry kernel take every item once,
// in order, and no launch writes over an item it has not read (item i
// reads word n+i and writes words 2i and 2i+1), but a thread's own.
func TestCarryRounds(t *testing.T) {
	for n := uint64(0); n <= 300; n++ {
		var next uint64
		rounds := CarryRounds(n)
		for _, r := range rounds {
			lo, hi := r[0], r[1]
			if lo != next || hi <= lo || hi > n {
				t.Fatalf("n %d: launch [%d, %d) after %d", n, lo, hi, next)
			}
			if i, j, bad := CarryOverwrite(n, lo, hi); bad {
				t.Fatalf("n %d: launch [%d, %d): item %d writes over item %d", n, lo, hi, i, j)
			}
			next = hi
		}
		if next != n {
			t.Fatalf("n %d: launches end at %d", n, next)
		}
		if n > 1 && len(rounds) > bits.Len64(n)+1 {
			t.Errorf("n %d: %d launches, more than log2(n)+1", n, len(rounds))
		}
	}
	// A launch of more than half of what is left overwrites unread items.
	if _, _, bad := CarryOverwrite(10, 0, 6); !bad {
		t.Error("items [0, 6) of 10: no overwrite found")
	}
	if r := CarryRounds(1 << 32); len(r) > 34 {
		t.Errorf("2^32 items: %d launches", len(r))
	}
}
