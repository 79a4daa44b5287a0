package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The tune plot's marks: the best so far stands out in blue over grey
// evaluations; what count ran untuned is orange, the finalists' winner green.
var (
	bestStyle  = draw.LineStyle{Color: rgb(0x1f5fa8), Width: vg.Points(2)}
	bestMark   = draw.GlyphStyle{Color: rgb(0x1f5fa8), Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
	fullMark   = draw.GlyphStyle{Color: color.Gray{Y: 150}, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	screenMark = draw.GlyphStyle{Color: color.Gray{Y: 150}, Radius: vg.Points(2.5), Shape: draw.RingGlyph{}}
	tuneFail   = draw.GlyphStyle{Color: rgb(0xc03030), Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
	finalMark  = draw.GlyphStyle{Color: rgb(0x2e8b3e), Radius: vg.Points(4.5), Shape: draw.BoxGlyph{}}
	baseStyle  = draw.LineStyle{Color: rgb(0xe07b00), Width: vg.Points(1.3), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
)

// tuneMarks draws one panel's evaluations: grey dots, red crosses at the
// top for failures, the best so far as a blue staircase with its new
// bests marked and their intervals, and the finalists' winner after the
// last evaluation.
type tuneMarks struct {
	pts   []tunePoint
	x     func(tunePoint) float64
	final *TuneFinal
	lastX float64 // where the final winner is drawn
}

func (t *tuneMarks) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	top := trY(plt.Y.Max) - tuneFail.Radius - vg.Points(2)
	for _, p := range t.pts {
		x := trX(t.x(p))
		switch {
		case !p.OK:
			c.DrawGlyph(tuneFail, vg.Point{X: x, Y: top})
		case p.Full:
			c.DrawGlyph(fullMark, vg.Point{X: x, Y: trY(p.MedianMs)})
		default:
			c.DrawGlyph(screenMark, vg.Point{X: x, Y: trY(p.MedianMs)})
		}
	}
	var stair []vg.Point
	for _, p := range t.pts {
		if math.IsInf(p.bestMs, 1) {
			continue
		}
		x, y := trX(t.x(p)), trY(p.bestMs)
		if n := len(stair); n > 0 && stair[n-1].Y != y {
			stair = append(stair, vg.Point{X: x, Y: stair[n-1].Y})
		}
		stair = append(stair, vg.Point{X: x, Y: y})
	}
	if f := t.final; f != nil && len(stair) > 0 {
		stair = append(stair, vg.Point{X: trX(t.lastX), Y: stair[len(stair)-1].Y})
	}
	if len(stair) > 0 {
		c.StrokeLines(bestStyle, c.ClipLinesXY(stair)...)
	}
	for _, p := range t.pts {
		if p.newBest {
			x := trX(t.x(p))
			if p.CIHiMs > 0 {
				drawWhisker(c, x, trY(p.CILoMs), trY(p.CIHiMs), vg.Points(5))
			}
			c.DrawGlyph(bestMark, vg.Point{X: x, Y: trY(p.MedianMs)})
		}
	}
	if f := t.final; f != nil {
		x := trX(t.lastX)
		if f.CIHiMs > 0 {
			drawWhisker(c, x, trY(f.CILoMs), trY(f.CIHiMs), vg.Points(6))
		}
		c.DrawGlyph(finalMark, vg.Point{X: x, Y: trY(f.Ms)})
	}
}

// tuneRange is the log axis's range: every median, interval, baseline
// and the final, with room above for the failure crosses.
func tuneRange(t TuneTrace, pts []tunePoint) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	add := func(vs ...float64) {
		for _, v := range vs {
			if v > 0 && !math.IsInf(v, 0) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	for _, p := range pts {
		if p.OK {
			add(p.MedianMs, p.CILoMs, p.CIHiMs)
		}
	}
	if f := t.Final; f != nil {
		add(f.Ms, f.CILoMs, f.CIHiMs)
	}
	if math.IsInf(lo, 1) {
		return 0, 0, false
	}
	return lo / 1.3, hi * 1.8, true
}

// tuneSVG: the best so far against evaluations (top) and GPU seconds
// (bottom); nil when no evaluation counted right.
func tuneSVG(t TuneTrace, pts []tunePoint) ([]byte, error) {
	lo, hi, ok := tuneRange(t, pts)
	if !ok {
		return nil, nil
	}
	n := float64(len(pts))
	secs := pts[len(pts)-1].gpuSeconds
	panels := []*plot.Plot{
		tunePanel(t, pts, "Best so far against evaluations", "evaluation", func(p tunePoint) float64 { return float64(p.N) },
			n+max(1, n/30), 0.5, n+max(2, n/15)),
		tunePanel(t, pts, "Best so far against GPU seconds", "GPU seconds spent ("+t.SecondsNote+")",
			func(p tunePoint) float64 { return p.gpuSeconds }, secs*1.03+1e-3, 0, secs*1.06+2e-3),
	}
	for _, p := range panels {
		p.Y.Min, p.Y.Max = lo, hi
	}
	items := []legendItem{
		{"best so far (full passes)", lineGlyphThumb{bestStyle, bestMark}},
		{"evaluation, full passes", glyphThumb{fullMark}},
	}
	if anyScreen(pts) {
		items = append(items, legendItem{"evaluation, fewer passes (screening)", glyphThumb{screenMark}})
	}
	if anyFailed(pts) {
		items = append(items, legendItem{"failed (wrong count, compile, launch)", glyphThumb{tuneFail}})
	}
	for _, p := range pts {
		if p.Baseline && p.OK {
			items = append(items, legendItem{"measured first: " + shorten(p.Label, 40) + ", " + sig4(p.MedianMs) + " ms", refThumb{refLine{style: baseStyle}}})
		}
	}
	if f := t.Final; f != nil {
		items = append(items, legendItem{"finalists' winner, interleaved: " + sig4(f.Ms) + " ms", glyphThumb{finalMark}})
	}
	items = append(items, legendItem{"95% CI of a new best's median", whiskerThumb{}})
	var labels []string
	for _, it := range items {
		labels = append(labels, it.label)
	}
	lw := legendWidth(labels)
	return renderSVG(8*vg.Inch+lw, 9*vg.Inch, func(dc draw.Canvas) {
		l := newLegend(items)
		pc := draw.Crop(dc, vg.Points(4), -lw, vg.Points(4), -vg.Points(6))
		half := (pc.Max.Y - pc.Min.Y) / 2
		gap := vg.Points(10) // between the upper panel's axis label and the lower's title
		top := drawPlot(draw.Crop(pc, 0, 0, half+gap/2, 0), panels[0])
		drawPlot(draw.Crop(pc, 0, 0, 0, -half+gap/2), panels[1])
		lc := dc
		lc.Min.X = pc.Max.X + vg.Points(12)
		lc.Max.Y = top.Max.Y
		l.Draw(lc)
	})
}

// tunePanel is one panel: x from xOf, its axis up to xMax (the final
// winner drawn at finalX).
func tunePanel(t TuneTrace, pts []tunePoint, title, xLabel string, xOf func(tunePoint) float64, finalX, xMin, xMax float64) *plot.Plot {
	p := newPlot(title, xLabel, "GPU pass time (ms, median, log scale)")
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = logTicks{format: plainTick}
	p.X.Min, p.X.Max = xMin, xMax
	p.X.Tick.Marker = linTicks{}
	p.Add(plotter.NewGrid(), &tuneMarks{pts: pts, x: xOf, final: t.Final, lastX: finalX})
	for _, e := range pts { // over the staircase, which often starts at a baseline
		if e.Baseline && e.OK {
			p.Add(refLine{y: e.MedianMs, style: baseStyle})
		}
	}
	return p
}

// lineGlyphThumb is a line with a marker on it.
type lineGlyphThumb struct {
	line  draw.LineStyle
	glyph draw.GlyphStyle
}

func (t lineGlyphThumb) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(t.line, c.Min.X, y, c.Max.X, y)
	c.DrawGlyph(t.glyph, c.Center())
}

func anyScreen(pts []tunePoint) bool {
	for _, p := range pts {
		if p.OK && !p.Full {
			return true
		}
	}
	return false
}

func anyFailed(pts []tunePoint) bool {
	for _, p := range pts {
		if !p.OK {
			return true
		}
	}
	return false
}

// shorten cuts s to n runes with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// linTicks marks a linear axis every 1, 2 or 5 times a power of ten, about
// six labels, written plainly (gonum's default writes 25.00).
type linTicks struct{}

func (linTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return nil
	}
	step := math.Pow10(int(math.Floor(math.Log10((hi - lo) / 6))))
	for _, k := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(k*step) <= 7 {
			step *= k
			break
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		ticks = append(ticks, plot.Tick{Value: v, Label: plainTick(v)})
	}
	return ticks
}
