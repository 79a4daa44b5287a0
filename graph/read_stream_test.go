package graph

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tcgen/tcgen/tests/gputest"
)

// streamInputs are the bytes of one graph in several formats, each larger
// than the readers' sniffing buffers (64 KiB), so a reader that sniffed the
// start of a stream and opened it again would miss data.
func streamInputs(t *testing.T) (*Graph, map[string][]byte) {
	t.Helper()
	g, _, err := Generate(DefaultRMAT(11))
	if err != nil {
		t.Fatal(err)
	}
	var text, mtx bytes.Buffer
	if err := WriteEdges(&text, g, "text"); err != nil {
		t.Fatal(err)
	}
	if err := WriteEdges(&mtx, g, "mtx"); err != nil {
		t.Fatal(err)
	}
	if text.Len() < 2*sourceBufSize {
		t.Fatalf("text of %d bytes: too small to test streams", text.Len())
	}
	csr := filepath.Join(t.TempDir(), "g.tcsr")
	if err := WriteCSR(csr, g, CacheMeta{}); err != nil {
		t.Fatal(err)
	}
	csrBytes, err := os.ReadFile(csr)
	if err != nil {
		t.Fatal(err)
	}
	return g, map[string][]byte{
		"text": text.Bytes(), "text.gz": gzipBytes(t, text.Bytes()), "mtx": mtx.Bytes(), "csr": csrBytes,
	}
}

// pipePath returns a path naming the read end of a pipe (/dev/fd/N, as a
// shell's process substitution gives) that is fed data by a goroutine.
func pipePath(t *testing.T, data []byte) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	go func() {
		w.Write(data)
		w.Close()
	}()
	return fmt.Sprintf("/dev/fd/%d", r.Fd())
}

// fifoPath returns a FIFO that a goroutine writes data into.
func fifoPath(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data)
		f.Close()
	}()
	return p
}

// readWithin runs read and fails the test if it takes 20 s: a reader
// that opens a FIFO twice waits forever for a writer that has gone.
func readWithin(t *testing.T, read func() (*Graph, *Report, error)) (*Graph, *Report) {
	t.Helper()
	type result struct {
		g   *Graph
		rep *Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		g, rep, err := read()
		done <- result{g, rep, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.g, r.rep
	case <-time.After(20 * time.Second):
		t.Fatal("reading the stream hangs")
	}
	return nil, nil
}

// TestReadStreams: a pipe (/dev/fd/N) and a FIFO are read once and whole,
// by Open and by Cache.Load with the options the command line uses (CSR
// mapping on), in every format; the cache stays empty.
func TestReadStreams(t *testing.T) {
	want, inputs := streamInputs(t)
	for format, data := range inputs {
		for _, kind := range []string{"pipe", "fifo"} {
			for _, cached := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/cache=%v", format, kind, cached), func(t *testing.T) {
					path := pipePath
					if kind == "fifo" {
						path = fifoPath
					}
					p := path(t, data)
					dir := t.TempDir()
					opt := ReadOptions{Map: true}
					g, rep := readWithin(t, func() (*Graph, *Report, error) {
						if cached {
							return (&Cache{Dir: dir}).Load(p, opt)
						}
						return Open(p, opt)
					})
					if !sameStructure(g, want) {
						t.Fatalf("read %d vertices, %d edges; want %d, %d", g.N(), g.Edges(), want.N(), want.Edges())
					}
					if rep.FromCache || rep.CachePath != "" || rep.CacheNote != "" {
						t.Fatalf("stream cached: %+v", rep)
					}
					if ents, _ := os.ReadDir(dir); len(ents) != 0 {
						t.Fatalf("cache holds %d entries after a stream", len(ents))
					}
				})
			}
		}
	}
}

// sameStructure compares the lists alone: Matrix Market ids are dense and
// 1-based, so the original ids differ from the text file's.
func sameStructure(a, b *Graph) bool {
	return equalGraphs(&Graph{CSR: a.CSR}, &Graph{CSR: b.CSR})
}

// TestReadStreamShortReads: a stream that returns a few bytes per read (as
// a pipe may) gives the same graph as the whole file.
func TestReadStreamShortReads(t *testing.T) {
	want, inputs := streamInputs(t)
	for format, data := range inputs {
		for _, chunk := range []int{1, 7, 4093} {
			r := &chunkReader{data: data, sizes: []int{chunk}}
			g, _, err := Read(r, "stream", ReadOptions{})
			if err != nil {
				t.Fatalf("%s in reads of %d: %v", format, chunk, err)
			}
			if !sameStructure(g, want) {
				t.Fatalf("%s in reads of %d: another graph", format, chunk)
			}
		}
	}
}

// chunkReader returns data in reads of the given sizes, cycled (0 counts
// as 1): a pipe's short reads.
type chunkReader struct {
	data  []byte
	sizes []int
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := 1
	if len(c.sizes) > 0 {
		k = max(1, c.sizes[c.i%len(c.sizes)])
		c.i++
	}
	k = min(k, len(p), len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

// TestCountStreamDataset: a shared dataset through a pipe and a FIFO counts
// the triangles the manifest gives, as the file does.
func TestCountStreamDataset(t *testing.T) {
	rows := gputest.Pick(t, gputest.Manifest(t), "lastfm_asia", "karate")
	for _, row := range rows {
		data, err := os.ReadFile(row.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{"pipe", "fifo"} {
			path := pipePath
			if kind == "fifo" {
				path = fifoPath
			}
			p := path(t, data)
			g, _ := readWithin(t, func() (*Graph, *Report, error) {
				return (&Cache{Dir: t.TempDir()}).Load(p, ReadOptions{Map: true})
			})
			if got := Oracle(g); got != row.Triangles {
				t.Fatalf("%s through a %s: %d triangles, want %d", row.Name, kind, got, row.Triangles)
			}
		}
	}
}
