package report

import (
	"cmp"
	"fmt"
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/store"
)

// dramPeaks are boards' DRAM bandwidths in bytes/s as NVIDIA's product
// datasheets give them, by the name the CUDA driver reports: the H200
// datasheet (H200 SXM and NVL: 4.8 TB/s), the H100 datasheet (SXM 3.35
// TB/s, PCIe 2 TB/s, NVL 3.9 TB/s) and the A100 datasheet (80GB SXM 2,039
// GB/s, 80GB PCIe 1,935 GB/s, 40GB 1,555 GB/s). The store keeps no bus
// width, so the peak cannot be derived from the rows' memory clock.
var dramPeaks = map[string]float64{
	"NVIDIA H200":           4.8e12,
	"NVIDIA H200 NVL":       4.8e12,
	"NVIDIA H100 80GB HBM3": 3.35e12,
	"NVIDIA H100 PCIe":      2.0e12,
	"NVIDIA H100 NVL":       3.9e12,
	"NVIDIA A100-SXM4-80GB": 2.039e12,
	"NVIDIA A100 80GB PCIe": 1.935e12,
	"NVIDIA A100-SXM4-40GB": 1.555e12,
	"NVIDIA A100-PCIE-40GB": 1.555e12,
}

// DRAMPeak is the datasheet DRAM bandwidth of the GPU CUDA names gpu, in
// bytes/s; false for a board the table lacks.
func DRAMPeak(gpu string) (float64, bool) {
	v, ok := dramPeaks[gpu]
	return v, ok
}

// graphBytes is the least an exact count reads from device memory: the
// degree-oriented CSR once, 8 bytes an offset and 4 an out-list entry (as
// executor.ClassWork.UniqueBytes counts them), one entry per undirected
// edge. Plans read more (both directions, lists again per item), so the
// bandwidth it gives is a floor of what the GPU moved: how far a plan is
// from a count bound by streaming the graph once.
func graphBytes(f graph.Features) float64 {
	return 8*float64(f.Vertices+1) + 4*float64(f.Edges)
}

// peakStyle draws a GPU's peak: dark red, dashed, as the goal line of
// scripts/peers.
var peakStyle = draw.LineStyle{Color: color.RGBA{R: 0xb0, G: 0x10, B: 0x10, A: 0xff}, Width: vg.Points(1.4),
	Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}

// bandwidthSVG: the effective DRAM bandwidth of each plan against graph
// size, under a line at each GPU's datasheet peak.
func (m *model) bandwidthSVG() ([]byte, error) {
	sm := sizeMetric{
		title:  "Effective DRAM bandwidth against graph size",
		yLabel: "GB/s (oriented graph's bytes / GPU pass time, log scale)",
		value: func(c column, r *store.Row) (float64, float64, float64, bool) {
			v, lo, hi := m.perSecond(r, graphBytes(c.feat)/1e9)
			return v, lo, hi, true
		},
		notes: []string{"bytes: 8 per vertex offset + 4 per edge,", "the least an exact count reads"},
	}
	for _, g := range m.gpus {
		peak, ok := DRAMPeak(g)
		if !ok {
			sm.notes = append(sm.notes, "no peak line: "+cmp.Or(g, "unknown GPU")+" not in the table")
			continue
		}
		tb := fmt.Sprintf("%g TB/s", peak/1e12)
		sm.refs = append(sm.refs, refLine{y: peak / 1e9, label: "datasheet peak, " + cmp.Or(g, "?") + ": " + tb,
			tag: cmp.Or(g, "?") + " peak " + tb, style: peakStyle})
	}
	return m.sizePlot(sm)
}
