package report

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The drawing helpers below are exported for programs outside this package
// (scripts/peers) that draw plots in the report's style.

// NewPlot returns a plot with the report's fonts.
func NewPlot(title, xLabel, yLabel string) *plot.Plot { return newPlot(title, xLabel, yLabel) }

// RenderSVG draws onto a w x h SVG canvas with an opaque white background
// and returns the document.
func RenderSVG(w, h vg.Length, fn func(dc draw.Canvas)) ([]byte, error) {
	return renderSVG(w, h, fn)
}

// DrawPlot draws p into c, placing the labels of log axes well, and returns
// its data canvas.
func DrawPlot(c draw.Canvas, p *plot.Plot) draw.Canvas { return drawPlot(c, p) }

// LogTicks marks a log axis as the report's plots do: powers of ten
// labelled, 2 and 5 too on a short range.
func LogTicks() plot.Ticker { return logTicks{format: plainTick} }

// SeriesColor is the i-th of the report's distinguishable colours.
func SeriesColor(i int) color.Color { return planColor(i) }
