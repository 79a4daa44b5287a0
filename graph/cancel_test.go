package graph

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// cancelAfter is a reader that cancels its context once n bytes were read,
// as Ctrl-C in the middle of a file does.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	if c.n -= k; c.n <= 0 {
		c.cancel()
	}
	return k, err
}

// TestReadCancelled: reading stops with the context's error whether it was
// done before the read or becomes done in the middle, in every format, and
// the cache writes nothing.
func TestReadCancelled(t *testing.T) {
	dir := t.TempDir()
	g := generated(t, DefaultRMAT(15))
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range []string{"g.txt", "g.mtx", "g.bin64", "g.txt.gz"} {
		p := filepath.Join(dir, name)
		if err := WriteEdgesFile(p, g); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Open(p, ReadOptions{Context: done}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s, cancelled before: %v", name, err)
		}
		data, _ := os.ReadFile(p)
		ctx, cancel := context.WithCancel(context.Background())
		r := &cancelAfter{r: bytes.NewReader(data), n: len(data) / 3, cancel: cancel}
		if _, _, err := Read(r, name, ReadOptions{Context: ctx}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s, cancelled a third in: %v", name, err)
		}
	}
	cache := Cache{Dir: filepath.Join(dir, "cache")}
	if _, _, err := cache.Load(filepath.Join(dir, "g.txt"), ReadOptions{Context: done}); !errors.Is(err, context.Canceled) {
		t.Errorf("cache load: %v", err)
	}
	if ents, _ := os.ReadDir(cache.Dir); len(ents) != 0 {
		t.Errorf("the cache holds %d files after a cancelled load", len(ents))
	}
}

// TestBuildContext: a done context stops Build with its error; a live one
// changes nothing.
func TestBuildContext(t *testing.T) {
	el, err := DefaultRMAT(14).EdgeList()
	if err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := BuildContext(done, el, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("done: %v", err)
	}
	el, _ = DefaultRMAT(14).EdgeList()
	g, err := BuildContext(context.Background(), el, nil)
	if err != nil || g.Edges() != generated(t, DefaultRMAT(14)).Edges() {
		t.Errorf("live: %v", err)
	}
}

// TestGenerateContext: the generators that can be stopped say so
// (ContextGenerator) and stop with the context's error.
func TestGenerateContext(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, gen := range []Generator{DefaultRMAT(16), ErdosRenyi{N: 1000, M: 100000, Seed: 1}, ErdosRenyi{N: 100000, M: 100000, Seed: 1},
		Grid{Rows: 100, Cols: 100}, Complete{N: 300}, CompleteBipartite{A: 100, B: 100},
		BarabasiAlbert{N: 10000, M: 4, Seed: 1}, WattsStrogatz{N: 10000, K: 6, P: 0.1, Seed: 1},
		RandomGeometric{N: 10000, Dim: 2, Degree: 8, Shuffle: true, Seed: 1}, RandomGeometric{N: 10000, Dim: 3, Radius: 0.05, Seed: 1},
		ChungLu{N: 10000, Degree: 8, Gamma: 2.5, Seed: 1}, SBM{N: 10000, Blocks: 10, DegreeIn: 6, DegreeOut: 2, Seed: 1},
		Road{Rows: 100, Cols: 100, Delete: 0.1, Links: 50, Seed: 1}} {
		if _, ok := gen.(ContextGenerator); !ok {
			t.Errorf("%T cannot be stopped", gen)
		}
		if _, _, err := GenerateContext(done, gen); !errors.Is(err, context.Canceled) {
			t.Errorf("%T: %v", gen, err)
		}
	}
}

// TestGenerateContextMidway: the newer generators cancelled while they
// run (drawing points, weights or records) stop with the context's error
// and nothing else: partial state is dropped, never indexed.
func TestGenerateContextMidway(t *testing.T) {
	for _, gen := range []Generator{
		BarabasiAlbert{N: 400000, M: 4, Seed: 1}, WattsStrogatz{N: 400000, K: 8, P: 0.1, Seed: 1},
		RandomGeometric{N: 400000, Dim: 3, Degree: 8, Shuffle: true, Seed: 1},
		ChungLu{N: 400000, Degree: 8, Gamma: 2.5, Seed: 1}, SBM{N: 400000, Blocks: 20, DegreeIn: 6, DegreeOut: 2, Seed: 1},
		Road{Rows: 700, Cols: 700, Delete: 0.1, Links: 5000, Seed: 1},
	} {
		for _, after := range []time.Duration{time.Millisecond, 5 * time.Millisecond} {
			ctx, cancel := context.WithTimeout(context.Background(), after)
			el, err := gen.(ContextGenerator).EdgeListContext(ctx)
			cancel()
			if err != nil && !errors.Is(err, context.DeadlineExceeded) || err == nil && el == nil {
				t.Errorf("%T cancelled after %v: %v", gen, after, err)
			}
		}
	}
}

// TestCountContext: orienting and counting stop with the context's error;
// a live context gives the oracle's counts.
func TestCountContext(t *testing.T) {
	g := generated(t, DefaultRMAT(13))
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := OrientContext(done, g, ByDegree, true); !errors.Is(err, context.Canceled) {
		t.Errorf("orient: %v", err)
	}
	if _, err := OracleContext(done, g); !errors.Is(err, context.Canceled) {
		t.Errorf("oracle: %v", err)
	}
	o := Orient(g, ByDegree, true)
	if _, err := CountTrianglesContext(done, o, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("count: %v", err)
	}
	if _, _, err := CountPerVertexContext(done, o, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("per vertex: %v", err)
	}
	want := Oracle(g)
	got, err := OracleContext(context.Background(), g)
	total, per, err2 := CountPerVertexContext(context.Background(), o, nil)
	var sum uint64
	for _, x := range per {
		sum += x
	}
	if err != nil || err2 != nil || got != want || total != want || sum != 3*want {
		t.Errorf("live: %d, %d (sum %d), want %d (%v, %v)", got, total, sum, want, err, err2)
	}
}
