package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/tests/gputest"
)

const k4 = "# K4 plus a loop, a duplicate and a pendant\n1 2\n1 3\n1 4\n2 3\n2 4\n3 4\n4 4\n2 1\n4 5\n"

func TestCountCPU(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "k4.txt", k4)
	code, out, errs := tcgen(t, "--cache-dir", dir, "count", in, "--backend", "cpu", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r countResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Triangles != 4 || r.Vertices != 5 || r.Edges != 7 || r.DegreeMax != 4 || r.SelfLoops != 1 || r.Duplicates != 1 || r.Backend != "cpu" {
		t.Errorf("got %+v", r)
	}
	// Second run is served from the cache.
	_, out, _ = tcgen(t, "--cache-dir", dir, "count", in, "--backend", "cpu", "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil || !r.FromCache || r.Triangles != 4 {
		t.Errorf("second run: from cache %v, %d triangles (%v)", r.FromCache, r.Triangles, err)
	}
}

func TestCountAutoFallsBackToCPU(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "k4.txt", k4)
	code, out, errs := tcgen(t, "--no-cache", "count", in, "--expect", "4")
	if code != exitOK || !strings.Contains(out, "triangles  4") && !strings.Contains(out, "triangles   4") {
		t.Fatalf("exit %d, out %q, err %q", code, out, errs)
	}
	if strings.Contains(out, "backend     cpu") && !strings.Contains(errs, "counting with the CPU oracle") {
		t.Errorf("a CPU fallback must say so on stderr: %q", errs)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "k4.txt", k4)
	bad := writeFile(t, dir, "bad.txt", "1 2\n2 3\nabc def\n")
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"bad line", []string{"count", bad}, exitBadInput, "bad.txt:3:"},
		{"missing file", []string{"count", filepath.Join(dir, "nope.txt")}, exitBadInput, "nope.txt"},
		{"unknown flag", []string{"count", good, "--bogus"}, exitUsage, "unknown flag"},
		{"no command", []string{}, exitUsage, ""},
		{"bad enum", []string{"count", good, "--backend", "tpu"}, exitUsage, "backend"},
		{"mismatch", []string{"count", good, "--backend", "cpu", "--expect", "5"}, exitMismatch, "mismatch"},
		{"unknown preset", []string{"count", good, "--preset", "nope"}, exitUsage, "unknown preset"},
		{"bad spec", []string{"count", good, "--spec", writeFile(t, dir, "bad.yaml", "prefix: x\nbogus: 1\n")}, exitBadInput, "bad.yaml"},
		{"bad rmat", []string{"graph", "rmat", "--scale", "0", "-o", filepath.Join(dir, "r.tcsr")}, exitUsage, "scale"},
		{"wrong format", []string{"count", good, "--format", "mtx"}, exitBadInput, "k4.txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := tcgen(t, append([]string{"--no-cache", "-q"}, c.args...)...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, errs)
			}
			if !strings.Contains(errs, c.msg) {
				t.Errorf("stderr %q lacks %q", errs, c.msg)
			}
			if strings.Contains(errs, "goroutine ") {
				t.Errorf("a Go panic reached the user: %s", errs)
			}
		})
	}
}

func TestPerVertexAndNoPartialOutput(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "k4.txt", k4)
	pv := filepath.Join(dir, "pv.tsv")
	if code, _, errs := tcgen(t, "--no-cache", "count", in, "--backend", "cpu", "--per-vertex", pv); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := os.Open(pv)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := map[string]uint64{}
	var sum uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		id, n, _ := strings.Cut(sc.Text(), "\t")
		v, _ := strconv.ParseUint(n, 10, 64)
		got[id] = v
		sum += v
	}
	if got["1"] != 3 || got["4"] != 3 || got["5"] != 0 || sum != 12 {
		t.Errorf("per-vertex counts %v (sum %d, want 3 per K4 vertex, 0 for 5)", got, sum)
	}
	// A failed read writes no output file.
	bad := writeFile(t, dir, "bad.txt", "1 2\nx\n")
	out := filepath.Join(dir, "out.tsv")
	tcgen(t, "--no-cache", "count", bad, "--per-vertex", out)
	conv := filepath.Join(dir, "out.tcsr")
	tcgen(t, "--no-cache", "convert", bad, "-o", conv)
	for _, p := range []string{out, conv} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists after a failed run", p)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

func TestConvertGenerateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, out := range []string{"w.tcsr", "w.txt", "w.txt.gz", "w.mtx", "w.bin32", "w.bin64"} {
		p := filepath.Join(dir, out)
		if code, _, errs := tcgen(t, "-q", "graph", "wheel", "6", "-o", p); code != 0 {
			t.Fatalf("generate -o %s: exit %d: %s", out, code, errs)
		}
		code, js, errs := tcgen(t, "-q", "--no-cache", "count", p, "--backend", "cpu", "--json")
		if code != 0 {
			t.Fatalf("count %s: exit %d: %s", out, code, errs)
		}
		var r countResult
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatal(err)
		}
		if r.Triangles != 6 || r.Vertices != 7 || r.Edges != 12 {
			t.Errorf("%s: %d triangles, %d vertices, %d edges; want 6, 7, 12", out, r.Triangles, r.Vertices, r.Edges)
		}
	}
	src := writeFile(t, dir, "k4.txt", k4)
	dst := filepath.Join(dir, "k4.tcsr")
	if code, _, errs := tcgen(t, "-q", "--no-cache", "convert", src, "-o", dst); code != 0 {
		t.Fatalf("convert: %d %s", code, errs)
	}
	if code, out, _ := tcgen(t, "-q", "--no-cache", "count", dst, "--backend", "cpu", "--expect", "4"); code != 0 {
		t.Errorf("count of converted file: exit %d\n%s", code, out)
	}
}

func TestStatsGolden(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "k4.txt", k4)
	code, out, errs := tcgen(t, "--no-cache", "stats", in, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "stats_k4.json", strings.ReplaceAll(out, in, "k4.txt"))
}

// TestStatsDefaultChoice: stats --spec default names the variant the
// default plan takes and the guard features that picked it, as measured
// (the edge count first; a variant's conditions stop at the first that
// fails, so for a small graph of few wedges the pivot's wedges per edge,
// dense rows' vertices and the GPU's bandwidth, which stats takes from
// --dram-tbps, and no more), in name order.
func TestStatsDefaultChoice(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "k4.txt", k4)
	code, out, errs := tcgen(t, "--no-cache", "stats", in, "--spec", "default")
	if code != 0 || !regexp.MustCompile(`(?m)^plan +default_[0-9a-f]{8} \(variant \d+, picked by dram_gbps 4270, edges \d+, vertices \d+, wedges_per_edge [0-9.]+\)$`).MatchString(out) {
		t.Errorf("stats --spec default: exit %d, %s\n%s", code, errs, out)
	}
}

func TestGenAndList(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := tcgen(t, "cuda", "--preset", "polak", "-o", dir)
	if code != 0 {
		t.Fatalf("gen: %d %s", code, errs)
	}
	files := strings.Fields(out)
	if len(files) != 3 || filepath.Base(files[2]) != "tcgen.cuh" {
		t.Fatalf("cuda printed %q", out)
	}
	src, err := os.ReadFile(files[0])
	if err != nil || !strings.HasPrefix(string(src), "// Code generated by tcgen cuda; DO NOT EDIT.") {
		t.Errorf("generated source: %v %.60q", err, src)
	}
	code, out, _ = tcgen(t, "list")
	if code != 0 || !strings.Contains(out, "trust") || !strings.Contains(out, "buckets") {
		t.Errorf("list: exit %d\n%s", code, out)
	}
	code, out, _ = tcgen(t, "--help")
	if code != 0 || !strings.Contains(out, "Exit codes") {
		t.Errorf("--help lacks the exit codes: %d\n%s", code, out)
	}
}

// TestCountManifest: for every shared dataset, `tcgen count` matches
// MANIFEST.tsv's vertices, edges_undirected, max_degree and triangles
// (without the datasets: skipped, under CI=true failed).
func TestCountManifest(t *testing.T) {
	cache := t.TempDir()
	for _, d := range gputest.Manifest(t) {
		t.Run(d.File, func(t *testing.T) {
			t.Parallel()
			code, out, errs := tcgen(t, "-q", "--cache-dir", cache, "count", d.Path, "--backend", "cpu", "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var r countResult
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			got := []uint64{r.Vertices, r.Edges, r.DegreeMax, r.Triangles}
			want := []uint64{d.Vertices, d.EdgesUndirected, d.MaxDegree, d.Triangles}
			for i, name := range []string{"vertices", "edges_undirected", "max_degree", "triangles"} {
				if got[i] != want[i] {
					t.Errorf("%s: %s = %d, manifest says %d", d.File, name, got[i], want[i])
				}
			}
		})
	}
}

// TestFuzzCompile: without a GPU, fuzz generates and NVRTC-compiles every
// drawn plan (under CI=true a missing NVRTC is a failure).
func TestFuzzCompile(t *testing.T) {
	code, out, errs := tcgen(t, "-q", "fuzz", "--plans", "6", "--seed", "11", "--backend", "compile", "--archs", "compute_80", "--json")
	if code == exitNoGPU && !gputest.CI() {
		t.Skipf("no NVRTC here: %s", errs)
	}
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	var s fuzzSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Plans != 6 || s.Compiles != s.Plans-s.Refused || s.Errors != 0 || len(s.Histogram["iterator"]) == 0 || len(s.Histogram["output"]) == 0 {
		t.Errorf("summary %+v", s)
	}
	t.Logf("fuzz compiled %d plans through %s", s.Compiles, s.Device)
}

// TestConvertOriented: convert --orient writes an oriented CSR file that
// count reads as it is (CPU and --check), for any orientation and
// relabelling, packed (3 bytes an entry) or not; stats and --per-vertex,
// which need the undirected graph, refuse it with the bad-input code, and
// --relabel needs --orient.
func TestConvertOriented(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "rmat.tcsr")
	if code, _, errs := tcgen(t, "-q", "graph", "rmat", "--scale", "10", "-o", src); code != 0 {
		t.Fatalf("generate: %d %s", code, errs)
	}
	_, js, _ := tcgen(t, "-q", "--no-cache", "count", src, "--backend", "cpu", "--json")
	var want countResult
	if err := json.Unmarshal([]byte(js), &want); err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int64{}
	for _, args := range [][]string{{"--orient", "degree", "--relabel"}, {"--orient", "degree"}, {"--orient", "id"}, {"--orient", "id", "--relabel"},
		{"--orient", "degree", "--relabel", "--pack", "no"}, {"--orient", "degree", "--relabel", "--pack", "yes"}} {
		dst := filepath.Join(dir, "o.tcsr")
		if code, _, errs := tcgen(t, append([]string{"-q", "--no-cache", "convert", src, "-o", dst}, args...)...); code != 0 {
			t.Fatalf("convert %v: %d %s", args, code, errs)
		}
		if st, err := os.Stat(dst); err == nil {
			sizes[strings.Join(args, " ")] = st.Size()
		}
		code, js, errs := tcgen(t, "-q", "--no-cache", "count", dst, "--backend", "cpu", "--json", "--check")
		var r countResult
		if code != 0 || json.Unmarshal([]byte(js), &r) != nil || r.Triangles != want.Triangles || r.Edges != want.Edges || r.Vertices != want.Vertices {
			t.Errorf("count of %v file: exit %d, %+v, want %d triangles, %d edges: %s", args, code, r, want.Triangles, want.Edges, errs)
		}
		if code, _, errs := tcgen(t, "-q", "--no-cache", "stats", dst); code != exitBadInput || !strings.Contains(errs, "oriented") {
			t.Errorf("stats of an oriented file: exit %d %q, want %d", code, errs, exitBadInput)
		}
		if code, _, _ := tcgen(t, "-q", "--no-cache", "count", dst, "--backend", "cpu", "--per-vertex", filepath.Join(dir, "pv.txt")); code != exitBadInput {
			t.Errorf("--per-vertex of an oriented file: exit %d, want %d", code, exitBadInput)
		}
	}
	// auto packs an oriented graph that fits: a quarter of the lists' bytes less.
	const dr = "--orient degree --relabel"
	if sizes[dr] != sizes[dr+" --pack yes"] || sizes[dr+" --pack no"]-sizes[dr] < int64(want.Edges)-8 { // the sections are padded to 8 bytes
		t.Errorf("file sizes %v: auto should pack, saving a byte an edge", sizes)
	}
	if code, _, _ := tcgen(t, "-q", "--no-cache", "convert", src, "-o", filepath.Join(dir, "x.txt"), "--pack", "yes"); code != exitUsage {
		t.Errorf("--pack yes to an edge list: exit %d, want %d", code, exitUsage)
	}
	if code, _, _ := tcgen(t, "-q", "--no-cache", "convert", src, "-o", filepath.Join(dir, "x.tcsr"), "--relabel"); code != exitUsage {
		t.Errorf("--relabel without --orient: exit %d, want %d", code, exitUsage)
	}
	if code, _, _ := tcgen(t, "-q", "--no-cache", "convert", src, "-o", filepath.Join(dir, "x.txt"), "--orient", "degree"); code != exitUsage {
		t.Errorf("--orient to an edge list: exit %d, want %d", code, exitUsage)
	}
}

// TestExitCodesHelp: the exit codes these tests expect are the ones
// tcgen --help documents.
func TestExitCodesHelp(t *testing.T) {
	code, out, errs := tcgen(t, "--help")
	if code != exitOK {
		t.Fatalf("--help: exit %d: %s", code, errs)
	}
	help := strings.Join(strings.Fields(out), " ")
	for _, c := range []struct {
		code int
		what string
	}{{exitOK, "ok"}, {exitInternal, "internal error"}, {exitUsage, "usage"}, {exitBadInput, "bad input"}, {exitMismatch, "count mismatch"},
		{exitNoGPU, "no usable GPU"}, {exitTooLarge, "does not fit"}, {exitCompile, "compile or launch failure"}, {exitNoMPI, "no MPI library"}, {exitInterrupted, "interrupted"}} {
		if want := strconv.Itoa(c.code) + " " + c.what; !strings.Contains(help, want) {
			t.Errorf("--help does not document %q", want)
		}
	}
}

// TestGraphFamilies generates one small graph of each synthetic family as a
// text edge list, counts it with tcgen count, and checks the count against
// the edges of the file counted here by brute force; a second run with
// GOMAXPROCS=1 must write the same file. A bad parameter is a usage error.
func TestGraphFamilies(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		bad  []string // the same family with one parameter out of range
		msg  string
	}{
		{"ba", []string{"--vertices", "400", "--m", "4", "--seed", "3"}, []string{"--vertices", "400", "--m", "0"}, "barabasi-albert: m"},
		{"ws", []string{"--vertices", "300", "--k", "8", "--p", "0.2"}, []string{"--vertices", "300", "--k", "7", "--p", "0.2"}, "must be even"},
		{"rgg", []string{"--vertices", "500", "--dim", "3", "--degree", "12", "--torus"}, []string{"--vertices", "500", "--radius", "0.7", "--torus"}, "radius 0.7"},
		{"rgg", []string{"--vertices", "500", "--radius", "0.08", "--shuffle"}, nil, ""},
		{"chung-lu", []string{"--vertices", "500", "--degree", "10", "--gamma", "2.1", "--max-degree", "200"}, []string{"--vertices", "500", "--degree", "10", "--gamma", "3.5"}, "gamma = 3.5"},
		{"sbm", []string{"--vertices", "300", "--sizes", "100,200", "--degree-in", "15", "--degree-out", "2"}, []string{"--vertices", "300", "--blocks", "3", "--degree-in", "150", "--degree-out", "2"}, "degree-in 150"},
		{"road", []string{"--rows", "20", "--cols", "25", "--diagonals", "--delete", "0.2", "--links", "30"}, []string{"--rows", "20", "--cols", "25", "--delete", "1.5"}, "delete fraction 1.5"},
	} {
		out := filepath.Join(dir, c.name+".txt")
		args := append([]string{"-q", "graph", c.name}, c.args...)
		if code, _, errs := tcgen(t, append(args, "-o", out)...); code != exitOK {
			t.Fatalf("%s: exit %d: %s", c.name, code, errs)
		}
		text, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		edges, tri := bruteCount(t, string(text))
		code, js, errs := tcgen(t, "-q", "--no-cache", "count", out, "--backend", "cpu", "--json")
		if code != exitOK {
			t.Fatalf("%s: count: exit %d: %s", c.name, code, errs)
		}
		var r countResult
		if err := json.Unmarshal([]byte(js), &r); err != nil {
			t.Fatal(err)
		}
		if r.Edges != edges || r.Triangles != tri || tri == 0 {
			t.Errorf("%s %v: count says %d edges, %d triangles; the file has %d and %d", c.name, c.args, r.Edges, r.Triangles, edges, tri)
		}
		cmd := exec.Command(tcgenBin, append(args, "-o", out+".1")...)
		cmd.Env = append(slices.Clone(tcgenEnv), "GOMAXPROCS=1")
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s with GOMAXPROCS=1: %v: %s", c.name, err, msg)
		}
		if again, err := os.ReadFile(out + ".1"); err != nil || !bytes.Equal(again, text) {
			t.Errorf("%s: GOMAXPROCS=1 wrote another graph (%v)", c.name, err)
		}
		if c.bad != nil {
			bad := filepath.Join(dir, "bad.txt")
			code, _, errs := tcgen(t, append(append([]string{"-q", "graph", c.name}, c.bad...), "-o", bad)...)
			// One line saying what is wrong, then the usage hint.
			msg, hint, _ := strings.Cut(errs, "\n")
			if code != exitUsage || !strings.HasPrefix(msg, "tcgen: ") || !strings.Contains(msg, c.msg) || hint != "Run \"tcgen help graph "+c.name+"\" for usage.\n" {
				t.Errorf("%s %v: exit %d, stderr %q; want %d, one line with %q and the usage hint", c.name, c.bad, code, errs, exitUsage, c.msg)
			}
			if _, err := os.Stat(bad); !os.IsNotExist(err) {
				t.Errorf("%s: a refused graph left %s", c.name, bad)
			}
		}
	}
}

// bruteCount reads a text edge list and returns its distinct edges and,
// trying every edge against every vertex, its triangles.
func bruteCount(t *testing.T, text string) (edges, triangles uint64) {
	t.Helper()
	adj := map[[2]uint64]bool{}
	var n uint64
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || strings.HasPrefix(f[0], "#") || strings.HasPrefix(f[0], "%") {
			continue
		}
		u, err1 := strconv.ParseUint(f[0], 10, 64)
		v, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("line %q", line)
		}
		if u != v && !adj[[2]uint64{u, v}] {
			adj[[2]uint64{u, v}], adj[[2]uint64{v, u}] = true, true
			edges++
		}
		n = max(n, u+1, v+1)
	}
	for e := range adj {
		if e[0] >= e[1] {
			continue
		}
		for w := e[1] + 1; w < n; w++ {
			if adj[[2]uint64{e[0], w}] && adj[[2]uint64{e[1], w}] {
				triangles++
			}
		}
	}
	return edges, triangles
}

// TestCompileWorker: the worker tune and sweep start on every core compiles
// each plan of its standard input into the kernel cache it is given and
// answers each with its error ("" once the kernels are there), until its
// input ends (under CI=true a missing NVRTC is a failure).
func TestCompileWorker(t *testing.T) {
	root, err := gputest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	spec, err := os.ReadFile(filepath.Join(root, "examples", "two-class.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := json.Marshal(map[string]any{"spec": string(spec), "major": 9, "minor": 0, "shared_optin": 232448})
	bad, _ := json.Marshal(map[string]any{"spec": "prefix: x\nclasses: []\n", "major": 9})
	kernels := t.TempDir()
	code, out, errs := streamRun(t, feed(t, []byte(string(req)+"\n"+string(bad)+"\n")), nil, "__compile-worker", "--kernels", kernels)
	if code == exitNoGPU && !gputest.CI() {
		t.Skipf("no NVRTC here: %s", errs)
	}
	want := "tcgen compile worker 1\n" + `{"error":""}` + "\n" + `{"error":"gen: plan x is invalid: plan has no classes (and no guard)"}` + "\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d, output %q, want %q; %s", code, out, want, errs)
	}
	if files, _ := filepath.Glob(filepath.Join(kernels, "*.kernel")); len(files) != 1 {
		t.Errorf("%d kernels in the cache, want the plan's 1", len(files))
	}
	if code, _, errs := tcgen(t, "__compile-worker"); code != exitUsage || !strings.Contains(errs, "--kernels DIR") {
		t.Errorf("no --kernels: exit %d, %s", code, errs)
	}
}
