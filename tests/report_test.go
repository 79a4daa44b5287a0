package tests

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcgen/tcgen/store"
)

// wellFormedSVG fails unless path is an XML document with an <svg> root.
func wellFormedSVG(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("%s: root element %q", path, root)
	}
}

// resultsDir writes a sweep's results.jsonl and report.md as an older
// tcgen left them: two graphs, a preset and a searched plan.
func resultsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var lines []string
	for i, g := range []struct {
		name      string
		v, e      int
		fast, pre float64
	}{{"small", 1000, 5000, 0.02, 0.03}, {"large", 100000, 2000000, 1.5, 3.1}} {
		for _, p := range []struct {
			plan, label string
			ms          float64
		}{{"search_1", "merge w1", g.fast}, {"polak_1", "preset:polak", g.pre}} {
			rec := map[string]any{"graph_name": g.name, "graph": "fp" + strconv.Itoa(i), "vertices": g.v, "edges": g.e,
				"degree_max": 10, "gpu_name": "NVIDIA H200", "plan": p.plan, "label": p.label, "status": "ok", "reason": "",
				"triangles": 7, "reference": 7, "median_ms": p.ms, "min_ms": p.ms * 0.99, "max_ms": p.ms * 1.02,
				"kernel_ms": p.ms, "runs": 10, "edges_per_second": float64(g.e) / p.ms * 1e3,
				"clock_sm_mhz": 1980, "clock_mem_mhz": 3201, "temperature_c": 40}
			b, _ := json.Marshal(rec)
			lines = append(lines, string(b))
		}
	}
	writeFile(t, dir, "results.jsonl", strings.Join(lines, "\n")+"\n")
	writeFile(t, dir, "report.md", "# tcgen sweep old\n\n```sh\ntcgen sweep old.yaml --runs 10\n```\n")
	return dir
}

func TestReportRebuild(t *testing.T) {
	dir := resultsDir(t)
	code, out, errOut := tcgen(t, "report", dir)
	if code != 0 || out != "report "+dir+": 4 rows, 4 timed, 0 with a 95% CI of the median; written to "+dir+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, f := range []string{"times.svg", "heatmap.svg", "size.svg", "rate.svg", "bandwidth.svg", "speedup.svg"} {
		wellFormedSVG(t, filepath.Join(dir, f))
	}
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.HasPrefix(string(md), "# tcgen sweep old\n\n```sh\ntcgen sweep old.yaml --runs 10\n```") ||
		!strings.Contains(string(md), "| large | 100,000 | 2,000,000 | **merge w1** | 1.500 | 3.100 | 2.07× |") {
		t.Errorf("report.md:\n%s", md)
	}

	// The samples of one measurement, from a store export, give it its
	// interval; a row of another median is not taken for it.
	ms := 1.5
	samples := []store.Row{
		{Graph: "fp1", GraphName: "large", GPU: "gpu", Version: "v", GPUName: "NVIDIA H200", Plan: "search_1", Status: store.StatusOK, MedianMs: ms,
			Samples: []float64{1.4, 1.45, 1.48, 1.49, 1.5, 1.5, 1.51, 1.52, 1.55, 1.6}, Time: time.Unix(0, 0).UTC()},
		{Graph: "fp1", GraphName: "large", GPU: "gpu", Version: "v", GPUName: "NVIDIA H200", Plan: "polak_1", Status: store.StatusOK, MedianMs: 3.0,
			Samples: []float64{3, 3, 3}, Time: time.Unix(0, 0).UTC()},
	}
	var buf bytes.Buffer
	if err := store.WriteJSON(&buf, samples); err != nil {
		t.Fatal(err)
	}
	exp := writeFile(t, t.TempDir(), "export.jsonl", buf.String())
	outDir := filepath.Join(t.TempDir(), "new")
	code, out, errOut = tcgen(t, "report", dir, "--samples", exp, "--out", outDir)
	if code != 0 || !strings.Contains(out, "4 timed, 1 with a 95% CI of the median (1 from "+exp+"); written to "+outDir) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	res, _ := os.ReadFile(filepath.Join(outDir, "results.jsonl"))
	if !strings.Contains(string(res), `"ci_lo_ms":1.45,"ci_hi_ms":1.55`) {
		t.Errorf("results.jsonl without the interval [1.45, 1.55]:\n%s", res)
	}
}

func TestReportRebuildErrors(t *testing.T) {
	bad := resultsDir(t)
	writeFile(t, bad, "results.jsonl", `{"plan":"p","graph":"g","status":"ok"}`+"\n{oops\n")
	before, _ := os.ReadFile(filepath.Join(bad, "report.md"))
	file := writeFile(t, t.TempDir(), "file", "x")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report", filepath.Join(t.TempDir(), "none")}, exitBadInput, "none/results.jsonl: no such file or directory"},
		{[]string{"report", bad}, exitBadInput, filepath.Join(bad, "results.jsonl") + ":2: not a results record"},
		{[]string{"report", resultsDir(t), "--out", filepath.Join(file, "sub")}, exitBadInput, "file/sub"},
		{[]string{"report", resultsDir(t), "--samples", file}, exitBadInput, file},
	} {
		code, _, errOut := tcgen(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(bad, "report.md")); !bytes.Equal(before, after) {
		t.Error("a refused rebuild changed report.md")
	}
	if _, err := os.Stat(filepath.Join(bad, "times.svg")); !os.IsNotExist(err) {
		t.Errorf("a refused rebuild wrote a plot (stat: %v)", err)
	}
}
