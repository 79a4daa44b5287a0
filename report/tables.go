package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"

	"github.com/tcgen/tcgen/store"
)

// record is one line of results.jsonl and one row of results.csv. Times and
// readings a row does not have (a failed plan, NVML unavailable) are null
// in JSON and empty in CSV, never a misleading 0.
type record struct {
	GraphName      string       `json:"graph_name"`
	Graph          string       `json:"graph"`
	Vertices       uint64       `json:"vertices"`
	Edges          uint64       `json:"edges"`
	DegreeMax      uint64       `json:"degree_max"`
	GPUName        string       `json:"gpu_name"`
	Plan           string       `json:"plan"`
	Label          string       `json:"label"`
	Preset         string       `json:"preset,omitempty"` // the preset the plan stands for
	Status         store.Status `json:"status"`
	Reason         string       `json:"reason"`
	Triangles      uint64       `json:"triangles"`
	Reference      uint64       `json:"reference"`
	MedianMs       *float64     `json:"median_ms"`
	MinMs          *float64     `json:"min_ms"`
	MaxMs          *float64     `json:"max_ms"`
	CILoMs         *float64     `json:"ci_lo_ms"` // 95% interval of the median (executor.MedianCI)
	CIHiMs         *float64     `json:"ci_hi_ms"`
	FlushedL2      bool         `json:"flushed_l2"` // the L2 was flushed before each timed pass
	KernelMs       *float64     `json:"kernel_ms"`
	Runs           *int         `json:"runs"`
	EdgesPerSecond *float64     `json:"edges_per_second"`
	ClockSMMHz     *int         `json:"clock_sm_mhz"`
	ClockMemMHz    *int         `json:"clock_mem_mhz"`
	TempC          *int         `json:"temperature_c"`
}

var csvHeader = []string{
	"graph_name", "graph", "vertices", "edges", "degree_max", "gpu_name", "plan", "label", "preset",
	"status", "reason", "triangles", "reference", "median_ms", "min_ms", "max_ms",
	"ci_lo_ms", "ci_hi_ms", "flushed_l2", "kernel_ms", "runs", "edges_per_second", "clock_sm_mhz", "clock_mem_mhz", "temperature_c",
}

// records lists the measured cells, columns in order (edges, then name),
// plans by name.
func (m *model) records() []record {
	var recs []record
	for c := range m.cols {
		for p, r := range m.cells[c] {
			if r == nil {
				continue
			}
			rec := record{
				GraphName: r.GraphName, Graph: r.Graph,
				Vertices: r.Features.Vertices, Edges: r.Features.Edges, DegreeMax: r.Features.DegreeMax,
				GPUName: r.GPUName, Plan: r.Plan, Label: m.label(p), Preset: m.preset(p),
				Status: r.Status, Reason: r.Reason, Triangles: r.Triangles, Reference: r.Reference,
				FlushedL2: r.Flushed, ClockSMMHz: positive(r.ClockSMMHz), ClockMemMHz: positive(r.ClockMemMHz), TempC: positive(r.TempC),
			}
			if timed(r) {
				rec.MedianMs, rec.MinMs, rec.MaxMs = &r.MedianMs, &r.MinMs, &r.MaxMs
				if lo, hi, ok := m.ci(r); ok {
					rec.CILoMs, rec.CIHiMs = &lo, &hi
				}
				rec.KernelMs = positiveF(r.KernelMs)
				runs := r.Runs
				if runs == 0 {
					runs = len(r.Samples)
				}
				rec.Runs = &runs
				eps := float64(r.Features.Edges) / (r.MedianMs / 1e3)
				rec.EdgesPerSecond = &eps
			}
			recs = append(recs, rec)
		}
	}
	return recs
}

func positive(v int) *int {
	if v <= 0 {
		return nil
	}
	return &v
}

func positiveF(v float64) *float64 {
	if v <= 0 {
		return nil
	}
	return &v
}

func encodeCSV(recs []record) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(csvHeader); err != nil {
		return nil, err
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	for _, r := range recs {
		row := []string{
			r.GraphName, r.Graph, u(r.Vertices), u(r.Edges), u(r.DegreeMax), r.GPUName, r.Plan, r.Label, r.Preset,
			string(r.Status), r.Reason, u(r.Triangles), u(r.Reference),
			optF(r.MedianMs), optF(r.MinMs), optF(r.MaxMs), optF(r.CILoMs), optF(r.CIHiMs),
			strconv.FormatBool(r.FlushedL2), optF(r.KernelMs),
			optI(r.Runs), optF(r.EdgesPerSecond), optI(r.ClockSMMHz), optI(r.ClockMemMHz), optI(r.TempC),
		}
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// optF writes the shortest decimal that reads back as the same float.
func optF(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

func optI(v *int) string {
	if v == nil {
		return ""
	}
	return strconv.Itoa(*v)
}

func encodeJSONL(recs []record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // one object per line
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}
