package gen

import "testing"

// TestMatrixWord: the upper layout gives each row, in order, the words from
// its band's diagonal on, as counting them row by row does, and a matrix of
// 32K ids 16K(K+1) words, about half the square's (row-major, K words a row).
func TestMatrixWord(t *testing.T) {
	const size, rw = 1024, 1024 / 32
	next := uint64(0) // the upper layout's next word, row by row
	for r := range uint64(size) {
		for c := r + 1; c < size; c++ {
			if got, want := MatrixWord(r, c, rw, true), next+c/32-r/32; got != want {
				t.Fatalf("upper (%d, %d): word %d, want %d", r, c, got, want)
			}
		}
		next += rw - r/32
	}
	if last := MatrixWord(size-1, size-1, rw, true) + 1; last != next || last != 16*rw*(rw+1) {
		t.Errorf("upper: %d words, counted %d, want 16K(K+1) = %d", last, next, 16*rw*(rw+1))
	}
}
