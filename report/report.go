// Package report writes what `tcgen sweep` and `tcgen bench` measured, for
// people and for other tools: results.csv and results.jsonl (one row per
// graph and plan), report.md (winners, speedups over the presets, every time
// and every failure) and SVG plots of the same numbers.
package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/store"
)

// Options says how to present the rows.
type Options struct {
	Title   string            // report heading
	Presets map[string]string // plan name -> preset name, for "speedup over each preset"
	Labels  map[string]string // plan name -> short label for plots/tables (default: the plan name)
	Command string            // the command that produced the sweep, printed in the report
	Profile []ProfileRow      // optional ncu metrics (may be empty)
	// ProfileMetric is the metric profile.svg plots; empty picks achieved
	// DRAM throughput when present, else the metric most rows have.
	ProfileMetric string

	// intervals are the medians' 95% intervals of rows read back from a
	// results file (Rebuild), which keeps the interval but not the samples;
	// keyed by rowKey.
	intervals map[string][2]float64
}

// ProfileRow is one profiled point: the metrics ncu reported for one plan
// on one graph.
type ProfileRow struct {
	GraphName string             `json:"graph_name"`
	Plan      string             `json:"plan"`
	Metrics   map[string]float64 `json:"metrics"` // metric name -> value
}

// File names Write produces; the plots are written only when they have
// something to show.
const (
	fileCSV     = "results.csv"
	fileJSONL   = "results.jsonl"
	fileMD      = "report.md"
	fileTimes   = "times.svg"
	fileHeatmap = "heatmap.svg"
	fileSize    = "size.svg"
	fileRate    = "rate.svg"
	fileBW      = "bandwidth.svg"
	fileSpeedup = "speedup.svg"
	fileProfile = "profile.svg"
	// Written only when there are profile rows, so a rebuilt report keeps
	// them (report.md's table rounds them to 4 digits).
	fileProfileJSONL = "profile.jsonl"
)

// ratioCap bounds a plan's time relative to the best plan of a graph: beyond
// it the exact factor no longer matters, and a failed plan counts as this
// slow when plans are ranked.
const ratioCap = 100.0

// Write creates dir and writes the report files into it. Each file is
// written to a temporary file in dir and renamed, so an interrupted run
// leaves the previous file or the new one, never half of one. A plot with
// nothing to show (no timed row) is not written, and a stale one from an
// earlier report in dir is removed so report.md never sits next to it.
func Write(dir string, rows []store.Row, opt Options) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("report: %s: %w", dir, err)
	}
	m := build(rows, opt)

	recs := m.records()
	data, err := encodeCSV(recs)
	if err != nil {
		return fmt.Errorf("report: %s: %w", filepath.Join(dir, fileCSV), err)
	}
	if err := writeAtomic(dir, fileCSV, data); err != nil {
		return err
	}
	data, err = encodeJSONL(recs)
	if err != nil {
		return fmt.Errorf("report: %s: %w", filepath.Join(dir, fileJSONL), err)
	}
	if err := writeAtomic(dir, fileJSONL, data); err != nil {
		return err
	}
	if err := writeProfile(dir, m.profileRows()); err != nil {
		return err
	}

	plots := []struct {
		name string
		fn   func() ([]byte, error) // nil data: nothing to plot
	}{
		{fileTimes, m.timesSVG},
		{fileHeatmap, m.heatmapSVG},
		{fileSize, m.sizeSVG},
		{fileRate, m.rateSVG},
		{fileBW, m.bandwidthSVG},
		{fileSpeedup, m.speedupSVG},
		{fileProfile, m.profileSVG},
	}
	written := map[string]bool{}
	for _, p := range plots {
		path := filepath.Join(dir, p.name)
		data, err := renderSafely(p.fn)
		if err != nil {
			return fmt.Errorf("report: %s: %w", path, err)
		}
		if data == nil {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("report: %s: %w", path, err)
			}
			continue
		}
		if err := writeAtomic(dir, p.name, data); err != nil {
			return err
		}
		written[p.name] = true
	}

	// report.md last: it links the plots, which exist by now.
	return writeAtomic(dir, fileMD, m.markdown(written))
}

// writeProfile writes the profile rows as JSON Lines, or removes a stale
// file when there are none.
func writeProfile(dir string, prof []ProfileRow) error {
	path := filepath.Join(dir, fileProfileJSONL)
	if len(prof) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("report: %s: %w", path, err)
		}
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // one row per line; map keys sorted
	for _, pr := range prof {
		finite := ProfileRow{GraphName: pr.GraphName, Plan: pr.Plan, Metrics: map[string]float64{}}
		for k, v := range pr.Metrics {
			if !math.IsNaN(v) && !math.IsInf(v, 0) { // JSON has no NaN
				finite.Metrics[k] = v
			}
		}
		if err := enc.Encode(finite); err != nil {
			return fmt.Errorf("report: %s: %w", path, err)
		}
	}
	return writeAtomic(dir, fileProfileJSONL, b.Bytes())
}

// renderSafely runs a plot function, turning a panic inside gonum/plot
// (it panics on ranges it cannot draw) into an error instead of taking the
// sweep down after its measurements were made.
func renderSafely(fn func() ([]byte, error)) (data []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			data, err = nil, fmt.Errorf("plot: %v", r)
		}
	}()
	return fn()
}

// writeAtomic writes data to dir/name through a temporary file and rename.
func writeAtomic(dir, name string, data []byte) error {
	path := filepath.Join(dir, name)
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return fmt.Errorf("report: %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644) // CreateTemp's 0600 is meant for secrets
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("report: %s: %w", path, err)
	}
	return nil
}

// column is one graph on one GPU: a column of the plan x graph table.
type column struct {
	graph string // fingerprint (or the name, for rows without one)
	name  string // GraphName
	gpu   string // GPUName
	feat  graph.Features
	label string // name, made unique; with the GPU when there are several
}

// model is the rows arranged as a plan x column table, with the per-column
// winners and the ranking every table and plot shares.
type model struct {
	opt   Options
	cols  []column
	plans []string       // plan names, sorted
	cells [][]*store.Row // [column][plan]; nil: not measured
	gpus  []string       // GPU names, sorted
	best  []int          // per column: the fastest timed plan, -1 if none
	score []float64      // per plan: geometric mean of its capped ratios
	rank  []int          // plan indices, best score first
	// plotLabels are the plans' names in plots, one per plan, all
	// different (legendLabel).
	plotLabels []string
}

// timed reports whether r carries a usable time.
func timed(r *store.Row) bool {
	return r != nil && r.Status == store.StatusOK && r.MedianMs > 0
}

func build(rows []store.Row, opt Options) *model {
	m := &model{opt: opt}
	colIdx := map[string]int{}
	planSet := map[string]bool{}
	gpuSet := map[string]bool{}
	for i := range rows {
		r := &rows[i]
		key := colKey(r)
		if _, ok := colIdx[key]; !ok {
			colIdx[key] = len(m.cols)
			m.cols = append(m.cols, column{graph: graphKey(r), name: r.GraphName, gpu: r.GPUName, feat: r.Features})
		}
		planSet[r.Plan] = true
		gpuSet[r.GPUName] = true
	}
	slices.SortStableFunc(m.cols, func(a, b column) int {
		return cmp.Or(cmp.Compare(a.feat.Edges, b.feat.Edges), cmp.Compare(a.name, b.name),
			cmp.Compare(a.graph, b.graph), cmp.Compare(a.gpu, b.gpu))
	})
	for i, c := range m.cols {
		colIdx[c.graph+"\x00"+c.gpu] = i
	}
	for p := range planSet {
		m.plans = append(m.plans, p)
	}
	slices.Sort(m.plans)
	for g := range gpuSet {
		m.gpus = append(m.gpus, g)
	}
	slices.Sort(m.gpus)
	planIdx := map[string]int{}
	for i, p := range m.plans {
		planIdx[p] = i
	}

	m.cells = make([][]*store.Row, len(m.cols))
	for i := range m.cells {
		m.cells[i] = make([]*store.Row, len(m.plans))
	}
	for i := range rows {
		r := &rows[i]
		cell := &m.cells[colIdx[colKey(r)]][planIdx[r.Plan]]
		// The same key measured twice (two tcgen versions): the newer wins,
		// as it does in the store.
		if *cell == nil || !r.Time.Before((*cell).Time) {
			*cell = r
		}
	}
	m.labelColumns()
	m.setPlotLabels()

	m.best = make([]int, len(m.cols))
	for c := range m.cols {
		m.best[c] = -1
		for p, r := range m.cells[c] {
			if timed(r) && (m.best[c] < 0 || r.MedianMs < m.cells[c][m.best[c]].MedianMs) {
				m.best[c] = p
			}
		}
	}

	// Rank by the geometric mean of the capped ratio to each graph's best,
	// a failure or a missing measurement counting as the cap: one number
	// that neither a single large graph nor failing on hard graphs games.
	m.score = make([]float64, len(m.plans))
	for p := range m.plans {
		var sum float64
		n := 0
		for c := range m.cols {
			if m.best[c] < 0 {
				continue // nothing ran here: no plan is better or worse
			}
			r := m.ratio(c, p)
			if math.IsNaN(r) || r > ratioCap {
				r = ratioCap
			}
			sum += math.Log(r)
			n++
		}
		m.score[p] = ratioCap
		if n > 0 {
			m.score[p] = math.Exp(sum / float64(n))
		}
	}
	m.rank = make([]int, len(m.plans))
	for i := range m.rank {
		m.rank[i] = i
	}
	slices.SortStableFunc(m.rank, func(a, b int) int {
		return cmp.Or(cmp.Compare(m.score[a], m.score[b]), cmp.Compare(m.plans[a], m.plans[b]))
	})
	return m
}

func graphKey(r *store.Row) string {
	if r.Graph != "" {
		return r.Graph
	}
	return "name:" + r.GraphName
}

func colKey(r *store.Row) string { return graphKey(r) + "\x00" + r.GPUName }

// rowKey names one cell: a plan on a graph on a GPU.
func rowKey(r *store.Row) string { return colKey(r) + "\x00" + r.Plan }

// ci is the 95% interval of r's median: from its samples, else as a
// results file recorded it; ok is false when r has neither (rows measured
// before tcgen kept the interval).
func (m *model) ci(r *store.Row) (lo, hi float64, ok bool) {
	if !timed(r) {
		return 0, 0, false
	}
	if len(r.Samples) > 0 {
		lo, hi = executor.MedianCI(r.Samples)
		return lo, hi, hi > 0
	}
	iv, ok := m.opt.intervals[rowKey(r)]
	return iv[0], iv[1], ok && iv[1] > 0
}

// labelColumns names each column by its graph, adding the GPU when the rows
// come from several and a fingerprint prefix when two graphs share a name.
func (m *model) labelColumns() {
	count := map[string]int{}
	for i := range m.cols {
		c := &m.cols[i]
		c.label = c.name
		if c.label == "" {
			c.label = shortHash(c.graph)
		}
		if len(m.gpus) > 1 {
			c.label += " @ " + c.gpu
		}
		count[c.label]++
	}
	for i := range m.cols {
		c := &m.cols[i]
		if count[c.label] > 1 {
			c.label += " [" + shortHash(c.graph) + "]"
		}
	}
}

func shortHash(s string) string {
	s = strings.TrimPrefix(s, "name:")
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// ratio is plan p's time on column c over the column's best time; NaN when
// either has no time.
func (m *model) ratio(c, p int) float64 {
	r := m.cells[c][p]
	if !timed(r) || m.best[c] < 0 {
		return math.NaN()
	}
	return r.MedianMs / m.cells[c][m.best[c]].MedianMs
}

// label is the plan's short name for tables and plots.
func (m *model) label(p int) string {
	if l := m.opt.Labels[m.plans[p]]; l != "" {
		return l
	}
	return m.plans[p]
}

// preset is the preset the plan stands for, "" for a searched plan.
func (m *model) preset(p int) string { return m.opt.Presets[m.plans[p]] }

// legendLabel is the plan's name in plots: its label with the preset named
// (unless the label already says it), and where two plans would read the
// same (each graph's tuned plan is "tuned: default"), the plan name's hash.
func (m *model) legendLabel(p int) string { return m.plotLabels[p] }

// setPlotLabels fills plotLabels.
func (m *model) setPlotLabels() {
	m.plotLabels = make([]string, len(m.plans))
	count := map[string]int{}
	for p := range m.plans {
		l := m.label(p)
		if ps := m.preset(p); ps != "" && ps != l && l != "preset:"+ps {
			l += " (preset " + ps + ")"
		}
		m.plotLabels[p] = l
		count[l]++
	}
	for p, l := range m.plotLabels {
		if count[l] > 1 {
			name := m.plans[p]
			m.plotLabels[p] = l + " [" + name[strings.LastIndexByte(name, '_')+1:] + "]"
		}
	}
}

// presetPlans are the plans that are presets and were measured, ordered by
// preset name.
func (m *model) presetPlans() []int {
	var ps []int
	for p := range m.plans {
		if m.preset(p) != "" {
			ps = append(ps, p)
		}
	}
	slices.SortStableFunc(ps, func(a, b int) int {
		return cmp.Or(cmp.Compare(m.preset(a), m.preset(b)), cmp.Compare(m.plans[a], m.plans[b]))
	})
	return ps
}

// selectPlans is the n best-ranked plans plus every preset, in rank order:
// the plans a plot can show without becoming a wall of colours.
func (m *model) selectPlans(n int) []int {
	var sel []int
	for i, p := range m.rank {
		if i < n || m.preset(p) != "" {
			sel = append(sel, p)
		}
	}
	return sel
}

// anyTimed reports whether at least one row has a time.
func (m *model) anyTimed() bool {
	return slices.ContainsFunc(m.best, func(b int) bool { return b >= 0 })
}
