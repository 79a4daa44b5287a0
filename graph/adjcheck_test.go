package graph

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"unsafe"
)

// writeOriented writes RMAT-scale's degree-oriented, relabelled graph as a
// CSR file and returns its path and the oriented graph.
func writeOriented(t *testing.T, scale int) (string, *Oriented) {
	return writeOrientedMeta(t, scale, false)
}

// writeOrientedMeta is writeOriented, the lists packed (3 bytes an entry)
// or not.
func writeOrientedMeta(t *testing.T, scale int, packed bool) (string, *Oriented) {
	t.Helper()
	g, _, err := Generate(DefaultRMAT(scale))
	if err != nil {
		t.Fatal(err)
	}
	o := Orient(g, ByDegree, true)
	p := filepath.Join(t.TempDir(), "o.tcsr")
	if err := WriteCSR(p, &Graph{CSR: CSR{Offsets: o.Offsets, Adj: o.Adj}}, CacheMeta{Orientation: ByDegree, Relabelled: true, Packed: packed}); err != nil {
		t.Fatal(err)
	}
	return p, o
}

// fillPieces splits the section's bytes into pieces of random lengths (a
// multiple of 4, some a few words so pieces end inside lists; of a packed
// section any bytes), fills the share frac of them at once from several
// goroutines and returns what they read, by byte position, and the first
// error.
func fillPieces(t *testing.T, ck *AdjCheck, frac float64, seed uint64) (map[uint64][]byte, error) {
	return fillPiecesWith(t, ck.Fill, ck, frac, seed)
}

// fillPiecesWith is fillPieces with another fill (AdjCheck.FillChecksum).
func fillPiecesWith(t *testing.T, fill func([]byte, uint64) error, ck *AdjCheck, frac float64, seed uint64) (map[uint64][]byte, error) {
	t.Helper()
	unit := 4
	if ck.Packed() {
		unit = 1
	}
	units := int(ck.SectionBytes()) / unit
	r := rand.New(rand.NewPCG(seed, 1))
	got := map[uint64][]byte{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	var first error
	for at := 0; at < units; {
		k := min(units-at, 1+r.IntN(3)+r.IntN(2)*r.IntN(200000))
		if r.Float64() < frac {
			pos, buf := uint64(unit*at), make([]byte, unit*k)
			wg.Go(func() {
				err := fill(buf, pos)
				mu.Lock()
				defer mu.Unlock()
				got[pos] = buf
				if err != nil && first == nil {
					first = err
				}
			})
		}
		at += k
	}
	wg.Wait()
	return got, first
}

// TestAdjCheckDeferred: a mapped file read with DeferAdjCheck holds its
// adjacency checks until Finish; Fill reads the file's bytes, whatever
// share of the section the fills cover (none, some, all) and in whatever
// order, and Finish then accepts the file. Packed or not.
func TestAdjCheckDeferred(t *testing.T) {
	for _, packed := range []bool{false, true} {
		t.Run(map[bool]string{false: "words", true: "packed"}[packed], func(t *testing.T) { testAdjCheckDeferred(t, packed) })
	}
}

func testAdjCheckDeferred(t *testing.T, packed bool) {
	p, o := writeOrientedMeta(t, 14, packed)
	file, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	words := len(o.Adj)
	size := 4 * words
	if packed {
		size = 3 * words
	}
	want := file[csrHeaderSize+8*(o.N()+1):][:size]
	if !packed && !slices.Equal(want, unsafe.Slice((*byte)(unsafe.Pointer(&o.Adj[0])), 4*words)) {
		t.Fatal("the section is not the lists")
	}
	if g, _, err := Open(p, ReadOptions{Map: true}); err != nil || g.AdjCheck() != nil || !slices.Equal(g.Adj, o.Adj) {
		t.Fatalf("without DeferAdjCheck: err %v, pending %v", err, g.AdjCheck() != nil)
	}
	if g, _, err := ReadCSR(p); err != nil || !slices.Equal(g.Adj, o.Adj) {
		t.Fatalf("read as a stream: %v", err)
	}
	for i, frac := range []float64{0, 0.5, 1} {
		g, rep, err := Open(p, ReadOptions{Map: true, DeferAdjCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		ck := g.AdjCheck()
		if ck == nil || rep.Orientation != ByDegree {
			t.Fatalf("pending %v, orientation %v", ck != nil, rep.Orientation)
		}
		if fo := FileOriented(g, rep); fo.AdjCheck() != ck {
			t.Fatal("FileOriented lost the pending checks")
		}
		if ck.Packed() != packed || ck.SectionBytes() != uint64(size) {
			t.Fatalf("packed %v, %d bytes; want %v, %d", ck.Packed(), ck.SectionBytes(), packed, size)
		}
		got, err := fillPieces(t, ck, frac, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		for pos, b := range got {
			if !slices.Equal(b, want[pos:pos+uint64(len(b))]) {
				t.Fatalf("fill at %d read other bytes than the file holds", pos)
			}
		}
		for range 2 {
			if err := ck.Finish(); err != nil {
				t.Fatalf("share %v filled: %v", frac, err)
			}
		}
		if !slices.Equal(g.Adj, o.Adj) {
			t.Fatal("mapped lists differ")
		}
		again := make([]byte, size-8)
		if err := ck.Fill(again, 8); err != nil || !slices.Equal(again, want[8:]) {
			t.Fatalf("fill after Finish: %v", err)
		}
	}
	// Verify alone leaves a packed section where it is, unless it had to
	// check the lists itself.
	for _, verdict := range []bool{true, false} {
		g, _, err := Open(p, ReadOptions{Map: true, DeferAdjCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		ck := g.AdjCheck()
		if _, err := fillPiecesWith(t, ck.FillChecksum, ck, 0.7, 20); err != nil {
			t.Fatal(err)
		}
		ck.ListsChecked(verdict)
		if err := ck.Verify(); err != nil {
			t.Fatalf("Verify, verdict %v: %v", verdict, err)
		}
		if unpacked := slices.Equal(g.Adj, o.Adj); packed && verdict && unpacked {
			t.Fatal("Verify unpacked the lists the caller checked")
		} else if (!packed || !verdict) && !unpacked {
			t.Fatal("Verify's lists differ")
		}
		if err := ck.Finish(); err != nil || !slices.Equal(g.Adj, o.Adj) {
			t.Fatalf("Finish after Verify: %v", err)
		}
	}
	// FillChecksum with the lists found sound elsewhere: the same bytes,
	// and Finish joins the checksum alone.
	for i, verdict := range []bool{true, false} {
		g, _, err := Open(p, ReadOptions{Map: true, DeferAdjCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		ck := g.AdjCheck()
		got, err := fillPiecesWith(t, ck.FillChecksum, ck, 1, uint64(10+i))
		if err != nil {
			t.Fatal(err)
		}
		for pos, b := range got {
			if !slices.Equal(b, want[pos:pos+uint64(len(b))]) {
				t.Fatalf("FillChecksum at %d read other bytes than the file holds", pos)
			}
		}
		ck.ListsChecked(verdict)
		if err := ck.Finish(); err != nil {
			t.Fatalf("FillChecksum, verdict %v: %v", verdict, err)
		}
	}
	// Fills that overlap (a range read twice): Finish takes the whole
	// section from the mapping and still accepts the file.
	{
		g, _, err := Open(p, ReadOptions{Map: true, DeferAdjCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		ck := g.AdjCheck()
		for _, pos := range []uint64{0, 0, 4} {
			if err := ck.FillChecksum(make([]byte, 16), pos); err != nil {
				t.Fatal(err)
			}
		}
		if err := ck.Finish(); err != nil || !slices.Equal(g.Adj, o.Adj) {
			t.Fatalf("overlapping fills: %v", err)
		}
	}
	g, _, _ := Open(p, ReadOptions{Map: true, DeferAdjCheck: true})
	if err := g.AdjCheck().Fill(make([]byte, 6), 0); (err == nil) != packed {
		t.Fatalf("a fill of 6 bytes: %v", err)
	}
	if err := g.AdjCheck().Fill(make([]byte, 8), uint64(size)); err == nil {
		t.Fatal("a fill past the section was taken")
	}
}

// TestAdjCheckCorrupt: every flipped bit of the adjacency section is found,
// by a Fill or by Finish, however the fills split the section, and a
// structurally bad file with a valid checksum gets the message ReadCSR
// gives. Packed or not.
func TestAdjCheckCorrupt(t *testing.T) {
	for _, packed := range []bool{false, true} {
		t.Run(map[bool]string{false: "words", true: "packed"}[packed], func(t *testing.T) { testAdjCheckCorrupt(t, packed) })
	}
}

func testAdjCheckCorrupt(t *testing.T, packed bool) {
	p, o := writeOrientedMeta(t, 9, packed)
	good, _ := os.ReadFile(p)
	size := 4 * len(o.Adj)
	if packed {
		size = 3 * len(o.Adj)
	}
	at := len(good) - size - (8-size%8)%8 // the section ends 8-aligned, no original ids or text follow
	q := filepath.Join(t.TempDir(), "bad.tcsr")
	r := rand.New(rand.NewPCG(7, 7))
	for trial := range 300 {
		bad := slices.Clone(good)
		i := at + r.IntN(size)
		bad[i] ^= 1 << r.IntN(8)
		os.WriteFile(q, bad, 0o644)
		g, _, err := Open(q, ReadOptions{Map: true, DeferAdjCheck: true})
		if err != nil {
			t.Fatalf("byte %d: checked at open: %v", i, err)
		}
		ck := g.AdjCheck()
		fill := ck.Fill
		if trial%2 == 1 { // the lists judged sound elsewhere: the checksum still finds the flip
			fill = ck.FillChecksum
			ck.ListsChecked(true)
		}
		_, ferr := fillPiecesWith(t, fill, ck, []float64{0, 0.3, 1}[trial%3], uint64(trial))
		err = g.AdjCheck().Finish()
		var ie *InputError
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &ie) || ie.File != q {
			t.Fatalf("byte %d flipped: Finish %v", i, err)
		}
		if ferr != nil && !errors.Is(ferr, ErrCorrupt) {
			t.Fatalf("byte %d flipped: Fill %v", i, ferr)
		}
		if err := g.AdjCheck().Fill(make([]byte, 4), 0); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped: Fill after Finish %v", i, err)
		}
	}

	cases := map[string]*Graph{
		"neighbour past n": {CSR: CSR{Offsets: []uint64{0, 1, 2}, Adj: []uint32{1, 2}}},
		"unsorted list":    {CSR: CSR{Offsets: []uint64{0, 2, 3, 4}, Adj: []uint32{2, 1, 0, 0}}},
		"unsorted across":  {CSR: CSR{Offsets: []uint64{0, 4, 4, 4, 4, 4}, Adj: []uint32{1, 3, 2, 4}}},
		"self loop":        {CSR: CSR{Offsets: []uint64{0, 1, 1}, Adj: []uint32{0}}},
	}
	for name, h := range cases {
		if err := WriteCSR(q, h, CacheMeta{Packed: packed}); err != nil {
			t.Fatal(err)
		}
		_, _, want := ReadCSR(q)
		// Filled or not; FillChecksum's lists without a verdict, or with a
		// bad one, are checked by Finish.
		for _, fill := range []string{"", "Fill", "FillChecksum", "FillChecksum, bad verdict"} {
			g, _, err := Open(q, ReadOptions{Map: true, DeferAdjCheck: true})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			ck := g.AdjCheck()
			f := map[string]func([]byte, uint64) error{"Fill": ck.Fill, "FillChecksum": ck.FillChecksum, "FillChecksum, bad verdict": ck.FillChecksum}[fill]
			if f != nil { // one entry per fill: every boundary falls between pieces
				w := int(ck.SectionBytes()) / len(h.Adj)
				for k := range h.Adj {
					_ = f(make([]byte, w), uint64(w*k))
				}
			}
			if fill == "FillChecksum, bad verdict" {
				ck.ListsChecked(false)
			}
			if err := ck.Finish(); want == nil || err == nil || err.Error() != want.Error() {
				t.Errorf("%s (filled by %q): %v, ReadCSR: %v", name, fill, err, want)
			}
		}
	}
}
