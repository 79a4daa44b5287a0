package report

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tcgen/tcgen/store"
)

// sizeMetric is what a plot against graph size shows: one line per plan
// (and GPU), a point per graph, both axes logarithmic.
type sizeMetric struct {
	title, yLabel string
	yTick         func(float64) string // nil: plain numbers
	// value is the row's point and its 95% interval (lo <= hi; NaN where
	// the row has none); ok is false where the row makes no point.
	value func(c column, r *store.Row) (v, lo, hi float64, ok bool)
	// refs are horizontal lines across the plot (a GPU's peak bandwidth).
	refs []refLine
	// notes are legend lines without a swatch.
	notes []string
}

// sizeSVG: time against edges.
func (m *model) sizeSVG() ([]byte, error) {
	return m.sizePlot(sizeMetric{
		title: "GPU pass time against graph size", yLabel: "GPU pass time (ms, log scale)",
		value: func(_ column, r *store.Row) (float64, float64, float64, bool) {
			lo, hi, ok := m.ci(r)
			if !ok {
				lo, hi = math.NaN(), math.NaN()
			}
			return r.MedianMs, lo, hi, true
		},
	})
}

// perSecond turns a row's median time and interval into a rate of work
// units per second: the interval's ends swap (a longer time, a lower
// rate).
func (m *model) perSecond(r *store.Row, work float64) (v, lo, hi float64) {
	v, lo, hi = work/(r.MedianMs/1e3), math.NaN(), math.NaN()
	if l, h, ok := m.ci(r); ok {
		lo, hi = work/(h/1e3), work/(l/1e3)
	}
	return v, lo, hi
}

// rateSVG: edges per second against edges.
func (m *model) rateSVG() ([]byte, error) {
	return m.sizePlot(sizeMetric{
		title: "Edges per second against graph size", yLabel: "edges per second (undirected edges / GPU pass time, log scale)",
		yTick: siCount,
		value: func(c column, r *store.Row) (float64, float64, float64, bool) {
			v, lo, hi := m.perSecond(r, float64(c.feat.Edges))
			return v, lo, hi, true
		},
	})
}

// sizePlot draws sm for the selected plans; nil when no row makes a point.
func (m *model) sizePlot(sm sizeMetric) ([]byte, error) {
	if !m.anyTimed() {
		return nil, nil
	}
	sel := m.selectPlans(sizeTop)
	title := sm.title
	if note := m.selectionNote(sel, sizeTop); note != "" {
		title += " (" + note + ")"
	}
	p := newPlot(title, "graph size (edges, log scale)", sm.yLabel)
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = logTicks{format: siCount}
	p.Y.Tick.Marker = logTicks{format: plainTick}
	if sm.yTick != nil {
		p.Y.Tick.Marker = logTicks{format: sm.yTick}
	}
	p.Add(plotter.NewGrid())

	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	var items []legendItem
	anyCI, allCI := false, true
	for s, pl := range sel {
		// One series per GPU, so a plan measured on two GPUs is two lines.
		for _, gpu := range m.gpus {
			var xys plotter.XYs
			var bars []errBar
			for c, col := range m.cols {
				r := m.cells[c][pl]
				if col.gpu != gpu || !timed(r) || col.feat.Edges == 0 {
					continue
				}
				v, lo, hi, ok := sm.value(col, r)
				if !ok || !(v > 0) {
					continue
				}
				x := float64(col.feat.Edges)
				xys = append(xys, plotter.XY{X: x, Y: v})
				xlo, xhi = min(xlo, x), max(xhi, x)
				ylo, yhi = min(ylo, v), max(yhi, v)
				if math.IsNaN(lo) {
					allCI = false
					continue
				}
				anyCI = true
				bars = append(bars, errBar{x, lo, hi})
				ylo, yhi = min(ylo, lo), max(yhi, hi)
			}
			if len(xys) == 0 {
				continue
			}
			slices.SortStableFunc(xys, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
			line, pts, err := m.seriesLine(xys, s, pl)
			if err != nil {
				return nil, err
			}
			p.Add(line, &errBars{bars}, pts)
			label := m.legendLabel(pl)
			if len(m.gpus) > 1 {
				label += " @ " + gpu
			}
			items = append(items, legendItem{label, lineThumb{line, pts}})
		}
	}
	if len(items) == 0 {
		return nil, nil // only empty graphs were timed
	}
	for _, ref := range sm.refs {
		ylo, yhi = min(ylo, ref.y), max(yhi, ref.y)
		p.Add(ref)
		items = append(items, legendItem{ref.label, refThumb{ref}})
	}
	items = append(items, ciLegend(anyCI, allCI))
	for _, n := range sm.notes {
		items = append(items, legendItem{n, noThumb{}})
	}
	p.X.Min, p.X.Max = logRange(xlo, xhi)
	p.Y.Min, p.Y.Max = logRange(ylo, yhi)
	var labels []string
	for _, it := range items {
		labels = append(labels, it.label)
	}
	lw := legendWidth(labels)
	return renderSVG(9*vg.Inch+lw, 6.5*vg.Inch, func(dc draw.Canvas) { drawWithLegend(dc, p, items) })
}

// seriesLine is plan pl's line and markers in the colour of series s;
// presets are dashed and heavier.
func (m *model) seriesLine(xys plotter.XYs, s, pl int) (*plotter.Line, *plotter.Scatter, error) {
	line, err := plotter.NewLine(xys)
	if err != nil {
		return nil, nil, err
	}
	line.Color = planColor(s)
	line.Width = vg.Points(1.5)
	if m.preset(pl) != "" {
		line.Width = vg.Points(2.2)
		line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
	}
	pts, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, nil, err
	}
	pts.GlyphStyle = draw.GlyphStyle{Color: planColor(s), Radius: vg.Points(3.5), Shape: plotutil.Shape(s)}
	return line, pts, nil
}

// errBar is one point's interval: at x, from lo to hi (data units).
type errBar struct{ x, lo, hi float64 }

// errBars draws the intervals of one series as whiskers.
type errBars struct{ bars []errBar }

func (e *errBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for _, b := range e.bars {
		drawWhisker(c, trX(b.x), trY(b.lo), trY(b.hi), vg.Points(4))
	}
}

// refLine is a horizontal line across the plot at y, labelled at its
// right end: a limit the points are measured against.
type refLine struct {
	y     float64
	label string // in the legend
	tag   string // beside the line; "" for none
	style draw.LineStyle
}

func (l refLine) Plot(c draw.Canvas, plt *plot.Plot) {
	_, trY := plt.Transforms(&c)
	y := trY(l.y)
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
	if l.tag == "" {
		return
	}
	sty := plt.Y.Tick.Label
	sty.Color = l.style.Color
	sty.XAlign, sty.YAlign = draw.XRight, draw.YBottom
	c.FillText(sty, vg.Point{X: c.Max.X - vg.Points(4), Y: y + vg.Points(2)}, l.tag)
}

// refThumb is a reference line's legend swatch.
type refThumb struct{ l refLine }

func (t refThumb) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(t.l.style, c.Min.X, y, c.Max.X, y)
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
