package tests

import (
	"bytes"
	"context"
	bin "encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tcgen/tcgen/tests/gputest"
)

// streamRun runs tcgen with stdin and extra descriptors (fd 3 onwards) as
// given, killed after a minute (a stream opened twice would hang), and
// returns its exit code and output.
func streamRun(t *testing.T, stdin *os.File, extra []*os.File, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, tcgenBin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env, cmd.ExtraFiles = stdin, &out, &errb, tcgenEnv, extra
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("tcgen %q hangs on a stream", args)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

// feed returns the read end of a pipe a goroutine writes data into.
func feed(t *testing.T, data []byte) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.Write(data)
		w.Close()
	}()
	t.Cleanup(func() { r.Close() })
	return r
}

func decodeCount(t *testing.T, code int, out, errs string) countResult {
	t.Helper()
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r countResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	return r
}

// TestCountStreams: a gzipped dataset counted through standard input, a
// process substitution's /dev/fd/3, /dev/stdin, a FIFO and a shell pipe
// into convert, cache on and off, gives the manifest's count; nothing is
// cached under the stream's path.
func TestCountStreams(t *testing.T) {
	row := gputest.Pick(t, gputest.Manifest(t), "lastfm_asia")[0]
	data, err := os.ReadFile(row.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, cache := range []string{"--no-cache", "--cache-dir"} {
		dir := t.TempDir()
		flags := []string{"-q", cache}
		if cache == "--cache-dir" {
			flags = append(flags, dir)
		}
		count := func(path string, stdin *os.File, extra []*os.File) countResult {
			args := append(append([]string{}, flags...), "count", path, "--backend", "cpu", "--json")
			code, out, errs := streamRun(t, stdin, extra, args...)
			return decodeCount(t, code, out, errs)
		}
		cases := map[string]func() countResult{
			"-":          func() countResult { return count("-", feed(t, data), nil) },
			"/dev/stdin": func() countResult { return count("/dev/stdin", feed(t, data), nil) },
			"/dev/fd/3":  func() countResult { return count("/dev/fd/3", nil, []*os.File{feed(t, data)}) },
			"fifo": func() countResult {
				p := filepath.Join(t.TempDir(), "fifo")
				if err := syscall.Mkfifo(p, 0o600); err != nil {
					t.Skipf("mkfifo: %v", err)
				}
				go func() {
					if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
						f.Write(data)
						f.Close()
					}
				}()
				return count(p, nil, nil)
			},
		}
		for name, run := range cases {
			if r := run(); r.Triangles != row.Triangles || r.Vertices != row.Vertices || r.FromCache {
				t.Errorf("%s %s: %d triangles, %d vertices (from cache %v); want %d, %d",
					cache, name, r.Triangles, r.Vertices, r.FromCache, row.Triangles, row.Vertices)
			}
		}
		if ents, _ := os.ReadDir(filepath.Join(dir, "graphs")); len(ents) != 0 {
			t.Errorf("%s: %d cache entries after streams", cache, len(ents))
		}
	}

	// A real shell pipe into convert, then a count of what it wrote.
	dir := t.TempDir()
	out := filepath.Join(dir, "x.tcsr")
	sh := exec.Command("sh", "-c", `gzip -dc "$1" | "$2" -q convert /dev/stdin -o "$3"`, "sh", row.Path, tcgenBin, out)
	sh.Env = tcgenEnv
	if msg, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("gzip -dc | tcgen convert /dev/stdin: %v: %s", err, msg)
	}
	code, js, errs := tcgen(t, "-q", "--no-cache", "count", out, "--backend", "cpu", "--json")
	r := decodeCount(t, code, js, errs)
	if r.Triangles != row.Triangles {
		t.Fatalf("converted from a pipe: %d triangles, want %d", r.Triangles, row.Triangles)
	}
}

// TestMalformedFirstLine: a first line that starts like a record but is
// malformed is an error naming file and line, not a skipped header.
func TestMalformedFirstLine(t *testing.T) {
	dir := t.TempDir()
	for _, first := range []string{"1 2x", "1e0 2"} {
		in := writeFile(t, dir, "g.txt", first+"\n1 3\n2 3\n")
		code, _, errs := tcgen(t, "-q", "--no-cache", "count", in, "--backend", "cpu")
		if code != exitBadInput || !strings.Contains(errs, in+":1: ") || strings.Contains(errs, "header") {
			t.Errorf("first line %q: exit %d, stderr %q", first, code, errs)
		}
	}
}

// TestCountAsymmetricCSR: a CSR file with one list entry raised by 1 and
// its checksum fixed (sorted, in range, no loop, but an edge stored one way)
// is refused with exit 3, naming the file and the entry; not counted.
func TestCountAsymmetricCSR(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "w.tcsr")
	if code, _, errs := tcgen(t, "-q", "graph", "wheel", "8", "-o", p); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// The layout (graph/cache.go): a 256-byte header with n at 16 and the
	// CRC-32C at 248, then n+1 offsets and the 4-byte entries.
	le := bin.LittleEndian
	n := le.Uint64(data[16:])
	off := func(v uint64) uint64 { return le.Uint64(data[256+8*v:]) }
	adj := 256 + 8*(n+1)
	entry := func(i uint64) uint32 { return le.Uint32(data[adj+4*i:]) }
	done := false
	for v := uint64(0); v < n && !done; v++ {
		for i := off(v); i < off(v+1); i++ {
			w := entry(i) + 1
			if uint64(w) < n && uint64(w) != v && (i+1 == off(v+1) || w < entry(i+1)) {
				le.PutUint32(data[adj+4*i:], w)
				done = true
				break
			}
		}
	}
	if !done {
		t.Fatal("no entry can be raised")
	}
	clear(data[248:252])
	le.PutUint32(data[248:], crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli)))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"count", p, "--backend", "cpu"}, {"count", p}, {"stats", p}} {
		code, out, errs := tcgen(t, append([]string{"-q", "--no-cache"}, args...)...)
		if code != exitBadInput || !strings.Contains(errs, p+": corrupt tcgen CSR file: vertex ") ||
			!strings.Contains(errs, "does not list") || strings.Count(strings.TrimSpace(errs), "\n") > 0 || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestFormatsEndToEnd: convert writes Ligra's .adj (gzipped too) and
// SciPy's .npz; count, stats and convert read them back with the
// manifest's counts; malformed ones exit 3 with one line naming the file.
func TestFormatsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	for _, row := range gputest.Pick(t, gputest.Manifest(t), "karate", "lastfm_asia") {
		for _, ext := range []string{".adj", ".adj.gz", ".npz"} {
			p := filepath.Join(dir, row.Name+ext)
			if code, _, errs := tcgen(t, "-q", "--no-cache", "convert", row.Path, "-o", p); code != exitOK {
				t.Fatalf("convert -o %s: exit %d: %s", ext, code, errs)
			}
			code, out, errs := tcgen(t, "-q", "--no-cache", "count", p, "--backend", "cpu", "--json")
			if r := decodeCount(t, code, out, errs); r.Triangles != row.Triangles || r.Vertices != row.Vertices || r.Edges != row.EdgesUndirected {
				t.Errorf("%s%s: %d triangles, %d vertices, %d edges; want %d, %d, %d", row.Name, ext,
					r.Triangles, r.Vertices, r.Edges, row.Triangles, row.Vertices, row.EdgesUndirected)
			}
			if code, out, errs := tcgen(t, "-q", "--no-cache", "stats", p); code != exitOK || !strings.Contains(out, "format            "+strings.TrimSuffix(ext[1:], ".gz")) {
				t.Errorf("stats %s%s: exit %d, %q %s", row.Name, ext, code, out, errs)
			}
		}
	}
	bad := map[string]string{
		"bad.adj": "AdjacencyGraph\n2\n1\n0\n1\n7\n",
		"bad.npz": "PK\x03\x04 not a zip",
	}
	for name, data := range bad {
		p := writeFile(t, dir, name, data)
		code, _, errs := tcgen(t, "-q", "--no-cache", "count", p, "--backend", "cpu")
		if code != exitBadInput || !strings.HasPrefix(errs, "tcgen: "+p) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%s: exit %d, stderr %q", name, code, errs)
		}
	}
	if code, _, errs := tcgen(t, "-q", "--no-cache", "convert", filepath.Join(dir, "karate.npz"), "-o", filepath.Join(dir, "x.npz.gz")); code != exitUsage {
		t.Errorf("convert -o x.npz.gz: exit %d: %s", code, errs)
	}
}
