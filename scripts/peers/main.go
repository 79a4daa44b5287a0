// Command peers sets tcgen's default plan beside the fastest exact published
// GPU triangle counter (the peers, timed by ../shared/peerbench) on each
// graph of a corpus. It writes OUT.tsv (a row per graph, summary lines at the
// end) and OUT.svg (best peer's time / tcgen's, a bar per graph). tcgen's
// time is gpu_ms, the whole GPU pass with its device-side preparation, which
// the peers' own timers mostly leave out (as in docs/performance.md):
//
//	go run ./scripts/peers --corpus examples/corpus.tsv --tcgen tcgen.tsv \
//	    --peers peers-a.tsv peers-b.tsv --out results/peers --date 2026-11-27
package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Exit codes, as cmd/tcgen's: 3 bad input, 4 a count that differs from the
// reference (outputs are still written: the shouted line is the finding).
const (
	exitInternal = 1
	exitUsage    = 2
	exitBadInput = 3
	exitMismatch = 4
)

const usage = `usage: go run ./scripts/peers --corpus FILE --tcgen FILE... --peers FILE... --out PREFIX --date YYYY-MM-DD
Writes PREFIX.tsv and PREFIX.svg. A list flag takes every argument up to the next flag.
Exit codes: 0 ok; 1 internal error; 2 usage; 3 bad input; 4 a tcgen count differs from the corpus.
`

var errHelp = errors.New("help")

type options struct {
	corpus, out, date string
	tcgen, peers      []string
}

// parseArgs reads "--name VALUE..." and "--name=VALUE": a flag takes every
// argument up to the next flag, so a shell glob can follow --tcgen or --peers.
func parseArgs(args []string) (options, error) {
	v := map[string][]string{}
	name := ""
	for _, a := range args {
		n, val, eq := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch {
		case a == "-h" || a == "--help":
			return options{}, errHelp
		case strings.HasPrefix(a, "-") && !slices.Contains([]string{"corpus", "tcgen", "peers", "out", "date"}, n):
			return options{}, fmt.Errorf("unknown flag %s", a)
		case strings.HasPrefix(a, "-"):
			name = n
			if eq {
				v[n] = append(v[n], val)
			}
		case name == "":
			return options{}, fmt.Errorf("unexpected argument %q", a)
		default:
			v[name] = append(v[name], a)
		}
	}
	for _, n := range []string{"corpus", "out", "date"} {
		if len(v[n]) != 1 || v[n][0] == "" {
			return options{}, fmt.Errorf("--%s takes one value", n)
		}
	}
	for _, n := range []string{"tcgen", "peers"} {
		if len(v[n]) == 0 {
			return options{}, fmt.Errorf("--%s needs at least one file", n)
		}
	}
	o := options{corpus: v["corpus"][0], out: v["out"][0], date: v["date"][0], tcgen: v["tcgen"], peers: v["peers"]}
	if _, err := time.Parse(time.DateOnly, o.date); err != nil {
		return o, fmt.Errorf("--date %q is not YYYY-MM-DD", o.date)
	}
	return o, nil
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseArgs(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "peers: %v\n%s", err, usage)
		return exitUsage
	}
	in, err := load(o)
	if err != nil {
		fmt.Fprintf(stderr, "peers: %v\n", err)
		return exitBadInput
	}
	c := compare(in)
	svg, err := c.svg(o.date)
	if err != nil {
		fmt.Fprintf(stderr, "peers: drawing %s.svg: %v\n", o.out, err)
		return exitInternal
	}
	tsv := c.tsv()
	if err := writeFiles(o.out, tsv, svg); err != nil {
		fmt.Fprintf(stderr, "peers: %v\n", err)
		return exitInternal
	}
	for _, l := range c.summary() {
		fmt.Fprintln(stdout, l)
	}
	for _, s := range c.inexact {
		fmt.Fprintf(stderr, "peers: INEXACT TCGEN COUNT: %s\n", s)
	}
	if len(c.inexact) > 0 {
		return exitMismatch
	}
	return 0
}

// writeFiles writes PREFIX.tsv and PREFIX.svg, making PREFIX's folder.
func writeFiles(prefix string, tsv, svg []byte) error {
	err := os.MkdirAll(filepath.Dir(prefix), 0o755)
	if err == nil {
		err = os.WriteFile(prefix+".tsv", tsv, 0o644)
	}
	if err == nil {
		err = os.WriteFile(prefix+".svg", svg, 0o644)
	}
	return err
}

// fmtMs writes a time as peerbench does: 4 decimals of a millisecond.
func fmtMs(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// fmtRatio writes a ratio to 3 significant digits, without an exponent.
func fmtRatio(v float64) string {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'e', 2, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

func geomean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

// table is a TSV file: a header line naming the columns, then rows with as
// many fields; blank lines and lines starting with '#' are skipped.
type table struct {
	path string
	col  map[string]int
	rows []record
}

type record struct {
	line int
	f    []string
}

func parseTable(path string, data []byte, want ...string) (*table, error) {
	t := &table{path: path}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if t.col != nil {
			if len(f) != len(t.col) {
				return nil, fmt.Errorf("%s:%d: %d fields, the header has %d", path, i+1, len(f), len(t.col))
			}
			t.rows = append(t.rows, record{i + 1, f})
			continue
		}
		t.col = map[string]int{}
		for j, name := range f {
			name = strings.TrimSpace(name)
			if _, dup := t.col[name]; dup {
				return nil, fmt.Errorf("%s:%d: column %q twice in the header", path, i+1, name)
			}
			t.col[name] = j
		}
		for _, w := range want {
			if _, ok := t.col[w]; !ok {
				return nil, fmt.Errorf("%s:%d: the header has no %s column", path, i+1, w)
			}
		}
	}
	if t.col == nil {
		return nil, fmt.Errorf("%s: no header line", path)
	}
	return t, nil
}

// field reads the named fields of one row, keeping the first error.
type field struct {
	t   *table
	r   record
	err error
}

func (f *field) str(name string) string { return strings.TrimSpace(f.r.f[f.t.col[name]]) }

func (f *field) fail(name, s, what string) {
	if f.err == nil {
		f.err = fmt.Errorf("%s:%d: %s %q is not %s", f.t.path, f.r.line, name, s, what)
	}
}

// count reads a triangle, vertex or edge count; an empty field is none.
func (f *field) count(name string) (uint64, bool) {
	s := f.str(name)
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil && s != "" {
		f.fail(name, s, "a count")
	}
	return v, err == nil
}

// ms reads a time in milliseconds; an empty field is none (NaN).
func (f *field) ms(name string) float64 {
	s := f.str(name)
	if s == "" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		f.fail(name, s, "a positive time")
	}
	return v
}

type graphInfo struct {
	name, family               string
	vertices, edges, triangles uint64
}

type tcgenRow struct {
	graph, plan, source, device, at string // at: FILE:LINE
	tri                             uint64
	hasTri                          bool
	ms                              float64 // gpu_ms, the whole GPU pass; NaN: none
}

type peerRow struct {
	exact, hasTri bool
	tri           uint64
	ms            float64 // kernel_ms; NaN: none
	device, note  string
}

// inputs is everything read, checked for form but not yet compared.
type inputs struct {
	corpus    []graphInfo
	tcgen     []tcgenRow                    // every plan's row
	peers     map[string]map[string]peerRow // graph -> peer -> row
	peerOrder []string                      // as first seen
}

func load(o options) (*inputs, error) {
	in := &inputs{peers: map[string]map[string]peerRow{}}
	err := each([]string{o.corpus}, func(t *table) (err error) { in.corpus, err = parseCorpus(t); return },
		"name", "family", "command", "vertices", "edges", "triangles")
	if err == nil {
		err = each(o.tcgen, in.addTcgen, "graph", "plan", "plan_source", "triangles", "gpu_ms", "device")
	}
	if err == nil {
		err = each(o.peers, in.addPeers, "peer", "graph", "triangles", "exact", "kernel_ms", "device", "note")
	}
	return in, err
}

// each reads every file as a table with the wanted columns and hands it on.
func each(paths []string, add func(*table) error, want ...string) error {
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		t, err := parseTable(p, data, want...)
		if err == nil {
			err = add(t)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func parseCorpus(t *table) ([]graphInfo, error) {
	var gs []graphInfo
	seen := map[string]bool{}
	for _, r := range t.rows {
		f := &field{t: t, r: r}
		g := graphInfo{name: f.str("name"), family: f.str("family")}
		var ok [3]bool
		g.vertices, ok[0] = f.count("vertices")
		g.edges, ok[1] = f.count("edges")
		g.triangles, ok[2] = f.count("triangles")
		switch {
		case f.err != nil:
			return nil, f.err
		case g.name == "" || g.family == "" || ok != [3]bool{true, true, true}:
			return nil, fmt.Errorf("%s:%d: a graph needs a name, a family, vertices, edges and triangles", t.path, r.line)
		case strings.HasPrefix(g.name, "#"): // its output row would read as a comment
			return nil, fmt.Errorf("%s:%d: graph name %q starts with #", t.path, r.line, g.name)
		case seen[g.name]:
			return nil, fmt.Errorf("%s:%d: graph %s listed twice", t.path, r.line, g.name)
		}
		seen[g.name] = true
		gs = append(gs, g)
	}
	if len(gs) == 0 {
		return nil, fmt.Errorf("%s: no graphs", t.path)
	}
	return gs, nil
}

func (in *inputs) addTcgen(t *table) error {
	for _, r := range t.rows {
		f := &field{t: t, r: r}
		x := tcgenRow{graph: f.str("graph"), plan: f.str("plan"), source: f.str("plan_source"),
			device: f.str("device"), at: fmt.Sprintf("%s:%d", t.path, r.line), ms: f.ms("gpu_ms")}
		x.tri, x.hasTri = f.count("triangles")
		if f.err != nil {
			return f.err
		}
		if x.graph == "" {
			return fmt.Errorf("%s: empty graph", x.at)
		}
		for _, y := range in.tcgen {
			if x.source == "default" && y.source == "default" && y.graph == x.graph {
				return fmt.Errorf("%s: a second default-plan row for %s (the first is at %s)", x.at, x.graph, y.at)
			}
		}
		in.tcgen = append(in.tcgen, x)
	}
	return nil
}

func (in *inputs) addPeers(t *table) error {
	for _, r := range t.rows {
		f := &field{t: t, r: r}
		peer, graph, exact := f.str("peer"), f.str("graph"), f.str("exact")
		x := peerRow{exact: exact == "yes", ms: f.ms("kernel_ms"), device: f.str("device"), note: f.str("note")}
		x.tri, x.hasTri = f.count("triangles")
		switch {
		case f.err != nil:
			return f.err
		case exact != "yes" && exact != "no":
			return fmt.Errorf("%s:%d: exact %q is neither yes nor no", t.path, r.line, exact)
		case peer == "" || graph == "":
			return fmt.Errorf("%s:%d: empty peer or graph", t.path, r.line)
		}
		if in.peers[graph] == nil {
			in.peers[graph] = map[string]peerRow{}
		}
		if _, dup := in.peers[graph][peer]; dup {
			return fmt.Errorf("%s:%d: a second row for %s on %s", t.path, r.line, peer, graph)
		}
		if !slices.Contains(in.peerOrder, peer) {
			in.peerOrder = append(in.peerOrder, peer)
		}
		in.peers[graph][peer] = x
	}
	return nil
}
