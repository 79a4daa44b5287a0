package graph

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// benchTextLines: 4M SNAP-style lines (about 55 MB), enough for steady
// throughput yet quick to generate.
const benchTextLines = 1 << 22

var benchFiles struct {
	once      sync.Once
	text, gz  string
	textBytes int64
	gzBytes   int64
	err       error
}

// benchInputs writes a synthetic edge list (tab separated, ids below 2^21,
// a comment header as SNAP has) and its gzip once per test binary. Set
// TCGEN_BENCH_TEXT to a plain text edge list to measure that instead (its
// gzip is made next to the generated files).
func benchInputs(b *testing.B) (text, gz string) {
	benchFiles.once.Do(func() {
		dir, err := os.MkdirTemp("", "tcgen-bench-")
		if err != nil {
			benchFiles.err = err
			return
		}
		text = os.Getenv("TCGEN_BENCH_TEXT")
		if text == "" {
			text = filepath.Join(dir, "edges.txt")
			benchFiles.err = writeSyntheticText(text)
		}
		gz = filepath.Join(dir, "edges.txt.gz")
		if benchFiles.err == nil {
			benchFiles.err = gzipFile(text, gz)
		}
		benchFiles.text, benchFiles.gz = text, gz
		if st, err := os.Stat(text); err == nil {
			benchFiles.textBytes = st.Size()
		}
		if st, err := os.Stat(gz); err == nil {
			benchFiles.gzBytes = st.Size()
		}
	})
	if benchFiles.err != nil {
		b.Fatal(benchFiles.err)
	}
	return benchFiles.text, benchFiles.gz
}

func writeSyntheticText(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString("# Directed graph: synthetic\n# FromNodeId\tToNodeId\n")
	r := rand.New(rand.NewPCG(9, 10))
	var line []byte
	for i := 0; i < benchTextLines; i++ {
		line = strconv.AppendUint(line[:0], uint64(r.IntN(1<<21)), 10)
		line = append(line, '\t')
		line = strconv.AppendUint(line, uint64(r.IntN(1<<21)), 10)
		line = append(line, '\n')
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func gzipFile(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(f)
	if _, err := zw.Write(data); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return f.Close()
}

// BenchmarkReadText measures Open on a plain text edge list (parse and
// Build); MB/s is of the file.
func BenchmarkReadText(b *testing.B) {
	text, _ := benchInputs(b)
	b.SetBytes(benchFiles.textBytes)
	for b.Loop() {
		if _, _, err := Open(text, ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseText measures the text reader alone, without Build; MB/s
// is of the file.
func BenchmarkParseText(b *testing.B) {
	text, _ := benchInputs(b)
	b.SetBytes(benchFiles.textBytes)
	for b.Loop() {
		src, err := openSource(text, ReadOptions{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := src.readText(&Report{}); err != nil {
			b.Fatal(err)
		}
		src.close()
	}
}

// BenchmarkReadGzip measures Open on the gzip of the same list; MB/s is of
// the decompressed text, to compare with `zcat > /dev/null`.
func BenchmarkReadGzip(b *testing.B) {
	_, gz := benchInputs(b)
	b.SetBytes(benchFiles.textBytes)
	for b.Loop() {
		if _, _, err := Open(gz, ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseGzip: the gzip reader alone, without Build.
func BenchmarkParseGzip(b *testing.B) {
	_, gz := benchInputs(b)
	b.SetBytes(benchFiles.textBytes)
	for b.Loop() {
		src, err := openSource(gz, ReadOptions{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := src.readText(&Report{}); err != nil {
			b.Fatal(err)
		}
		src.close()
	}
}
