package graph

import (
	"bufio"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// Benchmark inputs. By default a synthetic edge list is generated; set
// TCGEN_BENCH_GZ to a gzip-compressed edge list (such as
// ../shared/datasets/ca-AstroPh.txt.gz) to measure that file instead, or
// TCGEN_BENCH_TEXT to a plain one. The other form is made in a temporary
// directory. MB/s is always of the plain text, so BenchmarkReadGzip and
// BenchmarkZcat compare directly.

// benchTextLines: 4M SNAP-style lines (about 60 MB), enough for steady
// throughput yet quick to generate.
const benchTextLines = 1 << 22

var benchFiles struct {
	once      sync.Once
	text, gz  string
	textBytes int64
	err       error
}

func benchInputs(b *testing.B) (text, gz string) {
	benchFiles.once.Do(func() {
		benchFiles.err = makeBenchInputs()
	})
	if benchFiles.err != nil {
		b.Fatal(benchFiles.err)
	}
	return benchFiles.text, benchFiles.gz
}

func makeBenchInputs() error {
	dir, err := os.MkdirTemp("", "tcgen-bench-")
	if err != nil {
		return err
	}
	text, gz := os.Getenv("TCGEN_BENCH_TEXT"), os.Getenv("TCGEN_BENCH_GZ")
	switch {
	case gz != "":
		text = filepath.Join(dir, "edges.txt")
		err = gunzipFile(gz, text)
	case text != "":
		gz = filepath.Join(dir, "edges.txt.gz")
		err = gzipFile(text, gz)
	default:
		text, gz = filepath.Join(dir, "edges.txt"), filepath.Join(dir, "edges.txt.gz")
		if err = writeSyntheticText(text); err == nil {
			err = gzipFile(text, gz)
		}
	}
	if err != nil {
		return err
	}
	st, err := os.Stat(text)
	if err != nil {
		return err
	}
	benchFiles.text, benchFiles.gz, benchFiles.textBytes = text, gz, st.Size()
	return nil
}

// writeSyntheticText writes uniformly random pairs of ids below 2^21, tab
// separated, under a SNAP-style comment header.
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

func gunzipFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	zr, err := gzip.NewReader(in)
	if err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, zr); err != nil {
		return err
	}
	return out.Close()
}

// BenchmarkReadText measures Open on a plain text edge list (parse and
// Build).
func BenchmarkReadText(b *testing.B) {
	text, _ := benchInputs(b)
	b.SetBytes(benchFiles.textBytes)
	for b.Loop() {
		if _, _, err := Open(text, ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseText measures the text reader alone, without Build.
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

// BenchmarkReadGzip measures Open on the gzip of the same list.
func BenchmarkReadGzip(b *testing.B) {
	_, gz := benchInputs(b)
	b.SetBytes(benchFiles.textBytes)
	for b.Loop() {
		if _, _, err := Open(gz, ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkZcat runs `zcat FILE > /dev/null` on the same gzip file, the
// yardstick for BenchmarkReadGzip (at most twice its time). It includes
// zcat's process start, a millisecond or so.
func BenchmarkZcat(b *testing.B) {
	_, gz := benchInputs(b)
	if _, err := exec.LookPath("zcat"); err != nil {
		b.Skip("no zcat")
	}
	b.SetBytes(benchFiles.textBytes)
	for b.Loop() {
		cmd := exec.Command("zcat", gz)
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPeakRSS converts $TCGEN_PEAK_FILE (for make bench-cpu: RMAT scale 22
// written as text) and checks the process's peak RSS against the budget of
// 32 bytes per input record plus 16 per vertex. Run it alone in its own
// process: the peak is the whole process's.
func TestPeakRSS(t *testing.T) {
	path := os.Getenv("TCGEN_PEAK_FILE")
	if path == "" {
		t.Skip("set TCGEN_PEAK_FILE to an edge list to measure")
	}
	g, rep, err := Open(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	var peakKB int64
	for _, l := range strings.Split(string(status), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			peakKB, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	peak := peakKB << 10
	budget := 32*int64(rep.InputEdges) + 16*int64(g.N())
	t.Logf("%s: %d records, %d vertices, %d edges; peak RSS %d MiB = %.1f B/record (budget %d MiB: 32 B/record + 16 B/vertex)",
		path, rep.InputEdges, g.N(), g.Edges(), peak>>20, float64(peak)/float64(max(rep.InputEdges, 1)), budget>>20)
	if peak > budget {
		t.Fatalf("peak RSS %d bytes over the budget of %d", peak, budget)
	}
}

// TestWriteRMATText writes the raw samples of RMAT at $TCGEN_RMAT_SCALE
// (default 22, seed 42, edge factor 16) as a text edge list to
// $TCGEN_RMAT_TEXT, one "u<TAB>v" line per sample (loops and duplicates
// kept): the input of the peak-memory benchmark.
func TestWriteRMATText(t *testing.T) {
	path := os.Getenv("TCGEN_RMAT_TEXT")
	if path == "" {
		t.Skip("set TCGEN_RMAT_TEXT to a path to write")
	}
	scale := 22
	if s := os.Getenv("TCGEN_RMAT_SCALE"); s != "" {
		var err error
		if scale, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	el, err := DefaultRMAT(scale).EdgeList()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var line []byte
	for i := uint64(0); i < el.Len(); i++ {
		u, v := el.At(i)
		line = strconv.AppendUint(line[:0], u, 10)
		line = append(line, '\t')
		line = strconv.AppendUint(line, v, 10)
		line = append(line, '\n')
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkParseBlock: the line parser alone on one block of RMAT-like
// lines (ids up to 2^22, tab separated), single-threaded.
func BenchmarkParseBlock(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	var d []byte
	for len(d) < textBlockSize {
		d = strconv.AppendUint(d, uint64(r.IntN(1<<22)), 10)
		d = append(d, '\t')
		d = strconv.AppendUint(d, uint64(r.IntN(1<<22)), 10)
		d = append(d, '\n')
	}
	blk := &textBlock{data: d}
	b.SetBytes(int64(len(d)))
	for b.Loop() {
		parseTextBlock(blk, &textMode{header: true})
	}
	if blk.bad != nil || blk.first != nil {
		b.Fatal("parse failed")
	}
}
