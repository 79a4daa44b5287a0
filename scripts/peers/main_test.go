package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/report"
)

var update = flag.Bool("update", false, "rewrite testdata/out.golden.tsv")

const date = "2026-11-27"

// runFixtures runs the program on the fixtures, tcgen files replaced when
// given, and returns the exit code, stdout, stderr and the output prefix.
func runFixtures(t *testing.T, tcgen ...string) (int, string, string, string) {
	t.Helper()
	if len(tcgen) == 0 {
		tcgen = []string{"testdata/tcgen-a.tsv", "testdata/tcgen-b.tsv"}
	}
	out := filepath.Join(t.TempDir(), "sub", "peers")
	args := append([]string{"--corpus", "testdata/corpus.tsv", "--tcgen"}, tcgen...)
	args = append(args, "--peers", "testdata/peers-a.tsv", "testdata/peers-b.tsv", "--out", out, "--date="+date)
	var so, se bytes.Buffer
	code := run(args, &so, &se)
	return code, so.String(), se.String(), out
}

func readOut(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rowsByGraph maps a graph to its OUT.tsv row, column name -> cell.
func rowsByGraph(t *testing.T, tsv string) map[string]map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(tsv), "\n")
	head := strings.Split(lines[0], "\t")
	rows := map[string]map[string]string{}
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != len(head) {
			t.Fatalf("row %q has %d fields, header %d", l, len(f), len(head))
		}
		m := map[string]string{}
		for i, h := range head {
			m[h] = f[i]
		}
		rows[f[0]] = m
	}
	return rows
}

func TestGolden(t *testing.T) {
	code, stdout, stderr, out := runFixtures(t)
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	got := readOut(t, out+".tsv")
	golden := filepath.Join("testdata", "out.golden.tsv")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./scripts/peers -run Golden -update)", err)
	}
	if got != string(want) {
		t.Errorf("OUT.tsv differs from %s (go test ./scripts/peers -run Golden -update to accept):\n%s", golden, got)
	}
	// The summary goes to stdout too, as the comment lines that end the TSV.
	if !strings.HasSuffix(got, stdout) || !strings.HasPrefix(stdout, "# geometric mean") {
		t.Errorf("stdout %q is not the TSV's summary", stdout)
	}
}

func TestBestPeer(t *testing.T) {
	_, _, _, out := runFixtures(t)
	rows := rowsByGraph(t, readOut(t, out+".tsv"))
	for _, c := range []struct {
		graph, best, bestMs, ratio string
		cells                      map[string]string
	}{
		// TRUST (wrong count) and Bisson (crash) are faster or timeless: never best.
		{"rmat18", "WeTriC", "1.0900", "2.61", map[string]string{"TRUST": "wrong", "Bisson": "crash", "Fox": "1.2000"}},
		// TRUST says exact against its own reference, which is not the corpus's.
		{"rmat20", "WeTriC", "7.6000", "3.7", map[string]string{"GroupTC": "timeout", "TRUST": "wrong"}},
		{"email-Enron", "WeTriC", "0.0400", "0.8", map[string]string{"Fox": "skipped", "TRUST": "0.0450"}},
		{"roadNet-CA", "WeTriC", "1.2000", "1.2", map[string]string{"Fox": "skipped"}},
		// tcgen has a count but no time: a best peer, no ratio.
		{"grid1k", "TRUST", "2.0000", "-", map[string]string{"Fox": "wrong", "Bisson": "missing"}},
		{"absent", "missing", "-", "-", map[string]string{"WeTriC": "missing"}},
	} {
		r := rows[c.graph]
		if r["best_peer"] != c.best || r["best_peer_ms"] != c.bestMs || r["ratio"] != c.ratio {
			t.Errorf("%s: best %s %s ratio %s, want %s %s %s", c.graph, r["best_peer"], r["best_peer_ms"], r["ratio"], c.best, c.bestMs, c.ratio)
		}
		for p, want := range c.cells {
			if r[p] != want {
				t.Errorf("%s: %s cell %q, want %q", c.graph, p, r[p], want)
			}
		}
	}
	if r := rows["grid1k"]; r["tcgen_ms"] != "failed" || r["tcgen_exact"] != "yes" || !strings.Contains(r["device"], " / ") {
		t.Errorf("grid1k: tcgen %s exact %s device %s", r["tcgen_ms"], r["tcgen_exact"], r["device"])
	}
	if r := rows["absent"]; r["tcgen_ms"] != "missing" || r["tcgen_exact"] != "-" {
		t.Errorf("absent: tcgen %s exact %s", r["tcgen_ms"], r["tcgen_exact"])
	}
}

func TestSummary(t *testing.T) {
	_, stdout, _, _ := runFixtures(t)
	gm := math.Exp((math.Log(1.09/0.418) + math.Log(7.6/2.056) + math.Log(0.04/0.05) + math.Log(1.2/1.0)) / 4)
	for _, want := range []string{
		fmt.Sprintf("# geometric mean of best_peer_ms / tcgen_ms over the 4 of 6 graphs with both: %.3g\n", gm),
		// email-Enron's best peer takes 0.04 ms; roadNet-CA's 1.2x misses the goal.
		"# tcgen at least 1.5x faster than the best peer on 2 of 3 graphs where the best peer takes >= 0.1 ms\n",
		"# tcgen slower than the best peer on: email-Enron (0.8)\n",
		"# WARNING: timed on more than one GPU: grid1k\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "INEXACT") {
		t.Errorf("summary shouts about exact counts:\n%s", stdout)
	}
}

func TestGeomean(t *testing.T) {
	if g := geomean([]float64{2, 8}); math.Abs(g-4) > 1e-12 {
		t.Errorf("geomean(2, 8) = %v", g)
	}
	for v, want := range map[float64]string{2.6077: "2.61", 3.6965: "3.7", 0.8: "0.8", 1234.5: "1230", 0.004123: "0.00412"} {
		if got := fmtRatio(v); got != want {
			t.Errorf("fmtRatio(%v) = %s, want %s", v, got, want)
		}
	}
}

func TestMismatch(t *testing.T) {
	head := "graph\tplan\tplan_source\ttriangles\tkernel_ms\tgpu_ms\truns\twall_ms\tdevice\n"
	for _, c := range []struct{ name, rows, exact string }{
		{"default", "rmat20\thybrid.yaml\tdefault\t424785435\t1.9\t2.056\t20\t900\tNVIDIA H200\n", "no"},
		{"alternative", "rmat20\thybrid.yaml\tdefault\t424785436\t1.9\t2.056\t20\t900\tNVIDIA H200\n" +
			"rmat20\tpivot.yaml\tsearched\t424785437\t1.8\t2.0\t20\t900\tNVIDIA H200\n", "yes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "tcgen.tsv")
			if err := os.WriteFile(p, []byte(head+c.rows), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr, out := runFixtures(t, p)
			if code != exitMismatch || !strings.HasPrefix(stderr, "peers: INEXACT TCGEN COUNT: rmat20: ") || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want %d and one line naming rmat20", code, stderr, exitMismatch)
			}
			tsv := readOut(t, out+".tsv")
			if !strings.Contains(tsv, "\n# !!! INEXACT TCGEN COUNT: rmat20: ") {
				t.Errorf("OUT.tsv does not shout:\n%s", tsv)
			}
			r := rowsByGraph(t, tsv)["rmat20"]
			if r["tcgen_exact"] != c.exact || (c.exact == "no") != (r["ratio"] == "-") {
				t.Errorf("rmat20: exact %s ratio %s", r["tcgen_exact"], r["ratio"])
			}
		})
	}
}

// A filled bar: its top is the second point; a reference line across the plot.
var (
	barPath = regexp.MustCompile(`<path d="M[0-9.]+,[0-9.]+L[0-9.]+,([0-9.]+)L[^"]*" style="fill:#([0-9A-F]{6})" />`)
	refLine = regexp.MustCompile(`<path d="M[0-9.]+,([0-9.]+)L[0-9.]+,[0-9.]+" style="fill:none;stroke:#(000000|C00000)[;"]`)
)

func TestSVG(t *testing.T) {
	_, _, _, out := runFixtures(t)
	svg := readOut(t, out+".svg")
	hex := func(i int) string {
		r, g, b, _ := report.SeriesColor(i).RGBA()
		return fmt.Sprintf("%02X%02X%02X", r>>8, g>>8, b>>8)
	}
	// One bar per graph with a ratio, in its family's colour, grouped:
	// rmat18, rmat20 (rmat, first family), email-Enron, roadNet-CA (snap).
	want := []struct {
		color string
		ratio float64
	}{{hex(0), 1.09 / 0.418}, {hex(0), 7.6 / 2.056}, {hex(1), 0.04 / 0.05}, {hex(1), 1.2 / 1.0}}
	var bars [][]string
	for _, m := range barPath.FindAllStringSubmatch(svg, -1) {
		if m[2] != "FFFFFF" {
			bars = append(bars, m)
		}
	}
	if len(bars) != len(want) {
		t.Fatalf("%d bars, want %d", len(bars), len(want))
	}
	// The lines at 1 and 1.5 fix the log scale the bar tops must sit on.
	level := map[string]float64{}
	for _, m := range refLine.FindAllStringSubmatch(svg, -1) {
		level[m[2]], _ = strconv.ParseFloat(m[1], 64)
	}
	y1, y15 := level["000000"], level["C00000"]
	perE := (y15 - y1) / math.Log(speedupGoal)
	if !(perE > 0) {
		t.Fatalf("no lines at 1 and 1.5 (%v, %v)", y1, y15)
	}
	for i, b := range bars {
		if b[2] != want[i].color {
			t.Errorf("bar %d is #%s, want #%s", i, b[2], want[i].color)
		}
		top, _ := strconv.ParseFloat(b[1], 64)
		if wantTop := y1 + perE*math.Log(want[i].ratio); math.Abs(top-wantTop) > 0.5 {
			t.Errorf("bar %d ends at %.2f, want %.2f (ratio %.3f)", i, top, wantTop, want[i].ratio)
		}
	}
	for _, s := range []string{"NVIDIA H200", date, ">rmat18<", ">absent<", ">grid1k<", ">snap<", ">grid<", ">1.5x: the goal<", ">x: no exact time for tcgen or for any peer<"} {
		if !strings.Contains(svg, s) {
			t.Errorf("SVG lacks %q", s)
		}
	}
}

func TestPeerCell(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		x    peerRow
		want string
	}{
		{peerRow{exact: true, hasTri: true, tri: 7, ms: 1.5}, "1.5000"},
		{peerRow{exact: true, hasTri: true, tri: 7, ms: nan}, "untimed"},
		{peerRow{exact: true, hasTri: true, tri: 8, ms: 1}, "wrong"},
		{peerRow{hasTri: true, tri: 6, ms: 0.1}, "wrong"},
		{peerRow{ms: nan, note: "expected = --expect; timeout after 600 s"}, "timeout"},
		{peerRow{ms: nan, note: "skipped: deadline"}, "skipped"},
		{peerRow{ms: nan, note: "not built (bin/wetric missing; run build.sh)"}, "skipped"},
		{peerRow{ms: nan, note: "rc=1: illegal memory access"}, "crash"},
	} {
		ms, got := peerCell(c.x, 7)
		if got != c.want || (c.want == "1.5000") == math.IsNaN(ms) {
			t.Errorf("peerCell(%+v) = %v, %q; want %q", c.x, ms, got, c.want)
		}
	}
}
