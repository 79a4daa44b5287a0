package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// speedupGoal is the factor by which tcgen's default plan should beat the
// fastest exact peer; the plot marks it and the summary counts the graphs
// that reach it.
const speedupGoal = 1.5

// minPeerMs: below 0.1 ms a count is mostly launch and timer overhead (the
// peers time with host clocks or one event pair), so the goal is counted
// only on graphs where the best peer takes at least this long.
const minPeerMs = 0.1

type row struct {
	g       graphInfo
	tcgen   string  // tcgen_ms cell: a time, "missing" (no row) or "failed" (no time)
	tcgenMs float64 // NaN: no time
	exact   string  // yes or no; "-" without a default-plan row
	best    string  // fastest exact peer; "none" when none is, "missing" without peer rows
	bestMs  float64 // NaN without one
	ratio   float64 // bestMs / tcgenMs; NaN unless both are timed and tcgen is exact
	cells   []string
	device  string
}

type comparison struct {
	rows     []row
	peers    []string
	inexact  []string // tcgen counts that differ from the corpus
	devMixed []string // graphs timed on more than one GPU
}

func compare(in *inputs) *comparison {
	c := &comparison{peers: in.peerOrder}
	want := map[string]uint64{}
	for _, g := range in.corpus {
		want[g.name] = g.triangles
	}
	def := map[string]tcgenRow{}
	for _, x := range in.tcgen {
		tri, ok := want[x.graph]
		switch {
		case !ok: // not in the corpus: ignored
		case x.hasTri && x.tri != tri:
			c.inexact = append(c.inexact, fmt.Sprintf("%s: plan %s (%s) counts %d triangles, the corpus says %d (%s)",
				x.graph, x.plan, x.source, x.tri, tri, x.at))
		case !x.hasTri && x.source == "default":
			c.inexact = append(c.inexact, fmt.Sprintf("%s: the default plan %s gave no count (%s)", x.graph, x.plan, x.at))
		}
		if x.source == "default" {
			def[x.graph] = x
		}
	}
	for _, g := range in.corpus {
		c.rows = append(c.rows, c.row(g, def, in.peers[g.name]))
	}
	return c
}

func (c *comparison) row(g graphInfo, def map[string]tcgenRow, peers map[string]peerRow) row {
	nan := math.NaN()
	r := row{g: g, tcgen: "missing", tcgenMs: nan, exact: "-", best: "none", bestMs: nan, ratio: nan}
	var devs []string
	if x, ok := def[g.name]; ok {
		r.exact, r.tcgen = "no", "failed"
		if x.hasTri && x.tri == g.triangles {
			r.exact = "yes"
		}
		if !math.IsNaN(x.ms) {
			r.tcgen, r.tcgenMs = fmtMs(x.ms), x.ms
		}
		devs = append(devs, x.device)
	}
	if len(peers) == 0 {
		r.best = "missing"
	}
	for _, p := range c.peers {
		x, ok := peers[p]
		if !ok {
			r.cells = append(r.cells, "missing")
			continue
		}
		ms, cell := peerCell(x, g.triangles)
		r.cells = append(r.cells, cell)
		// Strictly faster: on a tie the peer listed first stays.
		if !math.IsNaN(ms) && !(ms >= r.bestMs) {
			r.best, r.bestMs = p, ms
		}
		devs = append(devs, x.device)
	}
	if r.exact == "yes" {
		r.ratio = r.bestMs / r.tcgenMs
	}
	devs = slices.DeleteFunc(devs, func(d string) bool { return d == "" })
	slices.Sort(devs)
	devs = slices.Compact(devs)
	r.device = strings.Join(devs, " / ")
	if len(devs) > 1 {
		c.devMixed = append(c.devMixed, g.name)
	} else if len(devs) == 0 {
		r.device = "-"
	}
	return r
}

// peerCell is a peer's time on a graph, or NaN and a word for why it has
// none. A count is exact only when it equals the corpus's, whatever the
// peer's own reference was.
func peerCell(x peerRow, want uint64) (float64, string) {
	exact := x.exact && x.hasTri && x.tri == want
	switch {
	case exact && !math.IsNaN(x.ms):
		return x.ms, fmtMs(x.ms)
	case exact:
		return math.NaN(), "untimed"
	case strings.Contains(x.note, "timeout"):
		return math.NaN(), "timeout"
	case strings.Contains(x.note, "skipped") || strings.Contains(x.note, "not built"):
		return math.NaN(), "skipped"
	case x.hasTri:
		return math.NaN(), "wrong"
	}
	return math.NaN(), "crash"
}

func (c *comparison) tsv() []byte {
	var b strings.Builder
	head := []string{"graph", "family", "vertices", "edges", "triangles", "tcgen_ms", "tcgen_exact",
		"best_peer", "best_peer_ms", "ratio"}
	b.WriteString(strings.Join(append(append(head, c.peers...), "device"), "\t") + "\n")
	for _, r := range c.rows {
		bestMs, ratio := "-", "-"
		if !math.IsNaN(r.bestMs) {
			bestMs = fmtMs(r.bestMs)
		}
		if !math.IsNaN(r.ratio) {
			ratio = fmtRatio(r.ratio)
		}
		f := []string{r.g.name, r.g.family, fmt.Sprint(r.g.vertices), fmt.Sprint(r.g.edges),
			fmt.Sprint(r.g.triangles), r.tcgen, r.exact, r.best, bestMs, ratio}
		b.WriteString(strings.Join(append(append(f, r.cells...), r.device), "\t") + "\n")
	}
	for _, l := range c.summary() {
		b.WriteString(l + "\n")
	}
	return []byte(b.String())
}

// summary is the comment lines that end OUT.tsv (and go to stdout).
func (c *comparison) summary() []string {
	var ratios []float64
	var slower []string
	goal, over := 0, 0
	for _, r := range c.rows {
		if math.IsNaN(r.ratio) {
			continue
		}
		ratios = append(ratios, r.ratio)
		if r.bestMs >= minPeerMs {
			over++
			if r.ratio >= speedupGoal {
				goal++
			}
		}
		if r.ratio < 1 {
			slower = append(slower, fmt.Sprintf("%s (%s)", r.g.name, fmtRatio(r.ratio)))
		}
	}
	s := []string{"# no graph has both an exact tcgen time and an exact peer time"}
	if len(ratios) > 0 {
		s[0] = fmt.Sprintf("# geometric mean of best_peer_ms / tcgen_ms over the %d of %d graphs with both: %s",
			len(ratios), len(c.rows), fmtRatio(geomean(ratios)))
	}
	s = append(s, fmt.Sprintf("# tcgen at least %gx faster than the best peer on %d of %d graphs where the best peer takes >= %g ms",
		speedupGoal, goal, over, minPeerMs))
	if len(slower) == 0 {
		slower = []string{"no graph"}
	}
	s = append(s, "# tcgen slower than the best peer on: "+strings.Join(slower, ", "))
	if len(c.devMixed) > 0 {
		s = append(s, "# WARNING: timed on more than one GPU: "+strings.Join(c.devMixed, ", "))
	}
	for _, m := range c.inexact {
		s = append(s, "# !!! INEXACT TCGEN COUNT: "+m)
	}
	return s
}
