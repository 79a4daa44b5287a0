package report

import (
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// achieved memory bandwidth is what a triangle count is bound by.
var preferredMetrics = []string{
	"dram_read_gbps", // tcgen sweep --profile-top (sweep.ParseCSV)
	"dram__throughput.avg.pct_of_peak_sustained_elapsed",
	"dram__bytes.sum.per_second",
	"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
	"sm__throughput.avg.pct_of_peak_sustained_elapsed",
}

// profileMetric picks the metric to plot: the asked one, a preferred one,
// else the one most rows have (ties by name).
func (m *model) profileMetric() string {
	if m.opt.ProfileMetric != "" {
		return m.opt.ProfileMetric
	}
	count := map[string]int{}
	for _, pr := range m.opt.Profile {
		for k := range pr.Metrics {
			count[k]++
		}
	}
	for _, k := range preferredMetrics {
		if count[k] > 0 {
			return k
		}
	}
	best := ""
	for k, n := range count {
		if best == "" || n > count[best] || n == count[best] && k < best {
			best = k
		}
	}
	return best
}

// metricUnit guesses a metric's unit from ncu's naming.
func metricUnit(name string) string {
	switch {
	case strings.Contains(name, "pct_of_peak"), strings.HasSuffix(name, ".pct"):
		return "% of peak"
	case strings.HasSuffix(name, "bytes.sum.per_second"):
		return "bytes/s"
	case strings.HasSuffix(name, "bytes.sum"):
		return "bytes"
	case strings.HasSuffix(name, "per_second"):
		return "per second"
	}
	return ""
}

// profileSVG: horizontal bars, one per profiled point, of one metric.
func (m *model) profileSVG() ([]byte, error) {
	metric := m.profileMetric()
	if metric == "" {
		return nil, nil
	}
	type point struct {
		label string
		plan  string
		v     float64
	}
	var pts []point
	for _, pr := range m.profileRows() {
		if v, ok := pr.Metrics[metric]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			pts = append(pts, point{pr.GraphName + " / " + m.planLabel(pr.Plan), pr.Plan, v})
		}
	}
	if len(pts) == 0 {
		return nil, nil
	}
	xl := metric
	if u := metricUnit(metric); u != "" {
		xl += " (" + u + ")"
	}
	p := newPlot("ncu: "+metric, xl, "")
	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil
	p.Add(grid) // first, so the bars cover it
	colorOf := map[string]color.Color{}
	var names []string
	lo, hi := 0.0, 0.0
	var xys plotter.XYs
	var vals []string
	for i, pt := range pts {
		if _, ok := colorOf[pt.plan]; !ok {
			colorOf[pt.plan] = planColor(len(colorOf))
		}
		y := float64(len(pts) - 1 - i) // first point on top
		bar, err := plotter.NewBarChart(plotter.Values{pt.v}, vg.Points(12))
		if err != nil {
			return nil, err
		}
		bar.Horizontal = true
		bar.XMin = y
		bar.Color = colorOf[pt.plan]
		bar.LineStyle = barOutline(false)
		p.Add(bar)
		lo, hi = min(lo, pt.v), max(hi, pt.v)
		xys = append(xys, plotter.XY{X: max(pt.v, 0), Y: y})
		vals = append(vals, metricText(pt.v))
	}
	for i := len(pts) - 1; i >= 0; i-- {
		names = append(names, pts[i].label)
	}
	values, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: vals})
	if err != nil {
		return nil, err
	}
	for i := range values.TextStyle {
		values.TextStyle[i].Font.Size = fontTick
		values.TextStyle[i].YAlign = draw.YCenter
	}
	values.Offset = vg.Point{X: vg.Points(4)}
	p.Add(values)
	p.NominalY(names...)
	p.Y.Tick.Label.Font.Size = fontTick
	p.X.Min, p.X.Max = lo, hi*1.15 // room for the value labels
	if p.X.Max == p.X.Min {
		p.X.Max = p.X.Min + 1
	}
	p.Y.Min, p.Y.Max = -0.5, float64(len(pts))-0.5
	hgt := max(3*vg.Inch, vg.Length(len(pts))*vg.Points(18)+1.5*vg.Inch)
	return renderSVG(10*vg.Inch, hgt, func(dc draw.Canvas) { p.Draw(dc) })
}
