package report

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
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

// drawWithLegend draws p with its legend in a column to the right of the
// plot: inside the data area the legend of a dozen plans would hide bars.
func drawWithLegend(dc draw.Canvas, p *plot.Plot, items []legendItem) {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = fontLegend
	l.Top, l.Left = true, true
	l.Padding = vg.Points(3)
	l.ThumbnailWidth = vg.Points(22)
	for _, it := range items {
		l.Add(it.label, it.thumb)
	}
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
	inner := c
	if yl != "" {
		inner.Min.X += p.Y.Label.TextStyle.Height(yl) + p.Y.Label.Padding
	}
	if xl != "" {
		inner.Min.Y += p.X.Label.TextStyle.Height(xl) + p.X.Label.Padding
	}
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
	failed  [][]bool    // [group][series]: measured but no time
	colors  []color.Color
	presets []bool
}

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
			c.StrokeLines(barOutline(b.presets[s]), c.ClipLinesY(append(pts, pts[0]))...)
		}
	}
}

// logTicks marks a log axis: every power of ten labelled, 2 and 5 labelled
// too when the range holds fewer than two powers of ten (plot.LogTicks
// would leave a range inside one decade without a single label).
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
			if k == 1 || decades < 2 && (k == 2 || k == 5) || decades == 0 {
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
	for c := range m.cols {
		vals := make([]float64, len(sel))
		failed := make([]bool, len(sel))
		for s, p := range sel {
			r := m.cells[c][p]
			vals[s] = math.NaN()
			if timed(r) {
				vals[s] = r.MedianMs
				lo, hi = min(lo, r.MedianMs), max(hi, r.MedianMs)
			} else if r != nil {
				failed[s] = true
				anyFailed = true
			}
		}
		gb.vals = append(gb.vals, vals)
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

	// Wide enough for a few points per bar, within what a screen shows.
	lw := legendWidth(labels)
	plotW := clampLen(vg.Length(len(m.cols)*(len(sel)+2))*vg.Points(6), 7*vg.Inch, 10*vg.Inch)
	upright, rotated := m.columnLabels()
	nominalX(p, upright, rotated, (plotW-vg.Inch)/vg.Length(len(m.cols)))
	return renderSVG(plotW+lw, 6.5*vg.Inch, func(dc draw.Canvas) { drawWithLegend(dc, p, items) })
}

func clampLen(v, lo, hi vg.Length) vg.Length { return max(lo, min(hi, v)) }

// ratioColors maps log10(time / best) in [0, log10(top)] from pale yellow
// (best) to near black: magma's control points, lightness monotonic, so the
// order survives greyscale printing and colour blindness.
func ratioColors(top float64) (palette.ColorMap, error) {
	cm, err := moreland.NewLuminance([]color.Color{
		rgb(0x1c1044), rgb(0x4f127b), rgb(0x812581), rgb(0xb5367a),
		rgb(0xe55064), rgb(0xfb8761), rgb(0xfec287), rgb(0xfcfdbf),
	})
	if err != nil {
		return nil, err
	}
	cm = palette.Reverse(cm)
	cm.SetMin(0)
	cm.SetMax(math.Log10(top))
	return cm, nil
}

// colorTop is the ratio the heat map's darkest colour stands for: the
// smallest of 2, 5, 10, ... ratioCap above every ratio, so that a sweep
// whose plans are all within 3x of each other still spans the scale.
func (m *model) colorTop() float64 {
	worst := 1.0
	for c := range m.cols {
		for p := range m.plans {
			if v := m.ratio(c, p); !math.IsNaN(v) {
				worst = max(worst, v)
			}
		}
	}
	for _, t := range colorSteps {
		if t >= worst {
			return t
		}
	}
	return ratioCap
}

// colorSteps end at ratioCap.
var colorSteps = []float64{2, 5, 10, 20, 50, ratioCap}

// heatCells is the heat map: one cell per plan (row) and graph (column),
// coloured by its ratio to the graph's best and annotated with it. gonum's
// HeatMap cannot annotate cells nor say why one is grey.
type heatCells struct {
	ratio [][]float64 // [row][column]; NaN: no time
	text  [][]string
	cmap  palette.ColorMap
	top   float64 // the ratio of the darkest colour
	font  text.Style
}

func (h *heatCells) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	n := len(h.ratio)
	border := draw.LineStyle{Color: color.White, Width: vg.Points(1)}
	for r, row := range h.ratio {
		y := float64(n - 1 - r) // best-ranked plan on top
		for col, v := range row {
			x0, x1 := trX(float64(col)-0.5), trX(float64(col)+0.5)
			y0, y1 := trY(y-0.5), trY(y+0.5)
			fill := color.Color(grey)
			if !math.IsNaN(v) {
				var err error
				fill, err = h.cmap.At(math.Log10(min(max(v, 1), h.top)))
				if err != nil {
					panic(err)
				}
			}
			pts := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}
			c.FillPolygon(fill, pts)
			c.StrokeLines(border, append(pts, pts[0]))
			if t := h.text[r][col]; t != "" && x1-x0 >= h.font.Width(t)+vg.Points(3) && y1-y0 >= h.font.Height(t) {
				sty := h.font
				sty.Color = color.Black
				if luminance(fill) < 0.4 {
					sty.Color = color.White
				}
				c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, t)
			}
		}
	}
}

func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 0xffff
}

// ratioText is a heat-map cell's annotation.
func ratioText(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// heatmapSVG: every plan against every graph, time over the graph's best.
func (m *model) heatmapSVG() ([]byte, error) {
	if !m.anyTimed() {
		return nil, nil
	}
	top := m.colorTop()
	cmap, err := ratioColors(top)
	if err != nil {
		return nil, err
	}
	h := &heatCells{cmap: cmap, top: top, font: text.Style{
		Font: font.From(plot.DefaultFont, fontCell), Handler: plot.DefaultTextHandler,
		XAlign: draw.XCenter, YAlign: draw.YCenter,
	}}
	var planLabels []string
	for _, p := range m.rank {
		var ratios []float64
		var texts []string
		for c := range m.cols {
			v := m.ratio(c, p)
			ratios = append(ratios, v)
			switch r := m.cells[c][p]; {
			case !math.IsNaN(v):
				texts = append(texts, ratioText(v))
			case r == nil:
				texts = append(texts, "n/a")
			default:
				texts = append(texts, string(r.Status))
			}
		}
		h.ratio = append(h.ratio, ratios)
		h.text = append(h.text, texts)
		planLabels = append(planLabels, m.legendLabel(p))
	}

	p := newPlot("Time over the best plan of each graph (1 = best; grey: failed or not run)",
		"graph (ordered by edges)", "plan (best geometric-mean ratio on top)")
	p.Add(h)
	yt := make([]plot.Tick, len(planLabels))
	for i, l := range planLabels {
		yt[i] = plot.Tick{Value: float64(len(planLabels) - 1 - i), Label: l}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(yt)
	p.Y.Min, p.Y.Max = -0.5, float64(len(planLabels))-0.5
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Tick.Length, p.Y.Tick.Length = 0, 0

	// Cells big enough for their annotation; many plans make the plot tall
	// rather than the labels unreadable.
	var labelW vg.Length
	for _, l := range planLabels {
		labelW = max(labelW, p.Y.Tick.Label.Width(l))
	}
	cellW := clampLen(9*vg.Inch/vg.Length(len(m.cols)), vg.Points(14), vg.Points(64))
	cellH := vg.Points(18)
	if len(m.rank) > 60 {
		cellH = vg.Points(12)
	}
	barW := 1.2 * vg.Inch
	w := max(8*vg.Inch, labelW+vg.Length(len(m.cols))*cellW+barW+vg.Inch)
	upright, rotated := m.columnLabels()
	nominalX(p, upright, rotated, cellW)
	hgt := max(4.5*vg.Inch, vg.Length(len(m.rank))*cellH+2*vg.Inch)
	if p.X.Tick.Label.Rotation != 0 {
		var widest vg.Length
		for _, l := range rotated {
			widest = max(widest, p.X.Tick.Label.Width(l))
		}
		hgt += widest / 2 // sin(30°) of the rotated labels
	}

	cb := plot.New()
	cb.HideX()
	cb.Y.Label.Text = "time / best time"
	cb.Y.Label.TextStyle.Font.Size = fontLabel
	cb.Y.Tick.Label.Font.Size = fontTick
	cb.Y.Padding = 0
	cb.Add(colorStrip{cmap})
	var ct []plot.Tick
	for _, v := range append([]float64{1}, colorSteps...) {
		if v > top {
			break
		}
		l := plainTick(v) + "×"
		if v == top && top == ratioCap {
			l += "+" // capped: the darkest colour includes anything slower
		}
		ct = append(ct, plot.Tick{Value: math.Log10(v), Label: l})
	}
	cb.Y.Tick.Marker = plot.ConstantTicks(ct)

	return renderSVG(w, hgt, func(dc draw.Canvas) {
		pc := draw.Crop(dc, 0, -barW, 0, 0)
		data := drawPlot(pc, p)
		bc := dc
		bc.Min.X, bc.Max.X = pc.Max.X+vg.Points(12), dc.Max.X-vg.Points(12)
		bc.Min.Y, bc.Max.Y = data.Min.Y, data.Max.Y
		cb.Draw(bc)
	})
}

// colorStrip is the heat map's colour scale as filled rectangles, one per
// step: gonum's ColorBar embeds a one-pixel image labelled image/jpg that
// holds PNG data, which some SVG viewers (librsvg) leave out.
type colorStrip struct{ cmap palette.ColorMap }

// colorStripSteps is enough that neighbouring rectangles differ by less
// than the eye sees.
const colorStripSteps = 96

func (s colorStrip) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	lo, hi := s.cmap.Min(), s.cmap.Max()
	for i := range colorStripSteps {
		v0 := lo + (hi-lo)*float64(i)/colorStripSteps
		v1 := lo + (hi-lo)*float64(i+1)/colorStripSteps
		col, err := s.cmap.At((v0 + v1) / 2)
		if err != nil {
			continue
		}
		// Each rectangle reaches a hair into the next, so no seam shows.
		c.FillPolygon(col, c.ClipPolygonXY([]vg.Point{
			{X: trX(0), Y: trY(v0)}, {X: trX(1), Y: trY(v0)},
			{X: trX(1), Y: trY(v1) + 0.5}, {X: trX(0), Y: trY(v1) + 0.5},
		}))
	}
}

func (s colorStrip) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, 1, s.cmap.Min(), s.cmap.Max()
}

// sizeSVG: time against edges, one line per plan, both axes logarithmic.
func (m *model) sizeSVG() ([]byte, error) {
	if !m.anyTimed() {
		return nil, nil
	}
	sel := m.selectPlans(sizeTop)
	p := newPlot("", "graph size (edges, log scale)", "GPU pass time (ms, log scale)")
	title := "GPU pass time against graph size"
	if note := m.selectionNote(sel, sizeTop); note != "" {
		title += " (" + note + ")"
	}
	p.Title.Text = title
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = logTicks{format: siCount}
	p.Y.Tick.Marker = logTicks{format: plainTick}
	grid := plotter.NewGrid()
	p.Add(grid)

	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	var items []legendItem
	var labels []string
	for s, pl := range sel {
		// One series per GPU, so a plan measured on two GPUs is two lines.
		for _, gpu := range m.gpus {
			var xys plotter.XYs
			for c, col := range m.cols {
				r := m.cells[c][pl]
				if col.gpu != gpu || !timed(r) || col.feat.Edges == 0 {
					continue
				}
				x := float64(col.feat.Edges)
				xys = append(xys, plotter.XY{X: x, Y: r.MedianMs})
				xlo, xhi = min(xlo, x), max(xhi, x)
				ylo, yhi = min(ylo, r.MedianMs), max(yhi, r.MedianMs)
			}
			if len(xys) == 0 {
				continue
			}
			slices.SortStableFunc(xys, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
			line, err := plotter.NewLine(xys)
			if err != nil {
				return nil, err
			}
			line.Color = planColor(s)
			line.Width = vg.Points(1.5)
			if m.preset(pl) != "" {
				line.Width = vg.Points(2.2)
				line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
			}
			pts, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			pts.GlyphStyle = draw.GlyphStyle{Color: planColor(s), Radius: vg.Points(3.5), Shape: plotutil.Shape(s)}
			p.Add(line, pts)
			label := m.legendLabel(pl)
			if len(m.gpus) > 1 {
				label += " @ " + gpu
			}
			items = append(items, legendItem{label, lineThumb{line, pts}})
			labels = append(labels, label)
		}
	}
	if len(items) == 0 {
		return nil, nil // only empty graphs were timed
	}
	p.X.Min, p.X.Max = logRange(xlo, xhi)
	p.Y.Min, p.Y.Max = logRange(ylo, yhi)
	lw := legendWidth(labels)
	return renderSVG(9*vg.Inch+lw, 6.5*vg.Inch, func(dc draw.Canvas) { drawWithLegend(dc, p, items) })
}

// lineThumb shows a line with its marker in the legend.
type lineThumb struct {
	line *plotter.Line
	pts  *plotter.Scatter
}

func (t lineThumb) Thumbnail(c *draw.Canvas) {
	t.line.Thumbnail(c)
	t.pts.Thumbnail(c)
}

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
