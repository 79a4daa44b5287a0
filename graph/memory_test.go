package graph

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestFormatBytes(t *testing.T) {
	for _, c := range []struct {
		b    uint64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1.00 KiB"}, {1536, "1.50 KiB"}, {10 << 20, "10.0 MiB"},
		{1<<20 - 1, "1.00 MiB"}, {24 << 30, "24.0 GiB"}, {999 << 30, "999 GiB"}, {math.MaxUint64, "16.0 EiB"},
	} {
		if got := FormatBytes(c.b); got != c.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", c.b, got, c.want)
		}
	}
}

func TestMemoryLimitCheck(t *testing.T) {
	lim := MemoryLimit{Bytes: 1 << 30, From: "--memory-limit"}
	if err := lim.Check("x", 100<<20); err != nil {
		t.Errorf("100 MiB under 1 GiB: %v", err)
	}
	err := lim.Check("generating K_n", 2<<30)
	var te *TooLargeError
	if !errors.As(err, &te) || err.Error() != "generating K_n: needs about 2.28 GiB of memory, more than the limit of 1.00 GiB (--memory-limit)" {
		t.Errorf("got %v", err)
	}
	if err := (MemoryLimit{}).Check("x", math.MaxUint64); err != nil {
		t.Errorf("no limit: %v", err)
	}
}

// TestEstimateBytesBounds: every generator's estimate lies between what
// the finished graph holds and what generating it allocated in all (which
// bounds the peak from above) plus an eighth: the estimate counts the
// consumed list as live until Build's sort (buildBytes), which passes the
// total where Build drops many records (RMAT's duplicates). Absurd sizes
// saturate instead of wrapping around to something small. (TestEstimateBytes
// measures the peak itself, on larger graphs.)
func TestEstimateBytesBounds(t *testing.T) {
	for _, gen := range []Generator{
		DefaultRMAT(14), ErdosRenyi{N: 5000, M: 60000, Seed: 1}, ErdosRenyi{N: 400, M: 70000, Seed: 1},
		Grid{Rows: 300, Cols: 200, Diagonals: true}, Complete{N: 500}, CompleteBipartite{A: 300, B: 400},
		Wheel{Rim: 100000}, Star{Leaves: 100000},
	} {
		sz, ok := gen.(Sized)
		if !ok {
			t.Fatalf("%T is not Sized", gen)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		g, _, err := Generate(gen)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		held := uint64(len(g.Adj))*4 + uint64(len(g.Offsets)+len(g.OrigIDs))*8
		total := after.TotalAlloc - before.TotalAlloc
		if est := sz.EstimateBytes(); est < held || est > total+total/8 {
			t.Errorf("%T%+v: estimate %s outside [%s held, %s allocated]", gen, gen, FormatBytes(est), FormatBytes(held), FormatBytes(total))
		}
	}
	for _, c := range []struct {
		gen  Sized
		over uint64
	}{
		{Complete{N: 100_000_000}, 1 << 56},
		{CompleteBipartite{A: 100_000, B: 100_000}, 200 << 30},
		{DefaultRMAT(32), 1 << 40},
		{ErdosRenyi{N: 4_000_000_000, M: 8_000_000_000_000}, 1 << 48},
		{Grid{Rows: 60000, Cols: 60000}, 100 << 30},
	} {
		if est := c.gen.EstimateBytes(); est < c.over {
			t.Errorf("%T%+v: estimate %s, want over %s", c.gen, c.gen, FormatBytes(est), FormatBytes(c.over))
		}
	}
	// Sizes their EdgeList refuses are as absurd (32 TiB and more): whoever
	// asks before validating refuses them too (tcgen validates first).
	for _, gen := range []Sized{Complete{N: 1 << 40}, RMAT{Scale: 40}, Wheel{Rim: 1 << 40}} {
		if est := gen.EstimateBytes(); est < 1<<45 {
			t.Errorf("%T%+v: estimate %d for a refused size", gen, gen, est)
		}
	}
}

// TestReadMemoryLimit: a file whose size or header says it needs more
// than the limit is refused before it is parsed, whatever its format; a
// stream of unknown size once the records read need more; a runaway line
// at the line bound.
func TestReadMemoryLimit(t *testing.T) {
	dir := t.TempDir()
	g := generated(t, DefaultRMAT(16)) // 1M records: about 64 MiB to read
	files := map[string]string{}
	for _, name := range []string{"g.txt", "g.mtx", "g.bin32", "g.tcsr", "g.adj", "g.npz"} {
		p := filepath.Join(dir, name)
		var err error
		if strings.HasSuffix(name, ".tcsr") {
			err = WriteCSR(p, g, CacheMeta{})
		} else {
			err = WriteEdgesFile(p, g)
		}
		if err != nil {
			t.Fatal(err)
		}
		files[name] = p
	}
	small := MemoryLimit{Bytes: 48 << 20, From: "test"}
	big := MemoryLimit{Bytes: 8 << 30, From: "test"}
	for name, p := range files {
		lim := small
		if name == "g.tcsr" {
			lim.Bytes = 36 << 20 // its arrays alone: 8 MiB, under the headroom
		}
		_, _, err := Open(p, ReadOptions{Memory: lim})
		var te *TooLargeError
		if !errors.As(err, &te) || te.Records != 0 || !strings.HasPrefix(err.Error(), p+": needs about ") {
			t.Errorf("%s under %s: got %v", name, FormatBytes(lim.Bytes), err)
		}
		got, _, err := Open(p, ReadOptions{Memory: big})
		if err != nil || got.Edges() != g.Edges() {
			t.Errorf("%s under 8 GiB: %v", name, err)
		}
	}
	// A stream: refused while read, after some records.
	text, _ := os.ReadFile(files["g.txt"])
	_, _, err := Read(bytes.NewReader(text), "<stdin>", ReadOptions{Memory: small})
	var te *TooLargeError
	if !errors.As(err, &te) || te.Records == 0 || !strings.Contains(err.Error(), "edge records read so far already need about") {
		t.Errorf("stream under 48 MiB: got %v", err)
	}
	// Ligra and .npz streams: refused on their header's counts, before the
	// records are read.
	for _, name := range []string{"g.adj", "g.npz"} {
		data, _ := os.ReadFile(files[name])
		_, _, err := Read(bytes.NewReader(data), name, ReadOptions{Memory: small})
		if !errors.As(err, &te) || te.Records != 0 || !strings.HasPrefix(err.Error(), name+": needs about ") {
			t.Errorf("%s stream under 48 MiB: got %v", name, err)
		}
	}
	// A line longer than a quarter of a small limit.
	long := append(bytes.Repeat([]byte{'7'}, 12<<20), '\n')
	_, _, err = Read(bytes.NewReader(long), "<stdin>", ReadOptions{Memory: MemoryLimit{Bytes: 40 << 20}})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "a line longer than") {
		t.Errorf("long line: got %v", err)
	}
}

// TestSampleRecords: the line estimate of a large text file whose lines
// grow along it (ids sorted) is close to the truth, where the first lines
// alone would overestimate it several times.
func TestSampleRecords(t *testing.T) {
	var b bytes.Buffer
	lines := 0
	for u := 0; b.Len() < 2<<20; u++ {
		fmt.Fprintf(&b, "%d\t%d\n", u*u, u*u+1)
		lines++
	}
	p := writeFile(t, t.TempDir(), "grow.txt", b.Bytes())
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	src, err := newSource(p, f, f, int64(b.Len()), ReadOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	got, ok := src.sampleRecords()
	if !ok || float64(got) < 0.8*float64(lines) || float64(got) > 1.25*float64(lines) {
		t.Errorf("estimated %d lines (ok %v), the file has %d", got, ok, lines)
	}
}
