package report

import (
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// preferredMetrics are the ncu metrics profile.svg plots when present:
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
	case strings.HasSuffix(name, "_gbps"):
		return "GB/s"
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
	if peak, tag, ok := m.profilePeak(metric); ok {
		p.Add(vRefLine{x: peak, tag: tag, style: peakStyle})
		p.X.Max = max(p.X.Max, peak*1.05)
	}
	hgt := max(3*vg.Inch, vg.Length(len(pts))*vg.Points(18)+1.5*vg.Inch)
	// A margin on the left: the point labels are long and end at the edge.
	return renderSVG(10*vg.Inch, hgt, func(dc draw.Canvas) { p.Draw(draw.Crop(dc, vg.Points(6), -vg.Points(6), 0, 0)) })
}

// profilePeak is the GPU's datasheet DRAM bandwidth in the metric's unit
// when the metric is a bandwidth and the rows come from one known GPU.
func (m *model) profilePeak(metric string) (float64, string, bool) {
	if len(m.gpus) != 1 {
		return 0, "", false
	}
	peak, ok := DRAMPeak(m.gpus[0])
	if !ok {
		return 0, "", false
	}
	tag := m.gpus[0] + " datasheet peak " + strconv.FormatFloat(peak/1e12, 'g', -1, 64) + " TB/s"
	switch metricUnit(metric) {
	case "GB/s":
		return peak / 1e9, tag, true
	case "bytes/s":
		return peak, tag, true
	}
	return 0, "", false
}

// vRefLine is a vertical line at x across a plot of horizontal bars,
// labelled at its top.
type vRefLine struct {
	x     float64
	tag   string
	style draw.LineStyle
}

func (l vRefLine) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, _ := plt.Transforms(&c)
	x := trX(l.x)
	c.StrokeLine2(l.style, x, c.Min.Y, x, c.Max.Y)
	sty := plt.X.Tick.Label
	sty.Color = l.style.Color
	sty.XAlign, sty.YAlign = draw.XRight, draw.YTop
	c.FillText(sty, vg.Point{X: x - vg.Points(3), Y: c.Max.Y - vg.Points(2)}, l.tag)
}
