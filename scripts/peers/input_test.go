package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	o, err := parseArgs(strings.Fields("--tcgen a.tsv b.tsv --corpus c.tsv --peers=p1.tsv --peers p2.tsv --out o --date 2026-01-02"))
	want := options{corpus: "c.tsv", out: "o", date: "2026-01-02", tcgen: []string{"a.tsv", "b.tsv"}, peers: []string{"p1.tsv", "p2.tsv"}}
	if err != nil || !reflect.DeepEqual(o, want) {
		t.Errorf("parseArgs = %+v, %v; want %+v", o, err, want)
	}
}

func TestUsage(t *testing.T) {
	ok := "--corpus c --tcgen t --peers p --out o --date 2026-01-02"
	for _, c := range []struct{ args, msg string }{
		{"", "peers: --corpus takes one value\n"},
		{"c.tsv " + ok, "peers: unexpected argument \"c.tsv\"\n"},
		{ok + " --plot x", "peers: unknown flag --plot\n"},
		{ok + " --corpus d", "peers: --corpus takes one value\n"},
		{strings.Replace(ok, "--peers p", "--peers", 1), "peers: --peers needs at least one file\n"},
		{strings.Replace(ok, "2026-01-02", "2026-13-02", 1), "peers: --date \"2026-13-02\" is not YYYY-MM-DD\n"},
	} {
		var so, se bytes.Buffer
		code := run(strings.Fields(c.args), &so, &se)
		if code != exitUsage || !strings.HasPrefix(se.String(), c.msg+"usage:") {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", c.args, code, se.String(), exitUsage, c.msg)
		}
	}
	var so, se bytes.Buffer
	if code := run(strings.Fields(strings.Replace(ok, "--corpus c", "--corpus /nonexistent/c.tsv", 1)), &so, &se); code != exitBadInput ||
		!strings.HasPrefix(se.String(), "peers: open /nonexistent/c.tsv: ") {
		t.Errorf("missing corpus: exit %d, stderr %q", code, se.String())
	}
	if code := run([]string{"--help"}, &so, &se); code != 0 || !strings.HasPrefix(so.String(), "usage:") {
		t.Errorf("--help: exit %d, stdout %q", code, so.String())
	}
}

// TestBadInput: each broken file is named with its line in one line on
// stderr, exit 3, and nothing is written.
func TestBadInput(t *testing.T) {
	corpus := "name\tfamily\tcommand\tvertices\tedges\ttriangles\ng\tf\tcmd\t3\t3\t1\n"
	tcgen := "graph\tplan\tplan_source\ttriangles\tkernel_ms\tgpu_ms\truns\twall_ms\tdevice\ng\tp\tdefault\t1\t0.1\t0.2\t20\t5\tX\n"
	peers := "peer\tgraph\tvertices\tedges\ttriangles_expected\ttriangles\texact\tkernel_ms\truns\tprocess_wall_ms\tdevice\tnote\n" +
		"A\tg\t3\t3\t1\t1\tyes\t0.3\t10\t9\tX\t\n"
	for _, c := range []struct{ name, file, data, msg string }{
		{"no column", "corpus", "name\tfamily\tcommand\tvertices\tedges\n", "corpus.tsv:1: the header has no triangles column"},
		{"no header", "corpus", "# nothing\n", "corpus.tsv: no header line"},
		{"no graphs", "corpus", "name\tfamily\tcommand\tvertices\tedges\ttriangles\n", "corpus.tsv: no graphs"},
		{"short row", "corpus", corpus + "h\tf\tcmd\t3\t3\n", "corpus.tsv:3: 5 fields, the header has 6"},
		{"hash name", "corpus", corpus + " #h\tf\tcmd\t3\t3\t1\n", "corpus.tsv:3: graph name \"#h\" starts with #"},
		{"twice", "corpus", corpus + "g\tf\tcmd\t3\t3\t1\n", "corpus.tsv:3: graph g listed twice"},
		{"no count", "corpus", strings.Replace(corpus, "\t1\n", "\t\n", 1), "corpus.tsv:2: a graph needs a name, a family, vertices, edges and triangles"},
		{"bad count", "corpus", strings.Replace(corpus, "\t1\n", "\t-1\n", 1), "corpus.tsv:2: triangles \"-1\" is not a count"},
		{"bad time", "tcgen", strings.Replace(tcgen, "0.2", "fast", 1), "tcgen.tsv:2: gpu_ms \"fast\" is not a positive time"},
		{"zero time", "tcgen", strings.Replace(tcgen, "0.2", "0", 1), "tcgen.tsv:2: gpu_ms \"0\" is not a positive time"},
		{"two defaults", "tcgen", tcgen + "g\tq\tdefault\t1\t0.1\t0.2\t20\t5\tX\n", "tcgen.tsv:3: a second default-plan row for g (the first is at "},
		{"bad exact", "peers", strings.Replace(peers, "yes", "maybe", 1), "peers.tsv:2: exact \"maybe\" is neither yes nor no"},
		{"peer twice", "peers", peers + "A\tg\t3\t3\t1\t1\tyes\t0.3\t10\t9\tX\t\n", "peers.tsv:3: a second row for A on g"},
		{"dup column", "peers", strings.Replace(peers, "runs", "note", 1), "peers.tsv:1: column \"note\" twice in the header"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"corpus": corpus, "tcgen": tcgen, "peers": peers}
			files[c.file] = c.data
			for n, d := range files {
				if err := os.WriteFile(filepath.Join(dir, n+".tsv"), []byte(d), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(dir, "out")
			var so, se bytes.Buffer
			code := run([]string{"--corpus", filepath.Join(dir, "corpus.tsv"), "--tcgen", filepath.Join(dir, "tcgen.tsv"),
				"--peers", filepath.Join(dir, "peers.tsv"), "--out", out, "--date", "2026-01-02"}, &so, &se)
			if code != exitBadInput || !strings.Contains(se.String(), c.msg) || strings.Count(se.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want %d and one line with %q", code, se.String(), exitBadInput, c.msg)
			}
			if m, _ := filepath.Glob(out + "*"); len(m) > 0 {
				t.Errorf("wrote %v", m)
			}
		})
	}
}

// FuzzInputs: any three files are read or refused with an error, never a
// panic, and what is read gives one output row per corpus graph.
func FuzzInputs(f *testing.F) {
	corpus, _ := os.ReadFile("testdata/corpus.tsv")
	tcgen, _ := os.ReadFile("testdata/tcgen-a.tsv")
	peers, _ := os.ReadFile("testdata/peers-a.tsv")
	f.Add(corpus, tcgen, peers)
	f.Add(corpus, peers, tcgen)
	f.Add(append(corpus, " #x\tf\tc\t1\t1\t1\n"...), tcgen, peers)
	f.Fuzz(func(t *testing.T, corpus, tcgen, peers []byte) {
		in := &inputs{peers: map[string]map[string]peerRow{}}
		ct, err := parseTable("c", corpus, "name", "family", "command", "vertices", "edges", "triangles")
		if err == nil {
			in.corpus, err = parseCorpus(ct)
		}
		if err != nil {
			return
		}
		if tt, err := parseTable("t", tcgen, "graph", "plan", "plan_source", "triangles", "gpu_ms", "device"); err == nil {
			_ = in.addTcgen(tt)
		}
		if pt, err := parseTable("p", peers, "peer", "graph", "triangles", "exact", "kernel_ms", "device", "note"); err == nil {
			_ = in.addPeers(pt)
		}
		c := compare(in)
		lines := strings.Split(strings.TrimSuffix(string(c.tsv()), "\n"), "\n")
		rows := 0
		for _, l := range lines[1:] {
			if !strings.HasPrefix(l, "#") {
				rows++
			}
		}
		if rows != len(in.corpus) {
			t.Errorf("%d rows for %d graphs", rows, len(in.corpus))
		}
	})
}
