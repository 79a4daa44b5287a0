package report

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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
	w := max(8*vg.Inch, labelW+vg.Length(len(m.cols))*cellW+1.2*vg.Inch+vg.Inch)
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

	bar := colorBar{cmap: cmap, top: top, label: "time / best time (×, log scale)"}
	barW := bar.width(p.Y.Tick.Label, p.Y.Label.TextStyle)
	w += barW - 1.2*vg.Inch
	return renderSVG(w, hgt, func(dc draw.Canvas) {
		pc := draw.Crop(dc, 0, -barW, 0, 0)
		data := drawPlot(pc, p)
		bc := dc
		bc.Min.X, bc.Max.X = pc.Max.X+vg.Points(12), dc.Max.X
		// Top-aligned and at most a screen tall: on a sweep of 200 plans the
		// scale stays beside the first rows.
		bc.Min.Y, bc.Max.Y = max(data.Min.Y, data.Max.Y-6*vg.Inch), data.Max.Y
		bar.draw(bc, p.Y.Tick.Label, p.Y.Label.TextStyle)
	})
}

// colorBar is the heat map's scale, drawn by hand: a strip of colours, its
// ticks and their labels to the right, the unit beyond. (gonum's ColorBar
// sizes its strip from what the tick labels leave, which with labels such
// as "100×+" in a narrow column is nothing.)
type colorBar struct {
	cmap  palette.ColorMap
	top   float64 // the ratio of the darkest colour
	label string
}

// colorBarStrip is the strip's width: a clear swatch beside the rows.
const colorBarStrip = 14 // points

// ticks are the ratios marked on the scale.
func (b colorBar) ticks() []plot.Tick {
	var ct []plot.Tick
	marks := append([]float64{1}, colorSteps...)
	if b.top <= 2 { // a scale within 2x: mark its middle too
		marks = []float64{1, 1.25, 1.5, 2}
	}
	for _, v := range marks {
		if v > b.top {
			break
		}
		l := plainTick(v) + "×"
		if v == b.top && b.top == ratioCap {
			l += "+" // capped: the darkest colour includes anything slower
		}
		ct = append(ct, plot.Tick{Value: math.Log10(v), Label: l})
	}
	return ct
}

// width is the room the bar takes right of the heat map.
func (b colorBar) width(tick, label text.Style) vg.Length {
	var tw vg.Length
	for _, t := range b.ticks() {
		tw = max(tw, tick.Width(t.Label))
	}
	return vg.Points(12+colorBarStrip+4+6) + tw + label.Height(b.label) + vg.Points(12)
}

func (b colorBar) draw(c draw.Canvas, tick, label text.Style) {
	x0, x1 := c.Min.X, c.Min.X+vg.Points(colorBarStrip)
	lo, hi := b.cmap.Min(), b.cmap.Max()
	y := func(v float64) vg.Length { return c.Min.Y + (c.Max.Y-c.Min.Y)*vg.Length((v-lo)/(hi-lo)) }
	for i := range colorStripSteps {
		v0 := lo + (hi-lo)*float64(i)/colorStripSteps
		v1 := lo + (hi-lo)*float64(i+1)/colorStripSteps
		col, err := b.cmap.At((v0 + v1) / 2)
		if err != nil {
			continue
		}
		// Each rectangle reaches a hair into the next, so no seam shows.
		c.FillPolygon(col, []vg.Point{{X: x0, Y: y(v0)}, {X: x1, Y: y(v0)}, {X: x1, Y: y(v1) + 0.5}, {X: x0, Y: y(v1) + 0.5}})
	}
	edge := draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}
	c.StrokeLines(edge, []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}, {X: x0, Y: c.Min.Y}})
	sty := tick
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YCenter
	var tw vg.Length
	for _, t := range b.ticks() {
		ty := y(t.Value)
		c.StrokeLine2(edge, x1, ty, x1+vg.Points(4), ty)
		c.FillText(sty, vg.Point{X: x1 + vg.Points(6), Y: ty}, t.Label)
		tw = max(tw, sty.Width(t.Label))
	}
	ls := label
	ls.Rotation = math.Pi / 2
	ls.XAlign, ls.YAlign = draw.XCenter, draw.YBottom
	c.FillText(ls, vg.Point{X: x1 + vg.Points(12) + tw + ls.Height(b.label), Y: (c.Min.Y + c.Max.Y) / 2}, b.label)
}

// colorStripSteps is enough that neighbouring rectangles differ by less
// than the eye sees.
const colorStripSteps = 96
