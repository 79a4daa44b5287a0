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
)

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
