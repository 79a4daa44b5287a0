package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// How many plans the bar and line plots show besides the presets: more
// colours than this cannot be told apart. The heat map shows every plan.
const (
	timesTop = 12
	sizeTop  = 8
)

const (
	fontTitle  = 14
	fontLabel  = 12
	fontTick   = 10
	fontLegend = 10
	fontCell   = 8
)

// planColors are distinguishable on white and in print: Tableau 10, then
// ten more of different hues, so up to 20 plans keep their own colour.
var planColors = []color.Color{
	rgb(0x4e79a7), rgb(0xf28e2b), rgb(0xe15759), rgb(0x76b7b2), rgb(0x59a14f),
	rgb(0xedc948), rgb(0xb07aa1), rgb(0xff9da7), rgb(0x9c755f), rgb(0xbab0ac),
	rgb(0x1b3a6b), rgb(0x8cd17d), rgb(0xd37295), rgb(0xa0cbe8), rgb(0xffbe7d),
	rgb(0x499894), rgb(0x6b6ecf), rgb(0xf1ce63), rgb(0x79706e), rgb(0x8c564b),
}

// grey fills heat-map cells without a time; it is not on the colour scale.
var grey = rgb(0xb4b4b4)

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

func planColor(i int) color.Color { return planColors[i%len(planColors)] }

func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = fontTitle
	p.Title.Padding = vg.Points(10)
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.X.Label.TextStyle.Font.Size = fontLabel
	p.Y.Label.TextStyle.Font.Size = fontLabel
	p.X.Tick.Label.Font.Size = fontTick
	p.Y.Tick.Label.Font.Size = fontTick
	return p
}

// renderSVG draws onto a w x h SVG canvas and returns the document.
func renderSVG(w, h vg.Length, fn func(dc draw.Canvas)) ([]byte, error) {
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	// Opaque, so the black text stays readable on a dark-mode page.
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	fn(dc)
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type legendItem struct {
	label string
	thumb plot.Thumbnailer
}

// newLegend is the reports' legend of items: top left, small thumbnails.
func newLegend(items []legendItem) plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = fontLegend
	l.Top, l.Left = true, true
	l.Padding = vg.Points(3)
	l.ThumbnailWidth = vg.Points(22)
	for _, it := range items {
		l.Add(it.label, it.thumb)
	}
	return l
}

// drawWithLegend draws p with its legend in a column to the right of the
// plot: inside the data area the legend of a dozen plans would hide bars.
func drawWithLegend(dc draw.Canvas, p *plot.Plot, items []legendItem) {
	l := newLegend(items)
	r := l.Rectangle(dc)
	w := r.Max.X - r.Min.X + vg.Points(24)
	pc := draw.Crop(dc, 0, -w, 0, 0)
	data := drawPlot(pc, p)
	lc := dc
	lc.Min.X = pc.Max.X + vg.Points(12)
	lc.Max.Y = data.Max.Y
	l.Draw(lc)
}

// drawPlot draws p into c and returns its data canvas. It draws the labels
// of log axes itself: plot reserves room for an axis label as if the label
// sat at the arithmetic middle of the axis range, which on a log axis is
// near its end, and so leaves a wide empty margin on that side.
func drawPlot(c draw.Canvas, p *plot.Plot) draw.Canvas {
	var xl, yl string
	if _, ok := p.X.Scale.(plot.LogScale); ok {
		xl, p.X.Label.Text = p.X.Label.Text, ""
		defer func() { p.X.Label.Text = xl }()
	}
	if _, ok := p.Y.Scale.(plot.LogScale); ok {
		yl, p.Y.Label.Text = p.Y.Label.Text, ""
		defer func() { p.Y.Label.Text = yl }()
	}
	if t := p.Title.Text; t != "" && !strings.Contains(t, "\n") && p.Title.TextStyle.Width(t) > c.Max.X-c.Min.X {
		// Too wide to centre over the plot: the parenthesis on a line of its own.
		if i := strings.Index(t, " ("); i > 0 {
			p.Title.Text = t[:i] + "\n" + t[i+1:]
			defer func() { p.Title.Text = t }()
		}
	}
	// The label's height, its padding and a little more: tick labels of a
	// single digit start right at the axis's edge, where a descender of
	// the label would touch them.
	const labelGap = 3 // points
	inner := c
	if yl != "" {
		inner.Min.X += p.Y.Label.TextStyle.Height(yl) + p.Y.Label.Padding + vg.Points(labelGap)
	}
	if xl != "" {
		inner.Min.Y += p.X.Label.TextStyle.Height(xl) + p.X.Label.Padding + vg.Points(labelGap)
	}
	inner.Min.X += rotatedOverhang(p, inner)
	p.Draw(inner)
	data := p.DataCanvas(inner)
	if yl != "" {
		sty := p.Y.Label.TextStyle
		sty.Rotation += math.Pi / 2
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c.FillText(sty, vg.Point{X: c.Min.X, Y: (data.Min.Y + data.Max.Y) / 2}, yl)
	}
	if xl != "" {
		sty := p.X.Label.TextStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
		c.FillText(sty, vg.Point{X: (data.Min.X + data.Max.X) / 2, Y: c.Min.Y + sty.FontExtents().Descent}, xl)
	}
	return data
}

// rotatedOverhang is how far the rotated x tick labels of p, drawn into c,
// would reach left of c (0 when they are upright or stay inside): the
// first columns' long labels run down-left past the y axis's labels when
// those are short.
func rotatedOverhang(p *plot.Plot, c draw.Canvas) vg.Length {
	rot := p.X.Tick.Label.Rotation
	if rot == 0 || p.X.Tick.Marker == nil {
		return 0
	}
	data := p.DataCanvas(c)
	trX, _ := p.Transforms(&data)
	cos := vg.Length(math.Abs(math.Cos(rot)))
	var need vg.Length
	for _, t := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if t.Label != "" {
			need = max(need, c.Min.X-(trX(t.Value)-p.X.Tick.Label.Width(t.Label)*cos)+vg.Points(4))
		}
	}
	return need
}

// legendWidth is the width drawWithLegend will give the legend.
func legendWidth(labels []string) vg.Length {
	sty := plot.NewLegend().TextStyle
	sty.Font.Size = fontLegend
	var w vg.Length
	for _, s := range labels {
		w = max(w, sty.Width(" "+s))
	}
	return w + vg.Points(22+24+12)
}

// barThumb is a bar's legend swatch.
type barThumb struct {
	fill color.Color
	line draw.LineStyle
}

func (t barThumb) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(t.fill, pts)
	c.StrokeLines(t.line, append(pts, pts[0]))
}

// glyphThumb is a lone marker's legend swatch.
type glyphThumb struct{ sty draw.GlyphStyle }

func (t glyphThumb) Thumbnail(c *draw.Canvas) { c.DrawGlyph(t.sty, c.Center()) }

// barOutline outlines a bar; presets get a heavy black one so they stand
// out among the searched plans whatever their colour.
func barOutline(preset bool) draw.LineStyle {
	if preset {
		return draw.LineStyle{Color: color.Black, Width: vg.Points(1.6)}
	}
	return draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(0.4)}
}

var failMark = draw.GlyphStyle{Color: color.Gray{Y: 90}, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}

// groupedBars draws one group of bars per graph on a log axis: a bar runs
// from the axis bottom (a log axis has no zero) to the value. gonum's
// BarChart starts bars at 0, which a log scale cannot place.
type groupedBars struct {
	vals    [][]float64 // [group][series]; NaN: no bar
	lo, hi  [][]float64 // [group][series]: the value's 95% interval; NaN: none
	failed  [][]bool    // [group][series]: measured but no time
	colors  []color.Color
	presets []bool
}

// minOutlined is the narrowest bar that gets an outline: on thinner bars
// the outline would hide the fill (a wall of black on a wide sweep).
const minOutlined = 4 // points

func (b *groupedBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	ns := len(b.colors)
	groupW := (trX(1) - trX(0)) * 0.82
	barW := groupW / vg.Length(ns)
	bottom := trY(plt.Y.Min)
	for g, vals := range b.vals {
		left := trX(float64(g)) - groupW/2
		for s, v := range vals {
			x0, x1 := left+barW*vg.Length(s), left+barW*vg.Length(s+1)
			if math.IsNaN(v) {
				if b.failed[g][s] {
					c.DrawGlyph(failMark, vg.Point{X: (x0 + x1) / 2, Y: bottom + failMark.Radius + vg.Points(2)})
				}
				continue
			}
			top := trY(v)
			pts := []vg.Point{{X: x0, Y: bottom}, {X: x0, Y: top}, {X: x1, Y: top}, {X: x1, Y: bottom}}
			c.FillPolygon(b.colors[s], c.ClipPolygonY(pts))
			switch {
			case barW >= vg.Points(minOutlined):
				c.StrokeLines(barOutline(b.presets[s]), c.ClipLinesY(append(pts, pts[0]))...)
			case b.presets[s]: // too thin to outline: a black cap marks a preset
				c.StrokeLines(barOutline(true), c.ClipLinesY([]vg.Point{{X: x0, Y: top}, {X: x1, Y: top}})...)
			}
			if lo, hi := b.lo[g][s], b.hi[g][s]; !math.IsNaN(lo) {
				drawWhisker(c, (x0+x1)/2, trY(lo), trY(hi), min(barW*0.6, vg.Points(3)))
			}
		}
	}
}

// whisker draws the 95% intervals: thin and dark, on any fill.
var whisker = draw.LineStyle{Color: rgb(0x202020), Width: vg.Points(0.7)}

// drawWhisker draws an error bar at x from y0 to y1 with caps w wide.
func drawWhisker(c draw.Canvas, x, y0, y1, w vg.Length) {
	c.StrokeLines(whisker, c.ClipLinesXY([]vg.Point{{X: x, Y: y0}, {X: x, Y: y1}})...)
	for _, y := range []vg.Length{y0, y1} {
		c.StrokeLines(whisker, c.ClipLinesXY([]vg.Point{{X: x - w/2, Y: y}, {X: x + w/2, Y: y}})...)
	}
}

// whiskerThumb is an error bar's legend swatch.
type whiskerThumb struct{}

func (whiskerThumb) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	drawWhisker(*c, x, c.Min.Y, c.Max.Y, vg.Points(5))
}

// noThumb leaves a legend line without a swatch: a note.
type noThumb struct{}

func (noThumb) Thumbnail(*draw.Canvas) {}

// ciLegend is the legend's line about error bars: what they are where some
// rows have them, that there are none where no row has them.
func ciLegend(anyCI, allCI bool) legendItem {
	switch {
	case allCI:
		return legendItem{"95% CI of the median", whiskerThumb{}}
	case anyCI:
		return legendItem{"95% CI of the median (none on rows recorded without it)", whiskerThumb{}}
	}
	return legendItem{"no error bars: rows recorded without a 95% CI", noThumb{}}
}

// logTicks marks a log axis: every power of ten labelled, 2 and 5 labelled
// too when the range holds at most three powers of ten (plot.LogTicks would
// leave a range inside one decade without a single label, and a best time
// between two powers of ten unreadable).
type logTicks struct{ format func(float64) string }

func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	const eps = 1e-9
	in := func(v float64) bool { return v >= lo*(1-eps) && v <= hi*(1+eps) }
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	decades := 0
	for e := e0; e <= e1; e++ {
		if in(math.Pow10(e)) {
			decades++
		}
	}
	var ticks []plot.Tick
	for e := e0; e <= e1; e++ {
		for k := 1; k <= 9; k++ {
			v := float64(k) * math.Pow10(e)
			if !in(v) {
				continue
			}
			tk := plot.Tick{Value: v}
			if k == 1 || decades < 4 && (k == 2 || k == 5) || decades == 0 {
				tk.Label = t.format(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// round3 rounds to 3 significant digits, for tick labels.
func round3(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'e', 2, 64), 64)
	return r
}

func plainTick(v float64) string { return strconv.FormatFloat(round3(v), 'f', -1, 64) }

// siCount writes a count with an SI suffix: 1.5k, 12M, 3G.
func siCount(v float64) string {
	for _, u := range []struct {
		f float64
		s string
	}{{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if math.Abs(v) >= u.f {
			return plainTick(v/u.f) + u.s
		}
	}
	return plainTick(v)
}

// logRange pads [lo, hi] so the extreme values sit inside the axis.
func logRange(lo, hi float64) (float64, float64) {
	return lo / 1.8, hi * 1.5
}

// nominalX labels the columns 0..n-1 of p's x axis, rotating the labels
// when they would not fit side by side in the given width per column.
func nominalX(p *plot.Plot, labels, short []string, perColumn vg.Length) {
	sty := p.X.Tick.Label
	var widest vg.Length
	for _, l := range labels {
		widest = max(widest, sty.Width(l))
	}
	if widest > perColumn*0.95 {
		labels = short
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	ticks := make([]plot.Tick, len(labels))
	for i, l := range labels {
		ticks[i] = plot.Tick{Value: float64(i), Label: l}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
}

// columnLabels are the graph labels with sizes: two lines when upright,
// one when rotated.
func (m *model) columnLabels() (upright, rotated []string) {
	for _, c := range m.cols {
		e := siCount(float64(c.feat.Edges)) + " edges"
		upright = append(upright, c.label+"\n"+e)
		rotated = append(rotated, c.label+" ("+e+")")
	}
	return upright, rotated
}

// selectionNote says which plans a plot shows when it cannot show all.
func (m *model) selectionNote(sel []int, top int) string {
	if len(sel) == len(m.plans) {
		return ""
	}
	note := fmt.Sprintf("fastest %d of %d plans", min(top, len(m.plans)), len(m.plans))
	if len(m.presetPlans()) > 0 {
		note += " plus presets"
	}
	return note
}

// timesSVG: grouped bars, one group per graph, one bar per plan.
func (m *model) timesSVG() ([]byte, error) {
	if !m.anyTimed() {
		return nil, nil
	}
	sel := m.selectPlans(timesTop)
	gb := &groupedBars{}
	lo, hi := math.Inf(1), math.Inf(-1)
	anyFailed := false
	for s, p := range sel {
		gb.colors = append(gb.colors, planColor(s))
		gb.presets = append(gb.presets, m.preset(p) != "")
	}
	anyCI, allCI := false, true
	for c := range m.cols {
		vals, los, his := nans(len(sel)), nans(len(sel)), nans(len(sel))
		failed := make([]bool, len(sel))
		for s, p := range sel {
			r := m.cells[c][p]
			if timed(r) {
				vals[s] = r.MedianMs
				lo, hi = min(lo, r.MedianMs), max(hi, r.MedianMs)
				if l, h, ok := m.ci(r); ok {
					los[s], his[s] = l, h
					lo, hi = min(lo, l), max(hi, h)
					anyCI = true
				} else {
					allCI = false
				}
			} else if r != nil {
				failed[s] = true
				anyFailed = true
			}
		}
		gb.vals = append(gb.vals, vals)
		gb.lo, gb.hi = append(gb.lo, los), append(gb.hi, his)
		gb.failed = append(gb.failed, failed)
	}

	title := "GPU pass time per plan and graph"
	if note := m.selectionNote(sel, timesTop); note != "" {
		title += " (" + note + ", by geometric-mean ratio to the best)"
	}
	p := newPlot(title, "graph (ordered by edges)", "GPU pass time (ms, log scale)")
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{format: plainTick}
	p.Y.Min, p.Y.Max = logRange(lo, hi)
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	p.Add(grid, gb)

	var items []legendItem
	var labels []string
	for s, p := range sel {
		items = append(items, legendItem{m.legendLabel(p), barThumb{gb.colors[s], barOutline(gb.presets[s])}})
		labels = append(labels, m.legendLabel(p))
	}
	if anyFailed {
		items = append(items, legendItem{"failed (no time)", glyphThumb{failMark}})
	}
	ci := ciLegend(anyCI, allCI)
	items = append(items, ci)
	labels = append(labels, ci.label)

	// Wide enough for a few points per bar, within what a screen shows.
	lw := legendWidth(labels)
	plotW := clampLen(vg.Length(len(m.cols)*(len(sel)+2))*vg.Points(6), 7*vg.Inch, 10*vg.Inch)
	upright, rotated := m.columnLabels()
	nominalX(p, upright, rotated, (plotW-vg.Inch)/vg.Length(len(m.cols)))
	return renderSVG(plotW+lw, 6.5*vg.Inch, func(dc draw.Canvas) { drawWithLegend(dc, p, items) })
}

func clampLen(v, lo, hi vg.Length) vg.Length { return max(lo, min(hi, v)) }

// nans is n NaNs: no value yet.
func nans(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}
