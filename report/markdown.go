package report

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tcgen/tcgen/store"
)

// missing marks a cell with no measurement.
const missing = "—"

// markdown renders report.md. It holds no timestamp or other varying text,
// so the same rows give the same bytes (the golden test relies on it).
func (m *model) markdown(plots map[string]bool) []byte {
	var b bytes.Buffer
	title := m.opt.Title
	if title == "" {
		title = "tcgen sweep"
	}
	fmt.Fprintf(&b, "# %s\n\n", mdText(title))
	if m.opt.Command != "" {
		fmt.Fprintf(&b, "```sh\n%s\n```\n\n", m.opt.Command)
	}
	m.mdGPUs(&b)

	nTimed, nFailed, nMissing := 0, 0, 0
	for c := range m.cols {
		for _, r := range m.cells[c] {
			switch {
			case r == nil:
				nMissing++
			case timed(r):
				nTimed++
			default:
				nFailed++
			}
		}
	}
	fmt.Fprintf(&b, "%d graphs, %d plans: %d timed, %d failed", len(m.cols), len(m.plans), nTimed, nFailed)
	if nMissing > 0 {
		fmt.Fprintf(&b, ", %d not measured", nMissing)
	}
	fmt.Fprintf(&b, ". Times are the median GPU pass time in ms (4 significant digits), %s; "+
		"every measurement, with the 95%% confidence interval of its median, is in [results.csv](results.csv) and [results.jsonl](results.jsonl).\n\n", m.flushText())
	if len(m.cols) == 0 {
		return b.Bytes()
	}

	m.mdWinners(&b)
	m.mdPlots(&b, plots)
	m.mdTimes(&b)
	m.mdFailures(&b)
	m.mdProfile(&b)
	return b.Bytes()
}

// flushText says whether the timed rows flushed the L2 before each pass.
func (m *model) flushText() string {
	timedRows, flushed := 0, 0
	for c := range m.cols {
		for _, r := range m.cells[c] {
			if r != nil && timed(r) {
				timedRows++
				if r.Flushed {
					flushed++
				}
			}
		}
	}
	switch {
	case flushed == 0:
		return "the L2 not flushed between passes"
	case flushed == timedRows:
		return "the L2 flushed before each pass"
	}
	return fmt.Sprintf("the L2 flushed before each pass in %d of %d measurements", flushed, timedRows)
}

// mdGPUs names the GPUs with the range of clocks and temperatures read
// while timing, so throttling shows.
func (m *model) mdGPUs(b *bytes.Buffer) {
	for _, g := range m.gpus {
		var sm, mem, temp span
		for c := range m.cols {
			for _, r := range m.cells[c] {
				if timed(r) && r.GPUName == g {
					sm.add(r.ClockSMMHz)
					mem.add(r.ClockMemMHz)
					temp.add(r.TempC)
				}
			}
		}
		name := g
		if name == "" {
			name = "unknown GPU"
		}
		var parts []string
		if s := sm.String(); s != "" {
			parts = append(parts, "SM clock "+s+" MHz")
		}
		if s := mem.String(); s != "" {
			parts = append(parts, "memory clock "+s+" MHz")
		}
		if s := temp.String(); s != "" {
			parts = append(parts, s+" °C")
		}
		fmt.Fprintf(b, "GPU: **%s**", mdText(name))
		if len(parts) > 0 {
			fmt.Fprintf(b, " (%s while timing)", strings.Join(parts, ", "))
		}
		b.WriteString("\n\n")
	}
}

// span is the range of positive readings (0 means NVML had none).
type span struct{ lo, hi int }

func (s *span) add(v int) {
	if v <= 0 {
		return
	}
	if s.lo == 0 || v < s.lo {
		s.lo = v
	}
	s.hi = max(s.hi, v)
}

func (s span) String() string {
	switch {
	case s.lo == 0:
		return ""
	case s.lo == s.hi:
		return strconv.Itoa(s.lo)
	}
	return fmt.Sprintf("%d–%d", s.lo, s.hi)
}

// mdWinners is one line per graph: the fastest plan, and how much faster it
// is than each preset.
func (m *model) mdWinners(b *bytes.Buffer) {
	b.WriteString("## Winners\n\n")
	presets := m.presetPlans()
	head := []string{"graph", "vertices", "edges", "winner", "ms"}
	for _, p := range presets {
		head = append(head, m.preset(p)+" ms", "speedup over "+m.preset(p))
	}
	mdRow(b, head...)
	right := []int{1, 2}
	for i := 4; i < len(head); i++ {
		right = append(right, i)
	}
	mdRule(b, len(head), right...)
	for c, col := range m.cols {
		row := []string{mdText(col.label), thousands(col.feat.Vertices), thousands(col.feat.Edges)}
		w := m.best[c]
		if w < 0 {
			row = append(row, "none ran", missing)
		} else {
			row = append(row, "**"+mdText(m.label(w))+"**", sig4(m.cells[c][w].MedianMs))
		}
		for _, p := range presets {
			row = append(row, m.cellText(c, p, false))
			if r := m.ratio(c, p); !math.IsNaN(r) {
				row = append(row, speedup(r))
			} else {
				row = append(row, missing)
			}
		}
		mdRow(b, row...)
	}
	b.WriteString("\n")
	if len(presets) > 0 {
		b.WriteString("Speedup is the preset's time over the winner's.\n\n")
	}
}

func (m *model) mdPlots(b *bytes.Buffer, plots map[string]bool) {
	items := []struct{ file, alt, what string }{
		{fileTimes, "GPU pass time per plan and graph", "time per plan and graph (log scale)"},
		{fileHeatmap, "time relative to the best plan of each graph", "every plan's time over the best plan's, per graph"},
		{fileSize, "GPU pass time against graph size", "time against graph size (log-log)"},
		{fileRate, "edges per second against graph size", "edges per second against graph size (log-log)"},
		{fileBW, "effective DRAM bandwidth against graph size", "the oriented graph's bytes over the pass time against graph size, under each GPU's datasheet peak"},
		{fileSpeedup, "speedup over the fastest preset", "per graph, the fastest preset's time over the fastest other plan's"},
		{fileProfile, "profiled metric per plan and graph", "one ncu metric per profiled point"},
	}
	var any bool
	for _, it := range items {
		any = any || plots[it.file]
	}
	if !any {
		return
	}
	b.WriteString("## Plots\n\n")
	for _, it := range items {
		if plots[it.file] {
			fmt.Fprintf(b, "- [%s](%s): %s\n", it.file, it.file, it.what)
		}
	}
	b.WriteString("\n")
	for _, it := range items {
		if plots[it.file] {
			fmt.Fprintf(b, "![%s](%s)\n\n", it.alt, it.file)
		}
	}
}

// mdTimes is the plan x graph table, plans in rank order.
func (m *model) mdTimes(b *bytes.Buffer) {
	b.WriteString("## Time per plan (ms)\n\n")
	fmt.Fprintf(b, "Plans ordered by the geometric mean of their time over each graph's best "+
		"(a failure counts as %g×); the fastest plan of each graph is bold.\n\n", ratioCap)
	head := []string{"plan", "preset"}
	for _, c := range m.cols {
		head = append(head, mdText(c.label))
	}
	head = append(head, "× best (geo-mean)")
	mdRow(b, head...)
	right := []int{}
	for i := 2; i < len(head); i++ {
		right = append(right, i)
	}
	mdRule(b, len(head), right...)
	for _, p := range m.rank {
		name := mdText(m.label(p))
		if m.label(p) != m.plans[p] {
			name += " (`" + m.plans[p] + "`)"
		}
		preset := m.preset(p)
		if preset == "" {
			preset = missing
		}
		row := []string{name, mdText(preset)}
		for c := range m.cols {
			row = append(row, m.cellText(c, p, true))
		}
		row = append(row, fmt.Sprintf("%.2f", m.score[p]))
		mdRow(b, row...)
	}
	b.WriteString("\n")
}

// cellText is a cell's time, its failure status in italics, or a dash.
func (m *model) cellText(c, p int, boldBest bool) string {
	r := m.cells[c][p]
	switch {
	case r == nil:
		return missing
	case !timed(r):
		return "*" + string(r.Status) + "*"
	case boldBest && m.best[c] == p:
		return "**" + sig4(r.MedianMs) + "**"
	}
	return sig4(r.MedianMs)
}

func (m *model) mdFailures(b *bytes.Buffer) {
	var lines []string
	for c, col := range m.cols {
		for p, r := range m.cells[c] {
			if r == nil || timed(r) {
				continue
			}
			reason := r.Reason
			if r.Status == store.StatusOK {
				reason = "no time recorded"
			}
			if r.Status == store.StatusWrong && reason == "" {
				reason = fmt.Sprintf("counted %d triangles, expected %d", r.Triangles, r.Reference)
			}
			line := fmt.Sprintf("- %s / %s: **%s**", mdText(col.label), mdText(m.label(p)), r.Status)
			if reason != "" {
				line += ": " + mdText(oneLine(reason))
			}
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("## Failures\n\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	b.WriteString("\n")
}

// mdProfile lists the ncu metrics, one row per profiled point.
func (m *model) mdProfile(b *bytes.Buffer) {
	prof := m.profileRows()
	if len(prof) == 0 {
		return
	}
	var metrics []string
	seen := map[string]bool{}
	for _, pr := range prof {
		for k := range pr.Metrics {
			if !seen[k] {
				seen[k] = true
				metrics = append(metrics, k)
			}
		}
	}
	slices.Sort(metrics)
	b.WriteString("## Profile (ncu)\n\n")
	head := append([]string{"graph", "plan"}, metrics...)
	for i := 2; i < len(head); i++ {
		head[i] = "`" + head[i] + "`"
	}
	mdRow(b, head...)
	right := []int{}
	for i := 2; i < len(head); i++ {
		right = append(right, i)
	}
	mdRule(b, len(head), right...)
	for _, pr := range prof {
		row := []string{mdText(pr.GraphName), mdText(m.planLabel(pr.Plan))}
		for _, k := range metrics {
			if v, ok := pr.Metrics[k]; ok {
				row = append(row, metricText(v))
			} else {
				row = append(row, missing)
			}
		}
		mdRow(b, row...)
	}
	b.WriteString("\n")
}

// profileRows are Options.Profile ordered like the columns (by edges), then
// by plan label; graphs without a measurement come last, by name.
func (m *model) profileRows() []ProfileRow {
	order := map[string]int{}
	for i, c := range m.cols {
		if _, ok := order[c.name]; !ok {
			order[c.name] = i
		}
	}
	pos := func(g string) int {
		if i, ok := order[g]; ok {
			return i
		}
		return len(m.cols)
	}
	prof := slices.Clone(m.opt.Profile)
	slices.SortStableFunc(prof, func(a, b ProfileRow) int {
		return cmp.Or(cmp.Compare(pos(a.GraphName), pos(b.GraphName)), cmp.Compare(a.GraphName, b.GraphName),
			cmp.Compare(m.planLabel(a.Plan), m.planLabel(b.Plan)), cmp.Compare(a.Plan, b.Plan))
	})
	return prof
}

// planLabel is label for a plan name that may not be among the rows.
func (m *model) planLabel(plan string) string {
	if l := m.opt.Labels[plan]; l != "" {
		return l
	}
	return plan
}

func mdRow(b *bytes.Buffer, cells ...string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// mdRule is the header rule; the listed columns are right-aligned (numbers).
func mdRule(b *bytes.Buffer, n int, right ...int) {
	cells := make([]string, n)
	for i := range cells {
		cells[i] = "---"
		if slices.Contains(right, i) {
			cells[i] = "--:"
		}
	}
	mdRow(b, cells...)
}

// mdText escapes what would break a table cell or turn into markup.
// Underscores stay: plan names are full of them, and GitHub does not
// emphasise inside a word.
var mdReplacer = strings.NewReplacer("|", `\|`, "*", `\*`, "`", "\\`", "<", "&lt;", ">", "&gt;")

func mdText(s string) string { return mdReplacer.Replace(s) }

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// sig4 formats v with 4 significant digits and no exponent: 0.01235, 1.235,
// 1235, 12350.
func sig4(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	e := strconv.FormatFloat(v, 'e', 3, 64) // rounds first, so 9.9996 -> 1.000e+01
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	rounded, _ := strconv.ParseFloat(e, 64)
	return strconv.FormatFloat(rounded, 'f', max(0, 3-exp), 64)
}

// metricText is a metric value: sig4 in the usual range, an exponent for
// byte counts and rates that would otherwise print ten digits.
func metricText(v float64) string {
	if a := math.Abs(v); a != 0 && (a >= 1e6 || a < 1e-3) {
		return strconv.FormatFloat(v, 'e', 3, 64)
	}
	return sig4(v)
}

func speedup(r float64) string { return fmt.Sprintf("%.2f×", r) }

// thousands writes n with comma separators: 1,234,567.
func thousands(n uint64) string {
	s := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, d := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}
