package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/store"
)

// RebuildOptions says where a rebuilt report goes and what it may add.
type RebuildOptions struct {
	// Out is the directory to write; empty rewrites the report in place.
	Out string
	// Samples are store rows (tcgen store export) whose timed passes are
	// given to the results rows they measured: the same graph, plan, GPU,
	// L2 flushing and median. Results files written before they kept the
	// median's interval get it back this way.
	Samples []store.Row
}

// RebuildStats says what a rebuild read.
type RebuildStats struct {
	Rows    int // rows of results.jsonl
	WithCI  int // timed rows with a 95% interval (recorded or from Samples)
	Joined  int // timed rows given their samples from RebuildOptions.Samples
	Timed   int // rows with a time
	Profile int // profile rows kept
}

// Rebuild writes the report of dir again from what an earlier Write left
// there, with no GPU: the rows from results.jsonl, the profile from
// profile.jsonl (or, from reports older than that file, report.md's
// profile table, 4 digits), the title and command from report.md. The
// plots, the tables and the results files are then written as Write writes
// them, so a report made by an older tcgen gets today's plots.
func Rebuild(dir string, opt RebuildOptions) (RebuildStats, error) {
	var st RebuildStats
	resPath := filepath.Join(dir, fileJSONL)
	f, err := os.Open(resPath)
	if err != nil {
		return st, fmt.Errorf("report: %w", err)
	}
	rows, o, err := ReadResults(f, resPath)
	f.Close()
	if err != nil {
		return st, err
	}
	st.Rows = len(rows)
	mdPath := filepath.Join(dir, fileMD)
	md, err := os.ReadFile(mdPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return st, fmt.Errorf("report: %w", err)
	}
	o.Title, o.Command = mdHeading(md)
	if o.Profile, err = readProfile(dir, md, o.Labels); err != nil {
		return st, err
	}
	st.Profile = len(o.Profile)
	st.Joined = joinSamples(rows, o.intervals, opt.Samples)
	m := build(rows, o)
	for c := range m.cols {
		for _, r := range m.cells[c] {
			if timed(r) {
				st.Timed++
				if _, _, ok := m.ci(r); ok {
					st.WithCI++
				}
			}
		}
	}
	out := opt.Out
	if out == "" {
		out = dir
	}
	return st, Write(out, rows, o)
}

// ReadResults parses a results.jsonl (one record a line, as Write writes
// it) into store rows and the options that present them: each plan's
// label, and the preset a "preset:NAME" label stands for. name is the
// file's name for errors.
func ReadResults(r io.Reader, name string) ([]store.Row, Options, error) {
	o := Options{Presets: map[string]string{}, Labels: map[string]string{}, intervals: map[string][2]float64{}}
	var rows []store.Row
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return nil, o, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			row, rerr := parseRecord(b, &o)
			if rerr != nil {
				return nil, o, fmt.Errorf("%s:%d: %w", name, line, rerr)
			}
			rows = append(rows, row)
		}
		if err == io.EOF {
			break
		}
	}
	if len(rows) == 0 {
		return nil, o, fmt.Errorf("%s: no results (an empty file)", name)
	}
	return rows, o, nil
}

// parseRecord turns one line of results.jsonl into a row, noting its
// label, preset and interval in o.
func parseRecord(b []byte, o *Options) (store.Row, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var rec record
	if err := dec.Decode(&rec); err != nil {
		return store.Row{}, fmt.Errorf("not a results record: %v", err)
	}
	if dec.More() {
		return store.Row{}, fmt.Errorf("not a results record: more than one value on the line")
	}
	switch {
	case rec.Plan == "":
		return store.Row{}, fmt.Errorf("a record without a plan")
	case rec.Graph == "" && rec.GraphName == "":
		return store.Row{}, fmt.Errorf("plan %s: a record without a graph", rec.Plan)
	}
	switch rec.Status {
	case store.StatusOK, store.StatusWrong, store.StatusCompile, store.StatusLaunch, store.StatusInvalid, store.StatusTooLarge:
	default:
		return store.Row{}, fmt.Errorf("plan %s: unknown status %q", rec.Plan, rec.Status)
	}
	r := store.Row{
		Graph: rec.Graph, GraphName: rec.GraphName,
		Features: graph.Features{Vertices: rec.Vertices, Edges: rec.Edges, DegreeMax: rec.DegreeMax},
		GPU:      rec.GPUName, GPUName: rec.GPUName, Plan: rec.Plan,
		Status: rec.Status, Reason: rec.Reason, Triangles: rec.Triangles, Reference: rec.Reference,
		Flushed: rec.FlushedL2, Source: "sweep",
	}
	for _, f := range []struct {
		dst *float64
		src *float64
	}{{&r.MedianMs, rec.MedianMs}, {&r.MinMs, rec.MinMs}, {&r.MaxMs, rec.MaxMs}, {&r.KernelMs, rec.KernelMs}} {
		if f.src == nil {
			continue
		}
		if v := *f.src; !(v >= 0) || math.IsInf(v, 0) {
			return store.Row{}, fmt.Errorf("plan %s: time %v is not a duration", rec.Plan, v)
		}
		*f.dst = *f.src
	}
	for _, f := range []struct {
		dst *int
		src *int
	}{{&r.Runs, rec.Runs}, {&r.ClockSMMHz, rec.ClockSMMHz}, {&r.ClockMemMHz, rec.ClockMemMHz}, {&r.TempC, rec.TempC}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	if rec.CILoMs != nil && rec.CIHiMs != nil && *rec.CILoMs > 0 && *rec.CIHiMs >= *rec.CILoMs {
		o.intervals[rowKey(&r)] = [2]float64{*rec.CILoMs, *rec.CIHiMs}
	}
	if rec.Label != "" && rec.Label != rec.Plan {
		o.Labels[rec.Plan] = rec.Label
	}
	if rec.Preset != "" {
		o.Presets[rec.Plan] = rec.Preset
	} else if name, ok := strings.CutPrefix(rec.Label, "preset:"); ok && name != "" {
		o.Presets[rec.Plan] = name // files written before the preset column
	}
	return r, nil
}

// joinSamples gives each timed row without an interval the samples of the
// store row that measured it, and returns how many it gave.
func joinSamples(rows []store.Row, intervals map[string][2]float64, samples []store.Row) int {
	type key struct {
		graph, plan, gpu string
		flushed          bool
	}
	by := map[key][]*store.Row{}
	for i := range samples {
		s := &samples[i]
		if s.Status == store.StatusOK && len(s.Samples) > 0 {
			k := key{s.Graph, s.Plan, s.GPUName, s.Flushed}
			by[k] = append(by[k], s)
		}
	}
	n := 0
	for i := range rows {
		r := &rows[i]
		if _, ok := intervals[rowKey(r)]; ok || !timed(r) {
			continue
		}
		for _, s := range by[key{r.Graph, r.Plan, r.GPUName, r.Flushed}] {
			// The same measurement: a median equal to the last bits JSON
			// keeps (a re-measurement of the plan differs far more).
			if math.Abs(s.MedianMs-r.MedianMs) <= 1e-9*r.MedianMs {
				r.Samples = s.Samples
				n++
				break
			}
		}
	}
	return n
}

// mdHeading is report.md's title (its first "# " line) and the command in
// its first sh block.
func mdHeading(md []byte) (title, command string) {
	lines := strings.Split(string(md), "\n")
	for i, l := range lines {
		if t, ok := strings.CutPrefix(l, "# "); ok && title == "" {
			title = mdUnescape(t)
		}
		if l == "```sh" && command == "" {
			var cmd []string
			for _, c := range lines[i+1:] {
				if c == "```" {
					break
				}
				cmd = append(cmd, c)
			}
			command = strings.Join(cmd, "\n")
		}
	}
	return title, command
}

// readProfile is the profile of dir: profile.jsonl, else report.md's
// table; nil when neither has one.
func readProfile(dir string, md []byte, labels map[string]string) ([]ProfileRow, error) {
	path := filepath.Join(dir, fileProfileJSONL)
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		return parseProfileJSONL(data, path)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("report: %w", err)
	}
	return parseProfileTable(md, filepath.Join(dir, fileMD), labels)
}

func parseProfileJSONL(data []byte, name string) ([]ProfileRow, error) {
	var out []ProfileRow
	for i, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		var pr ProfileRow
		if err := dec.Decode(&pr); err != nil {
			return nil, fmt.Errorf("%s:%d: not a profile row: %v", name, i+1, err)
		}
		if pr.Plan == "" {
			return nil, fmt.Errorf("%s:%d: a profile row without a plan", name, i+1)
		}
		out = append(out, pr)
	}
	return out, nil
}

// parseProfileTable reads the "Profile (ncu)" table of report.md: a graph,
// a plan's label and one column per metric. labels maps plan names to
// labels; a label two plans share cannot be read back.
func parseProfileTable(md []byte, name string, labels map[string]string) ([]ProfileRow, error) {
	lines := strings.Split(string(md), "\n")
	start := -1
	for i, l := range lines {
		if l == "## Profile (ncu)" {
			start = i
		}
	}
	if start < 0 {
		return nil, nil
	}
	byLabel := map[string][]string{}
	for plan, l := range labels {
		byLabel[l] = append(byLabel[l], plan)
	}
	var metrics []string
	var out []ProfileRow
	for i := start + 1; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "|") {
			if len(metrics) > 0 {
				break
			}
			continue
		}
		cells := splitRow(l)
		switch {
		case metrics == nil:
			if len(cells) < 3 || cells[0] != "graph" || cells[1] != "plan" {
				return nil, fmt.Errorf("%s:%d: the profile table's header is not graph | plan | metrics", name, i+1)
			}
			for _, c := range cells[2:] {
				metrics = append(metrics, strings.Trim(c, "`"))
			}
			continue
		case strings.HasPrefix(cells[0], "---"):
			continue
		case len(cells) != len(metrics)+2:
			return nil, fmt.Errorf("%s:%d: %d cells, the profile table has %d columns", name, i+1, len(cells), len(metrics)+2)
		}
		plan := cells[1]
		if ps := byLabel[plan]; len(ps) == 1 {
			plan = ps[0]
		} else if len(ps) > 1 {
			return nil, fmt.Errorf("%s:%d: label %q names %d plans", name, i+1, plan, len(ps))
		}
		pr := ProfileRow{GraphName: cells[0], Plan: plan, Metrics: map[string]float64{}}
		for k, c := range cells[2:] {
			if c == missing {
				continue
			}
			v, err := strconv.ParseFloat(c, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: metric %s: %q is not a number", name, i+1, metrics[k], c)
			}
			pr.Metrics[metrics[k]] = v
		}
		out = append(out, pr)
	}
	return out, nil
}

// splitRow splits a markdown table row at its unescaped bars and
// unescapes each cell.
func splitRow(l string) []string {
	l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(l); i++ {
		switch {
		case l[i] == '\\' && i+1 < len(l):
			cur.WriteByte(l[i])
			cur.WriteByte(l[i+1])
			i++
		case l[i] == '|':
			cells = append(cells, mdUnescape(strings.TrimSpace(cur.String())))
			cur.Reset()
		default:
			cur.WriteByte(l[i])
		}
	}
	return append(cells, mdUnescape(strings.TrimSpace(cur.String())))
}

// mdUnescape undoes mdText.
var mdUnescape = strings.NewReplacer(`\|`, "|", `\*`, "*", "\\`", "`", "&lt;", "<", "&gt;", ">").Replace
