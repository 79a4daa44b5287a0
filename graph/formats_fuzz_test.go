package graph

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// sameThroughStream reads data again as a stream of short reads (a
// pipe's; their sizes come from seed) and fails unless it gives the same
// graph, or the same error, as reading it whole did.
func sameThroughStream(t *testing.T, data []byte, name string, opt ReadOptions, seed uint8, g *Graph, err error) {
	t.Helper()
	r := &chunkReader{data: data, sizes: []int{1 + int(seed)%7, 1 + int(seed), 4096}}
	gs, _, errs := Read(r, name, opt)
	switch {
	case (err == nil) != (errs == nil):
		t.Fatalf("whole: %v; as a stream: %v", err, errs)
	case err != nil && err.Error() != errs.Error():
		t.Fatalf("whole: %v; as a stream: %v", err, errs)
	case err == nil && !equalGraphs(g, gs):
		t.Fatal("a stream read another graph")
	}
}

// checkRead fails unless err is nil or a one-line *InputError, and the
// graph canonical.
func checkRead(t *testing.T, g *Graph, err error) {
	t.Helper()
	var ie *InputError
	if err != nil {
		if !errors.As(err, &ie) || bytes.ContainsRune([]byte(err.Error()), '\n') {
			t.Fatalf("error %q is not a one-line *InputError", err)
		}
		return
	}
	if cerr := g.CheckCanonical(); cerr != nil {
		t.Fatal(cerr)
	}
}

var ligraSeeds = []string{
	"AdjacencyGraph\n4\n5\n0\n2\n3\n5\n1\n2\n2\n3\n0\n",
	"WeightedAdjacencyGraph\n3\n2\n0\n1\n2\n1\n0\n7\n-3\n",
	"AdjacencyGraph 5 2 0 0 1 2 2 4 0",
	"AdjacencyGraph\n0\n0\n",
	"AdjacencyGraph\n2\n1\n1\n1\n0\n",
	"AdjacencyGraph\n3\n2\n0\n2\n1\n1\n0\n",
	"AdjacencyGraph\n2\n2\n0\n1\n1\n2\n",
	"AdjacencyGraph\n2\n2\n0\n1\n1\n0\n9\n",
	"WeightedAdjacencyGraph\n2\n2\n0\n1\n1\n0\n5\nw\n",
}

// FuzzLigra: the AdjacencyGraph reader never panics, returns one-line
// *InputErrors and canonical graphs whose ids are below the declared n,
// and reads a stream of short reads as it reads the whole input.
func FuzzLigra(f *testing.F) {
	for i, s := range ligraSeeds {
		f.Add([]byte(s), uint8(i))
	}
	g, _, _ := FromPairs([][2]uint64{{0, 1}, {1, 2}, {2, 0}, {2, 5}})
	var b bytes.Buffer
	if err := writeLigra(&b, g); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes(), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, seed uint8) {
		opt := ReadOptions{Format: "adj"}
		g, rep, err := Read(bytes.NewReader(data), "f.adj", opt)
		checkRead(t, g, err)
		if err == nil && rep.Format != "adj" {
			t.Fatalf("format %q", rep.Format)
		}
		sameThroughStream(t, data, "f.adj", opt, seed, g, err)
	})
}

// FuzzNPZ: the .npz reader never panics, returns one-line *InputErrors
// and canonical graphs, and reads a stream of short reads as it reads the
// whole input. Seeds: the fixtures (testdata/npz) and a written graph.
func FuzzNPZ(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "npz", "*.npz"))
	for i, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(i))
	}
	g, _, _ := FromPairs([][2]uint64{{0, 1}, {1, 2}, {2, 0}, {2, 5}})
	var b bytes.Buffer
	if err := writeNPZ(&b, g); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes(), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, seed uint8) {
		opt := ReadOptions{Format: "npz"}
		g, _, err := Read(bytes.NewReader(data), "f.npz", opt)
		checkRead(t, g, err)
		sameThroughStream(t, data, "f.npz", opt, seed, g, err)
	})
}
