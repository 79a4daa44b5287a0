package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/store"
)

var update = flag.Bool("update", false, "rewrite testdata/report.golden.md")

const gpuName = "NVIDIA H100 80GB HBM3"

type testGraph struct {
	name     string
	vertices uint64
	edges    uint64
}

// Listed out of edge order, so the report's ordering is exercised.
var testGraphs = []testGraph{
	{"rmat-18", 200_000, 2_000_000},
	{"karate", 34, 78},
	{"web-Google", 875_713, 4_322_051},
	{"road-PA", 1_088_092, 1_541_898},
}

var testPlans = []string{"search_c3", "polak_10f01137", "bisson_2b7c99e0", "search_a1", "search_b2"}

var testPresets = map[string]string{"polak_10f01137": "polak", "bisson_2b7c99e0": "bisson"}

var testLabels = map[string]string{"polak_10f01137": "polak", "search_a1": "A1"}

// testTime is each plan's median time (ms) on each graph, by graph name;
// 0 marks the one failure.
var testTime = map[string]map[string]float64{
	"karate":     {"polak_10f01137": 0.0123, "bisson_2b7c99e0": 0.0151, "search_a1": 0.0119, "search_b2": 0.0131, "search_c3": 0.0402},
	"road-PA":    {"polak_10f01137": 0.812, "bisson_2b7c99e0": 0.955, "search_a1": 0.641, "search_b2": 0.702, "search_c3": 1.93},
	"rmat-18":    {"polak_10f01137": 3.41, "bisson_2b7c99e0": 2.87, "search_a1": 2.95, "search_b2": 2.14, "search_c3": 0},
	"web-Google": {"polak_10f01137": 9.87, "bisson_2b7c99e0": 7.66, "search_a1": 5.02, "search_b2": 6.18, "search_c3": 48.3},
}

const failReason = "counted 9 triangles more than the reference"

func testRows() []store.Row {
	var rows []store.Row
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for gi, g := range testGraphs {
		for pi, plan := range testPlans {
			ms := testTime[g.name][plan]
			r := store.Row{
				Graph:     fmt.Sprintf("%016x", 0xabc000+gi),
				GraphName: g.name,
				Features:  graph.Features{Vertices: g.vertices, Edges: g.edges, DegreeMax: g.vertices / 10},
				GPU:       gpuName + "/9.0/132",
				GPUName:   gpuName,
				Plan:      plan,
				Status:    store.StatusOK,
				Triangles: g.edges * 3,
				Reference: g.edges * 3,
				Runs:      5,
				MedianMs:  ms,
				MinMs:     ms * 0.98,
				MaxMs:     ms * 1.05,
				KernelMs:  ms * 0.9,
				PrepareMs: 1.5,
				// Varying readings, so the report's ranges show.
				ClockSMMHz:  1755 + 15*pi,
				ClockMemMHz: 2619,
				TempC:       38 + gi,
				Time:        t0.Add(time.Duration(gi*10+pi) * time.Second),
			}
			if ms == 0 {
				r.Status, r.Reason = store.StatusWrong, failReason
				r.Triangles += 9
				r.MinMs, r.MaxMs, r.KernelMs, r.Runs = 0, 0, 0, 0
			}
			rows = append(rows, r)
		}
	}
	return rows
}

var testProfile = []ProfileRow{
	{GraphName: "web-Google", Plan: "search_a1", Metrics: map[string]float64{
		"dram__throughput.avg.pct_of_peak_sustained_elapsed": 71.5, "dram__bytes.sum": 3.2e9}},
	{GraphName: "web-Google", Plan: "polak_10f01137", Metrics: map[string]float64{
		"dram__throughput.avg.pct_of_peak_sustained_elapsed": 44.25, "dram__bytes.sum": 3.9e9}},
	{GraphName: "karate", Plan: "search_a1", Metrics: map[string]float64{
		"dram__throughput.avg.pct_of_peak_sustained_elapsed": 0.8}},
}

func testOptions() Options {
	return Options{
		Title:   "Sweep: test space on H100",
		Presets: testPresets,
		Labels:  testLabels,
		Command: "tcgen sweep --space test --graphs testdata/*.mtx --out report",
		Profile: testProfile,
	}
}

func writeTest(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out") // Write must create it
	if err := Write(dir, testRows(), testOptions()); err != nil {
		t.Fatal(err)
	}
	return dir
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriteFiles(t *testing.T) {
	dir := writeTest(t)
	for _, name := range reportFiles {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() == 0 {
			t.Errorf("%s is empty", name)
		}
		if strings.HasSuffix(name, ".svg") {
			if b := readFile(t, dir, name); !bytes.Contains(b, []byte("<svg")) {
				t.Errorf("%s has no <svg element", name)
			}
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// wantOrder is graphs by edges, then plans by name: the files' row order.
func wantOrder() (graphs []testGraph, plans []string) {
	graphs = slices.Clone(testGraphs)
	slices.SortFunc(graphs, func(a, b testGraph) int { return int(a.edges) - int(b.edges) })
	plans = slices.Clone(testPlans)
	slices.Sort(plans)
	return graphs, plans
}

func TestCSV(t *testing.T) {
	dir := writeTest(t)
	recs, err := csv.NewReader(bytes.NewReader(readFile(t, dir, fileCSV))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], csvHeader) {
		t.Fatalf("header %v, want %v", recs[0], csvHeader)
	}
	if got, want := len(recs)-1, len(testGraphs)*len(testPlans); got != want {
		t.Fatalf("%d rows, want %d", got, want)
	}
	col := map[string]int{}
	for i, h := range csvHeader {
		col[h] = i
	}
	graphs, plans := wantOrder()
	i := 1
	for _, g := range graphs {
		for _, plan := range plans {
			rec := recs[i]
			i++
			if rec[col["graph_name"]] != g.name || rec[col["plan"]] != plan {
				t.Fatalf("row %d is %s/%s, want %s/%s", i-1, rec[col["graph_name"]], rec[col["plan"]], g.name, plan)
			}
			if got := rec[col["edges"]]; got != strconv.FormatUint(g.edges, 10) {
				t.Errorf("%s/%s: edges %s", g.name, plan, got)
			}
			wantLabel := plan
			if l, ok := testLabels[plan]; ok {
				wantLabel = l
			}
			if got := rec[col["label"]]; got != wantLabel {
				t.Errorf("%s/%s: label %q, want %q", g.name, plan, got, wantLabel)
			}
			ms := testTime[g.name][plan]
			if ms == 0 {
				if rec[col["status"]] != "wrong" || rec[col["reason"]] != failReason ||
					rec[col["median_ms"]] != "" || rec[col["edges_per_second"]] != "" {
					t.Errorf("%s/%s: failure row %v", g.name, plan, rec)
				}
				continue
			}
			if rec[col["status"]] != "ok" {
				t.Errorf("%s/%s: status %s", g.name, plan, rec[col["status"]])
			}
			if got, _ := strconv.ParseFloat(rec[col["median_ms"]], 64); got != ms {
				t.Errorf("%s/%s: median_ms %v, want %v", g.name, plan, got, ms)
			}
			eps, _ := strconv.ParseFloat(rec[col["edges_per_second"]], 64)
			if want := float64(g.edges) / (ms / 1e3); math.Abs(eps-want) > 1e-9*want {
				t.Errorf("%s/%s: edges_per_second %v, want %v", g.name, plan, eps, want)
			}
			if rec[col["runs"]] != "5" || rec[col["clock_mem_mhz"]] != "2619" {
				t.Errorf("%s/%s: runs %s clock_mem_mhz %s", g.name, plan, rec[col["runs"]], rec[col["clock_mem_mhz"]])
			}
		}
	}
}

func TestJSONL(t *testing.T) {
	dir := writeTest(t)
	sc := bufio.NewScanner(bytes.NewReader(readFile(t, dir, fileJSONL)))
	graphs, plans := wantOrder()
	n := 0
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		g, plan := graphs[n/len(plans)], plans[n%len(plans)]
		n++
		if rec["graph_name"] != g.name || rec["plan"] != plan {
			t.Fatalf("line %d is %v/%v, want %s/%s", n, rec["graph_name"], rec["plan"], g.name, plan)
		}
		ms := testTime[g.name][plan]
		if ms == 0 {
			if rec["status"] != "wrong" || rec["median_ms"] != nil {
				t.Errorf("%s/%s: failure record %v", g.name, plan, rec)
			}
			continue
		}
		if rec["median_ms"] != ms || rec["edges"] != float64(g.edges) {
			t.Errorf("%s/%s: median_ms %v edges %v", g.name, plan, rec["median_ms"], rec["edges"])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if want := len(testGraphs) * len(testPlans); n != want {
		t.Fatalf("%d lines, want %d", n, want)
	}
}

// TestMarkdownWinners recomputes each graph's winner and its speedup over
// each preset and looks for them on the graph's line of the winners table.
func TestMarkdownWinners(t *testing.T) {
	md := string(readFile(t, writeTest(t), fileMD))
	for _, want := range []string{"# Sweep: test space on H100", testOptions().Command, gpuName,
		"SM clock 1755–1815 MHz", "memory clock 2619 MHz", "38–41 °C", failReason,
		"![GPU pass time per plan and graph](times.svg)", "(heatmap.svg)", "(size.svg)", "(profile.svg)",
		"| web-Google | A1 | 3.200e+09 | 71.50 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	lines := strings.Split(md, "\n")
	for _, g := range testGraphs {
		winner, best := "", math.Inf(1)
		for plan, ms := range testTime[g.name] {
			if ms > 0 && ms < best {
				winner, best = plan, ms
			}
		}
		if l, ok := testLabels[winner]; ok {
			winner = l
		}
		i := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "| "+g.name+" |") })
		if i < 0 {
			t.Fatalf("no winners line for %s", g.name)
		}
		line := lines[i]
		if !strings.Contains(line, "**"+winner+"**") {
			t.Errorf("%s: winner %s not in %q", g.name, winner, line)
		}
		for _, preset := range []string{"polak_10f01137", "bisson_2b7c99e0"} {
			s := fmt.Sprintf("| %.2f× |", testTime[g.name][preset]/best)
			if !strings.Contains(line, s) {
				t.Errorf("%s: speedup over %s %q not in %q", g.name, preset, s, line)
			}
		}
	}
}

func TestMarkdownGolden(t *testing.T) {
	got := readFile(t, writeTest(t), fileMD)
	golden := filepath.Join("testdata", "report.golden.md")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("report.md differs from %s (go test ./report -run Golden -update to accept):\n%s", golden, got)
	}
}

// TestRewrite writes a report without profile and with every plan failed
// into a directory holding a full one: no stale plot may stay behind.
func TestRewrite(t *testing.T) {
	dir := writeTest(t)
	rows := testRows()
	for i := range rows {
		rows[i].Status, rows[i].Reason = store.StatusCompile, "nvrtc: error"
	}
	opt := testOptions()
	opt.Profile = nil
	if err := Write(dir, rows, opt); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{fileTimes, fileHeatmap, fileSize, fileRate, fileBW, fileSpeedup, fileProfile, fileProfileJSONL} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s: stat error %v, want not-exist", name, err)
		}
	}
	md := string(readFile(t, dir, fileMD))
	if !strings.Contains(md, "| karate | 34 | 78 | none ran |") || strings.Contains(md, ".svg") {
		t.Errorf("report.md of failures only:\n%s", md)
	}
}

func TestEmpty(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(readFile(t, dir, fileCSV))).ReadAll()
	if err != nil || len(recs) != 1 {
		t.Fatalf("empty CSV: %v records, %v", len(recs), err)
	}
}

// TestManyPlans checks the plots stay within their plan budget and still
// render with many plans and several GPUs.
func TestManyPlans(t *testing.T) {
	var rows []store.Row
	for g := range 6 {
		for p := range 30 {
			for _, gpu := range []string{"H100", "H200"} {
				rows = append(rows, store.Row{
					Graph: fmt.Sprint("g", g), GraphName: fmt.Sprintf("graph-with-a-long-name-%d", g),
					Features: graph.Features{Edges: uint64(1000 << (3 * g))},
					GPUName:  gpu, Plan: fmt.Sprintf("plan_%02d", p), Status: store.StatusOK,
					MedianMs: float64(1+p%7) * float64(1+g) * 0.37,
				})
			}
		}
	}
	m := build(rows, Options{Presets: map[string]string{"plan_27": "slow"}})
	if sel := m.selectPlans(timesTop); len(sel) != timesTop+1 || m.plans[sel[len(sel)-1]] != "plan_27" {
		t.Errorf("selection %v", sel)
	}
	dir := t.TempDir()
	if err := Write(dir, rows, Options{Presets: map[string]string{"plan_27": "slow"}}); err != nil {
		t.Fatal(err)
	}
	if b := readFile(t, dir, fileTimes); !bytes.Contains(b, []byte("fastest 12 of 30 plans plus presets")) {
		t.Error("times.svg does not say it shows a selection")
	}
}

func TestSig4(t *testing.T) {
	for v, want := range map[float64]string{
		1.23456: "1.235", 0.0123456: "0.01235", 12345.6: "12350", 9.99996: "10.00", 1: "1.000", 123.4: "123.4",
	} {
		if got := sig4(v); got != want {
			t.Errorf("sig4(%v) = %s, want %s", v, got, want)
		}
	}
}
