package report

import (
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// speedupCol is one graph of speedup.svg: the fastest plan that is no
// preset against the fastest preset (a published design) measured there.
type speedupCol struct {
	col, preset, plan int
	ratio, lo, hi     float64 // preset's time / plan's; lo, hi NaN: no interval
}

// speedups are the columns where both a preset and another plan ran.
func (m *model) speedups() []speedupCol {
	var out []speedupCol
	for c := range m.cols {
		bp, bo := -1, -1
		for p, r := range m.cells[c] {
			if !timed(r) {
				continue
			}
			best := &bo
			if m.preset(p) != "" {
				best = &bp
			}
			if *best < 0 || r.MedianMs < m.cells[c][*best].MedianMs {
				*best = p
			}
		}
		if bp < 0 || bo < 0 {
			continue
		}
		rp, ro := m.cells[c][bp], m.cells[c][bo]
		s := speedupCol{col: c, preset: bp, plan: bo, ratio: rp.MedianMs / ro.MedianMs, lo: math.NaN(), hi: math.NaN()}
		pl, ph, pok := m.ci(rp)
		ol, oh, ook := m.ci(ro)
		if pok && ook { // the ratio's interval from its ends' intervals: wide, never narrow
			s.lo, s.hi = pl/oh, ph/ol
		}
		out = append(out, s)
	}
	return out
}

// speedBars draws one bar per graph from 1 (as fast as the preset) up or
// down to the ratio, in its preset's colour, with the ratio's interval.
type speedBars struct {
	cols   []speedupCol
	colors []color.Color
	text   draw.TextStyle
}

func (b *speedBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	w := min((trX(1)-trX(0))*0.35, vg.Points(18)) // half a bar; a lone graph's bar stays a bar
	one := trY(1)
	for i, s := range b.cols {
		x, top := trX(float64(i)), trY(s.ratio)
		pts := []vg.Point{{X: x - w, Y: one}, {X: x - w, Y: top}, {X: x + w, Y: top}, {X: x + w, Y: one}}
		c.FillPolygon(b.colors[i], c.ClipPolygonY(pts))
		if 2*w >= vg.Points(minOutlined) {
			c.StrokeLines(barOutline(false), c.ClipLinesY(append(pts, pts[0]))...)
		}
		end := top
		if !math.IsNaN(s.lo) {
			drawWhisker(c, x, trY(s.lo), trY(s.hi), min(w, vg.Points(3)))
			end = trY(s.hi)
			if s.ratio < 1 {
				end = trY(s.lo)
			}
		}
		if t := ratioText(s.ratio) + "×"; b.text.Width(t) <= 2.6*w {
			sty := b.text
			y := max(end, top) + vg.Points(2)
			if s.ratio < 1 {
				sty.YAlign, y = draw.YTop, min(end, top)-vg.Points(2)
			}
			c.FillText(sty, vg.Point{X: x, Y: y}, t)
		}
	}
	c.StrokeLine2(draw.LineStyle{Color: color.Black, Width: vg.Points(1)}, c.Min.X, one, c.Max.X, one)
}

// speedupSVG: per graph, the preset's time over the best other plan's;
// nil unless some graph ran both.
func (m *model) speedupSVG() ([]byte, error) {
	cols := m.speedups()
	if len(cols) == 0 {
		return nil, nil
	}
	b := &speedBars{cols: cols}
	presetColor := map[int]color.Color{}
	var items []legendItem
	lo, hi := 1.0, 1.0
	logSum := 0.0
	anyCI, allCI := false, true
	for _, s := range cols {
		if _, ok := presetColor[s.preset]; !ok {
			presetColor[s.preset] = planColor(len(presetColor))
			items = append(items, legendItem{"fastest preset: " + m.preset(s.preset),
				barThumb{presetColor[s.preset], barOutline(false)}})
		}
		b.colors = append(b.colors, presetColor[s.preset])
		lo, hi = min(lo, s.ratio), max(hi, s.ratio)
		if !math.IsNaN(s.lo) {
			lo, hi = min(lo, s.lo), max(hi, s.hi)
			anyCI = true
		} else {
			allCI = false
		}
		logSum += math.Log(s.ratio)
	}
	geo := math.Exp(logSum / float64(len(cols)))
	p := newPlot("Speedup of the fastest plan that is no preset over the fastest preset",
		"graph (ordered by edges)", "fastest preset's time / fastest other plan's (log scale)")
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{format: plainTick}
	p.Y.Min, p.Y.Max = lo/1.25, hi*1.3 // room for the value labels
	b.text = draw.TextStyle{Color: color.Black, Font: p.Y.Tick.Label.Font, Handler: p.Y.Tick.Label.Handler,
		XAlign: draw.XCenter, YAlign: draw.YBottom}
	b.text.Font.Size = 7
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	geoLine := refLine{y: geo, label: "geometric mean " + strconv.FormatFloat(geo, 'f', 2, 64) + "×",
		style: draw.LineStyle{Color: color.Gray{Y: 80}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(2), vg.Points(2)}}}
	p.Add(grid, b, geoLine)
	items = append(items, legendItem{geoLine.label, refThumb{geoLine}}, ciLegend(anyCI, allCI))

	var upright, rotated []string
	allUp, allRot := m.columnLabels()
	for _, s := range cols {
		upright, rotated = append(upright, allUp[s.col]), append(rotated, allRot[s.col])
	}
	var labels []string
	for _, it := range items {
		labels = append(labels, it.label)
	}
	lw := legendWidth(labels)
	plotW := clampLen(vg.Length(len(cols))*vg.Points(28), 6*vg.Inch, 12*vg.Inch)
	nominalX(p, upright, rotated, (plotW-vg.Inch)/vg.Length(len(cols)))
	return renderSVG(plotW+lw, 6*vg.Inch, func(dc draw.Canvas) { drawWithLegend(dc, p, items) })
}
