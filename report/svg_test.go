package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tcgen/tcgen/store"
)

// svgText is one text element of a plot, where it starts on the page
// (origin top left, y down).
type svgText struct {
	text     string
	x, y     float64
	fontSize float64
	angle    float64 // degrees, as the enclosing group rotates it
}

// svgDoc is what a plot's SVG holds that the tests look at.
type svgDoc struct {
	w, h   float64
	texts  []svgText
	styles []string // every path's style attribute
}

var (
	rotateRe = regexp.MustCompile(`rotate\(([-0-9.e]+)\)`)
	fontRe   = regexp.MustCompile(`font-size:([0-9.]+)px`)
)

// parseSVG parses data as XML (it must be well formed) and collects the
// texts with their page positions and the paths' styles. gonum's vgsvg
// writes a group that flips y (scale(1,-1) translate(0,-H)), groups that
// rotate, and texts flipped back with scale(1,-1).
func parseSVG(t *testing.T, name string, data []byte) svgDoc {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var doc svgDoc
	var angles []float64 // per open group
	var cur *svgText
	root := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", name, err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range e.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch e.Name.Local {
			case "svg":
				root = true
				vb := strings.Fields(attr["viewBox"])
				if len(vb) != 4 {
					t.Fatalf("%s: viewBox %q", name, attr["viewBox"])
				}
				doc.w, _ = strconv.ParseFloat(vb[2], 64)
				doc.h, _ = strconv.ParseFloat(vb[3], 64)
			case "g":
				a := 0.0
				if m := rotateRe.FindStringSubmatch(attr["transform"]); m != nil {
					a, _ = strconv.ParseFloat(m[1], 64)
				}
				angles = append(angles, a)
			case "text":
				x, _ := strconv.ParseFloat(attr["x"], 64)
				y, _ := strconv.ParseFloat(attr["y"], 64)
				fs := 10.0
				if m := fontRe.FindStringSubmatch(attr["style"]); m != nil {
					fs, _ = strconv.ParseFloat(m[1], 64)
				}
				a := 0.0
				for _, g := range angles {
					a += g
				}
				// The anchor in the flipped group's coordinates is (x, -y);
				// rotate it, then flip to the page.
				r := a * math.Pi / 180
				gx, gy := x*math.Cos(r)+y*math.Sin(r), x*math.Sin(r)-y*math.Cos(r)
				cur = &svgText{x: gx, y: doc.h - gy, fontSize: fs, angle: a}
			case "path":
				doc.styles = append(doc.styles, attr["style"])
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(e)
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "g":
				angles = angles[:len(angles)-1]
			case "text":
				doc.texts = append(doc.texts, *cur)
				cur = nil
			}
		}
	}
	if !root || doc.w <= 0 || doc.h <= 0 {
		t.Fatalf("%s: no <svg> root with a size", name)
	}
	return doc
}

// has reports whether a text element reads s.
func (d svgDoc) has(s string) bool {
	for _, tx := range d.texts {
		if tx.text == s {
			return true
		}
	}
	return false
}

// count is how many paths have a style containing s.
func (d svgDoc) count(s string) int {
	n := 0
	for _, st := range d.styles {
		if strings.Contains(st, s) {
			n++
		}
	}
	return n
}

// outside lists the texts that start off the page or, at an
// underestimated width (0.3 em a character), run past its right edge.
func (d svgDoc) outside() []string {
	const slack = 1.5 // points: rounding in the writer
	var out []string
	for _, tx := range d.texts {
		w := 0.3 * tx.fontSize * float64(utf8.RuneCountInString(tx.text))
		endX := tx.x + w*math.Cos(tx.angle*math.Pi/180)
		if tx.x < -slack || endX > d.w+slack || tx.y < -slack || tx.y > d.h+tx.fontSize {
			out = append(out, fmt.Sprintf("%q at (%.1f, %.1f)", tx.text, tx.x, tx.y))
		}
	}
	return out
}

func (d svgDoc) checkInside(t *testing.T, name string) {
	t.Helper()
	for _, s := range d.outside() {
		t.Errorf("%s: text %s leaves the %.0f x %.0f page", name, s, d.w, d.h)
	}
}

// TestOutsideFindsClipping: a rotated label whose start lies left of the
// page, as the first graph's label of a bar plot did, is caught.
func TestOutsideFindsClipping(t *testing.T) {
	const page = `<svg width="100pt" height="100pt" viewBox="0 0 100 100"><g transform="scale(1, -1) translate(0, -100)">
<g transform="rotate(30)"><text x="%g" y="-20" transform="scale(1, -1)" style="font-size:10px">karate (78 edges)</text></g></g></svg>`
	if got := parseSVG(t, "clipped", []byte(fmt.Sprintf(page, 5.0))).outside(); len(got) != 1 {
		t.Errorf("clipped label: outside %v", got)
	}
	if got := parseSVG(t, "inside", []byte(fmt.Sprintf(page, 40.0))).outside(); len(got) != 0 {
		t.Errorf("label inside: outside %v", got)
	}
}

// ciRows are the test rows with ten samples each on two graphs, so their
// medians have intervals.
func ciRows() []store.Row {
	rows := testRows()
	for i := range rows {
		r := &rows[i]
		if r.Status != store.StatusOK || (r.GraphName != "web-Google" && r.GraphName != "road-PA") {
			continue
		}
		r.Samples = nil
		for k := range 10 {
			r.Samples = append(r.Samples, r.MedianMs*(0.97+0.006*float64(k)))
		}
	}
	return rows
}

// whiskerStyle is how drawWhisker's lines read in the SVG.
const whiskerStyle = "stroke:#202020"

func TestPlotsSVG(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, ciRows(), testOptions()); err != nil {
		t.Fatal(err)
	}
	plans := []string{"A1", "search_b2", "search_c3", "polak", "bisson_2b7c99e0 (preset bisson)"}
	graphs := []string{"karate\n78 edges", "road-PA\n1.54M edges", "rmat-18\n2M edges", "web-Google\n4.32M edges"}
	for _, tc := range []struct {
		file     string
		texts    []string
		styles   map[string]int // a style and the fewest paths that carry it
		noLegend bool
	}{
		{fileTimes, []string{"GPU pass time per plan and graph", "GPU pass time (ms, log scale)", "failed (no time)",
			"95% CI of the median (none on rows recorded without it)"}, map[string]int{whiskerStyle: 8 * 3}, false},
		{fileHeatmap, []string{"time / best time (×, log scale)", "1×", "2×", "5×", "wrong", "1.00"}, nil, false},
		{fileSize, []string{"GPU pass time against graph size", "graph size (edges, log scale)"}, map[string]int{whiskerStyle: 8 * 3}, false},
		{fileRate, []string{"Edges per second against graph size", "1G"}, map[string]int{whiskerStyle: 8 * 3}, false},
		{fileBW, []string{"Effective DRAM bandwidth against graph size", "NVIDIA H100 80GB HBM3 peak 3.35 TB/s",
			"datasheet peak, NVIDIA H100 80GB HBM3: 3.35 TB/s"}, map[string]int{"stroke:#B01010": 2}, false},
		{fileSpeedup, []string{"fastest preset: polak", "fastest preset: bisson", "1.53×", "geometric mean 1.28×"}, map[string]int{whiskerStyle: 3}, true},
		{fileProfile, []string{"web-Google / A1", "71.50"}, nil, true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			doc := parseSVG(t, tc.file, readFile(t, dir, tc.file))
			doc.checkInside(t, tc.file)
			want := tc.texts
			if !tc.noLegend {
				want = append(want, plans...)
			}
			if tc.file == fileTimes || tc.file == fileHeatmap {
				for _, g := range graphs {
					want = append(want, strings.Split(g, "\n")...)
				}
			}
			for _, s := range want {
				if !doc.has(s) {
					t.Errorf("no text %q", s)
				}
			}
			for st, n := range tc.styles {
				if got := doc.count(st); got < n {
					t.Errorf("%d paths with %q, want at least %d", got, st, n)
				}
			}
		})
	}
}

// TestHeatmapColorBar checks the colour scale is drawn as a strip of
// colours with its ticks, also where the tick labels are wide ("100×+").
func TestHeatmapColorBar(t *testing.T) {
	rows := testRows()
	for i := range rows {
		if rows[i].Plan == "search_c3" && rows[i].Status == store.StatusOK {
			rows[i].MedianMs *= 500 // beyond the cap
		}
	}
	m := build(rows, testOptions())
	data, err := m.heatmapSVG()
	if err != nil {
		t.Fatal(err)
	}
	doc := parseSVG(t, fileHeatmap, data)
	doc.checkInside(t, fileHeatmap)
	for _, s := range []string{"1×", "10×", "100×+", "time / best time (×, log scale)"} {
		if !doc.has(s) {
			t.Errorf("no colour bar text %q", s)
		}
	}
	fills := map[string]bool{}
	for _, st := range doc.styles {
		if strings.HasPrefix(st, "fill:#") && !strings.Contains(st, "stroke") {
			fills[st] = true
		}
	}
	if len(fills) < colorStripSteps/2 {
		t.Errorf("%d fill colours, want the strip's %d steps", len(fills), colorStripSteps)
	}
}

// TestPlotLabelsUnique: plans that share a label (each graph's tuned plan)
// get their hash in the plots, and a "preset:NAME" label is not repeated.
func TestPlotLabelsUnique(t *testing.T) {
	rows := testRows()
	opt := testOptions()
	opt.Labels = map[string]string{"search_a1": "tuned: default", "search_b2": "tuned: default", "polak_10f01137": "preset:polak"}
	m := build(rows, opt)
	got := map[string]bool{}
	for p := range m.plans {
		got[m.legendLabel(p)] = true
	}
	for _, want := range []string{"tuned: default [a1]", "tuned: default [b2]", "preset:polak", "bisson_2b7c99e0 (preset bisson)"} {
		if !got[want] {
			t.Errorf("no plot label %q in %v", want, got)
		}
	}
}

func TestGraphBytes(t *testing.T) {
	m := build(testRows(), testOptions())
	for c, col := range m.cols {
		want := 8*float64(col.feat.Vertices+1) + 4*float64(col.feat.Edges)
		if got := graphBytes(col.feat); got != want {
			t.Errorf("%s: %v bytes, want %v", col.name, got, want)
		}
		r := m.cells[c][0]
		if !timed(r) {
			continue
		}
		v, _, _ := m.perSecond(r, graphBytes(col.feat)/1e9)
		if want := want / 1e9 / (r.MedianMs / 1e3); math.Abs(v-want) > 1e-9*want {
			t.Errorf("%s: %v GB/s, want %v", col.name, v, want)
		}
	}
	if _, ok := DRAMPeak("NVIDIA H200"); !ok {
		t.Error("no peak for the H200")
	}
	if v, _ := DRAMPeak("NVIDIA H100 80GB HBM3"); v != 3.35e12 {
		t.Errorf("H100 peak %v", v)
	}
}

// TestSpeedups recomputes each graph's ratio of the fastest preset to the
// fastest other plan.
func TestSpeedups(t *testing.T) {
	m := build(ciRows(), testOptions())
	got := m.speedups()
	if len(got) != len(testGraphs) {
		t.Fatalf("%d graphs with a speedup, want %d", len(got), len(testGraphs))
	}
	for _, s := range got {
		g := m.cols[s.col].name
		bp, bo := math.Inf(1), math.Inf(1)
		for plan, ms := range testTime[g] {
			if ms == 0 {
				continue
			}
			if testPresets[plan] != "" {
				bp = min(bp, ms)
			} else {
				bo = min(bo, ms)
			}
		}
		if want := bp / bo; math.Abs(s.ratio-want) > 1e-12 {
			t.Errorf("%s: speedup %v, want %v", g, s.ratio, want)
		}
		hasCI := g == "web-Google" || g == "road-PA"
		if hasCI != !math.IsNaN(s.lo) || hasCI && !(s.lo <= s.ratio && s.ratio <= s.hi) {
			t.Errorf("%s: interval [%v, %v] around %v", g, s.lo, s.hi, s.ratio)
		}
	}
}
