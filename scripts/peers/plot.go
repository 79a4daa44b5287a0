package main

import (
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tcgen/tcgen/report"
)

// bars draws one bar per graph from the axis bottom (a log axis has no
// zero) to its ratio, a cross where a graph has none, then the lines at 1
// (as fast as the best peer) and at the goal over them.
type bars struct {
	x, ratio []float64 // ratio NaN: no bar
	colors   []color.Color
}

var (
	noBar     = draw.GlyphStyle{Color: color.Gray{Y: 90}, Radius: vg.Points(3), Shape: draw.CrossGlyph{}}
	evenLine  = draw.LineStyle{Color: color.Black, Width: vg.Points(1)}
	goalLine  = draw.LineStyle{Color: color.RGBA{R: 0xc0, A: 0xff}, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	barStroke = draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(0.4)}
)

func (b *bars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	w := (trX(1) - trX(0)) * 0.4 // half a bar: bars fill 80% of a slot
	bottom := trY(p.Y.Min)
	val := draw.TextStyle{Color: color.Black, Font: p.Y.Tick.Label.Font, Handler: p.Y.Tick.Label.Handler,
		XAlign: draw.XCenter, YAlign: draw.YBottom}
	val.Font.Size = 7
	for i, v := range b.ratio {
		x := trX(b.x[i])
		if math.IsNaN(v) {
			c.DrawGlyph(noBar, vg.Point{X: x, Y: bottom + noBar.Radius + vg.Points(2)})
			continue
		}
		top := trY(v)
		pts := []vg.Point{{X: x - w, Y: bottom}, {X: x - w, Y: top}, {X: x + w, Y: top}, {X: x + w, Y: bottom}}
		c.FillPolygon(b.colors[i], c.ClipPolygonY(pts))
		c.StrokeLines(barStroke, c.ClipLinesY(append(pts, pts[0]))...)
	}
	c.StrokeLine2(evenLine, c.Min.X, trY(1), c.Max.X, trY(1))
	c.StrokeLine2(goalLine, c.Min.X, trY(speedupGoal), c.Max.X, trY(speedupGoal))
	// The values last, each on a white ground: a bar ending near a line
	// would otherwise have its value struck through.
	for i, v := range b.ratio {
		if math.IsNaN(v) {
			continue
		}
		x, y, t := trX(b.x[i]), trY(v)+vg.Points(2), fmtRatio(v)
		tw, th := val.Width(t)/2+vg.Points(1), val.Height(t)
		c.FillPolygon(color.White, []vg.Point{{X: x - tw, Y: y}, {X: x - tw, Y: y + th}, {X: x + tw, Y: y + th}, {X: x + tw, Y: y}})
		c.FillText(val, vg.Point{X: x, Y: y}, t)
	}
}

// drawKey writes what the lines mean on one line from (x, y) of dc, with
// a sample of each, and says why there are no error bars.
func drawKey(dc draw.Canvas, sty draw.TextStyle, x, y vg.Length) {
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
	mid := y + sty.Height("1")/3
	for _, k := range []struct {
		line draw.LineStyle
		text string
	}{
		{evenLine, "1x: as fast as the fastest exact peer"},
		{goalLine, fmtRatio(speedupGoal) + "x: the goal"},
		{draw.LineStyle{}, "no error bars: tcgen's times are medians without their spread"},
	} {
		if k.line.Color != nil {
			dc.StrokeLine2(k.line, x, mid, x+vg.Points(22), mid)
			x += vg.Points(26)
		}
		dc.FillText(sty, vg.Point{X: x, Y: y}, k.text)
		x += sty.Width(k.text) + vg.Points(18)
	}
}

// svg draws the ratio per graph, the graphs grouped by family in the order
// the families first appear in the corpus, a gap and a colour per family.
func (c *comparison) svg(date string) ([]byte, error) {
	var fams []string
	byFam := map[string][]row{}
	for _, r := range c.rows {
		if byFam[r.g.family] == nil {
			fams = append(fams, r.g.family)
		}
		byFam[r.g.family] = append(byFam[r.g.family], r)
	}
	b := &bars{}
	var ticks []plot.Tick
	type span struct{ lo, hi float64 }
	spans := make([]span, len(fams))
	lo, hi := 1.0, speedupGoal
	pos := 0.0
	for f, fam := range fams {
		spans[f].lo = pos
		for _, r := range byFam[fam] {
			b.x, b.ratio = append(b.x, pos), append(b.ratio, r.ratio)
			b.colors = append(b.colors, report.SeriesColor(f))
			ticks = append(ticks, plot.Tick{Value: pos, Label: r.g.name})
			if !math.IsNaN(r.ratio) {
				lo, hi = min(lo, r.ratio), max(hi, r.ratio)
			}
			pos++
		}
		spans[f].hi = pos - 1
		pos++ // an empty slot between families
	}

	p := report.NewPlot("tcgen's default plan vs the fastest exact published GPU counter\n"+c.devices()+", "+date,
		"", "best peer's time / tcgen's (log scale)")
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = report.LogTicks()
	// Room above the tallest bar for its value, below the shortest for a cross.
	p.Y.Min, p.Y.Max = lo/1.8, hi*1.6
	// The graph names are drawn below: gonum places labels rotated by a
	// right angle across the axis.
	p.X.Tick.Marker = plot.ConstantTicks(nil)
	nameSty := p.X.Tick.Label
	nameSty.Rotation = math.Pi / 2
	nameSty.XAlign, nameSty.YAlign = draw.XRight, draw.YCenter
	var nameW vg.Length
	for _, t := range ticks {
		nameW = max(nameW, nameSty.Width(t.Label))
	}
	// pos is two slots past the last bar: 0.8 of a slot of margin each side.
	p.X.Min, p.X.Max = -0.8, pos-1.2
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	p.Add(grid, b)

	// About a quarter inch a slot keeps a bar and its value legible; 8 inches
	// hold the title.
	w := max(8*vg.Inch, vg.Length(pos)*vg.Inch/4+1.5*vg.Inch)
	famSty := p.X.Label.TextStyle
	famSty.XAlign, famSty.YAlign = draw.XCenter, draw.YBottom
	note := nameSty
	note.Rotation, note.XAlign, note.YAlign = 0, draw.XRight, draw.YBottom
	return report.RenderSVG(w, 6.5*vg.Inch, func(dc draw.Canvas) {
		// A line of its own at the bottom, first: the tests find the plot's
		// lines at 1 and the goal as the last of their colours.
		drawKey(dc, note, dc.Min.X+vg.Points(6), dc.Min.Y+vg.Points(3))
		if slices.ContainsFunc(b.ratio, math.IsNaN) {
			dc.FillText(note, vg.Point{X: dc.Max.X - vg.Points(6), Y: dc.Min.Y + vg.Points(3)}, "x: no exact time for tcgen or for any peer")
		}
		dc.Min.Y += note.Height("x") + vg.Points(6)
		strip := famSty.Height("Xg") + vg.Points(8)
		pc := dc
		pc.Min.Y += strip + nameW + vg.Points(6)
		data := report.DrawPlot(pc, p)
		trX, _ := p.Transforms(&data)
		for _, t := range ticks {
			dc.FillText(nameSty, vg.Point{X: trX(t.Value), Y: pc.Min.Y - vg.Points(4)}, t.Label)
		}
		pc.Min.Y = dc.Min.Y + strip
		for f, fam := range fams {
			x0, x1 := trX(spans[f].lo-0.4), trX(spans[f].hi+0.4)
			dc.StrokeLine2(draw.LineStyle{Color: report.SeriesColor(f), Width: vg.Points(2)}, x0, pc.Min.Y-vg.Points(2), x1, pc.Min.Y-vg.Points(2))
			dc.FillText(famSty, vg.Point{X: (x0 + x1) / 2, Y: dc.Min.Y + vg.Points(3)}, fam)
		}
	})
}

// devices names the GPUs the rows were timed on.
func (c *comparison) devices() string {
	var ds []string
	for _, r := range c.rows {
		for _, d := range strings.Split(r.device, " / ") {
			if d != "-" && !slices.Contains(ds, d) {
				ds = append(ds, d)
			}
		}
	}
	if len(ds) == 0 {
		return "unknown GPU"
	}
	return strings.Join(ds, " / ")
}
