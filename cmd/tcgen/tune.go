package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"github.com/tcgen/tcgen/store"
)

// defaultSpaceName is what tune searches without --space (embedded from
// examples/).
const defaultSpaceName = "spaces/default.yaml"

// SearchFlags are the search settings tune and sweep share.
type SearchFlags struct {
	Runs   int    `help:"Timed passes per measurement (median, min, max and the median's 95% confidence interval are kept)." default:"10"`
	Warmup int    `help:"Untimed passes before the timed ones." default:"3"`
	Seed   uint64 `help:"Seed of the random choices of a strategy." default:"1"`
	// FlushL2 is stored with each measurement: flushed and unflushed ones
	// are kept apart (store.Row.Flushed).
	FlushL2 bool `name:"flush-l2" help:"Flush the GPU's L2 before each timed pass (a write of twice its size, outside the pass's timer), so no pass finds the graph in L2 from the one before; stored and reported with each measurement, which then never competes with unflushed ones."`
}

// TuneCmd searches a space of plans for the fastest exact one.
type TuneCmd struct {
	Graph  string `arg:"" help:"Graph file (as for count); with --replay, the graph's name or fingerprint in the recording."`
	Format string `help:"Input format (${formats})." enum:"${formats}" default:"auto"`
	GPUFlags
	SearchFlags
	Space    string        `help:"Space file (YAML) declaring the plans to search, or the name of a built-in space (${spaces}) when no such file exists (default: default)." placeholder:"FILE"`
	Strategy string        `help:"Search strategy: ${strategies}." default:"tpe" enum:"${strategies}"`
	Evals    int           `help:"Stop after N evaluations (0: no limit)." placeholder:"N"`
	Time     time.Duration `help:"Stop after this wall time (0: no limit)." placeholder:"DURATION"`
	Patience int           `help:"Stop after N evaluations in a row without a better plan (0: no limit)." placeholder:"N"`
	Expect   *uint64       `help:"The graph's known triangle count (default: the CPU oracle counts it once)." placeholder:"N"`
	Cold     bool          `help:"Start the search cold: without it, a graph the store has not tuned starts from the model's best plans for it (predicted from the graphs tuned on this GPU, or in --replay from the recording's other graphs)."`
	Replay   string        `help:"Replay a recording (JSON Lines, tcgen store export) instead of measuring: tests strategies without a GPU." type:"path" placeholder:"FILE"`
	Finals   int           `name:"finalists" help:"Measure the N best candidates again at the end, interleaved (one pass of each per round, --runs rounds), and choose the winner from those passes (0: off)." default:"3" placeholder:"N"`
	Out      string        `help:"Directory for the winning plan's spec (PLAN.yaml) and CUDA source (PLAN.cu)." default:"." type:"path" placeholder:"DIR"`
	Report   string        `help:"Write the search's report into DIR: every evaluation (trace.csv), the best so far against evaluations and GPU seconds (best-so-far.svg), report.md." type:"path" placeholder:"DIR"`
	JSON     bool          `help:"Print the outcome as JSON."`
}

// tuneOutcome is what tune prints; the JSON field names are stable.
type tuneOutcome struct {
	Graph     string     `json:"graph"`
	Space     string     `json:"space"`
	Points    int        `json:"points"`
	Culled    int        `json:"culled"`
	Strategy  string     `json:"strategy"`
	Evals     int        `json:"evaluations"`
	Cached    int        `json:"answered_from_store"`
	Failed    int        `json:"failed"`
	Stopped   string     `json:"stopped"`
	Best      string     `json:"best_plan,omitempty"`
	BestLabel string     `json:"best_label,omitempty"`
	BestMs    float64    `json:"best_ms,omitempty"`
	BestCILo  float64    `json:"ci_lo_ms,omitempty"` // 95% interval of the best's median (executor.MedianCI)
	BestCIHi  float64    `json:"ci_hi_ms,omitempty"`
	Final     *finalsOut `json:"final,omitempty"` // the finalists measured again interleaved
	// How each candidate was measured: timed passes, warm-ups, L2 flushed
	// before each pass.
	Passes    int          `json:"passes"`
	Warmup    int          `json:"warmup"`
	FlushL2   bool         `json:"flush_l2"`
	Exhaust   *replayTruth `json:"replay_truth,omitempty"`
	WarmStart []string     `json:"warm_start,omitempty"` // the plans the strategy starts from: the store's best or the model's
	Baseline  []string     `json:"baseline,omitempty"`   // the plans count would otherwise run (default, model), measured first
	SpecFile  string       `json:"spec_file,omitempty"`
	CUDAFile  string       `json:"cuda_file,omitempty"`
	Seconds   float64      `json:"seconds"`
}

// replayTruth is the exhaustive answer of a recording, beside a replayed
// search's.
type replayTruth struct {
	Plan  string  `json:"plan"`
	Ms    float64 `json:"ms"`
	Ratio float64 `json:"ratio"` // found / best
}

func (c *TuneCmd) space() (*autotune.SpaceFile, error) {
	if c.Space == "" {
		s, err := autotune.LoadSpaceFS(examples.FS, defaultSpaceName)
		if err != nil {
			return nil, fmt.Errorf("the built-in default space: %w", err) // a build defect: tests parse it
		}
		return s, nil
	}
	fsys, name := exampleFile(examples.Spaces, c.Space)
	s, err := autotune.LoadSpaceFS(fsys, name)
	if err != nil {
		return nil, withCode(exitBadInput, withExamples(examples.Spaces, err))
	}
	return s, nil
}

// Run implements the command.
func (c *TuneCmd) Run(g *Globals) error {
	if c.Runs < 1 || c.Warmup < 0 || c.Evals < 0 || c.Patience < 0 || c.Time < 0 || c.Finals < 0 {
		return errorf(exitUsage, "tune: --runs must be at least 1, --warmup, --evals, --patience, --time and --finalists at least 0")
	}
	strat, err := autotune.StrategyByName(c.Strategy)
	if err != nil {
		return withCode(exitUsage, err)
	}
	sf, err := c.space()
	if err != nil {
		return err
	}
	if c.Replay != "" {
		return c.replay(g, sf, strat)
	}
	return c.tuneGPU(g, sf, strat)
}

func (c *TuneCmd) options(g *Globals, sp *autotune.Space, pb *progress, best func() (string, float64)) autotune.Options {
	return autotune.Options{
		Budget: autotune.Budget{Evals: c.Evals, Time: c.Time, Patience: c.Patience},
		Runs:   c.Runs, Seed: c.Seed,
		Observe: func(t autotune.Trial) {
			if pb == nil {
				return
			}
			name, ms := best()
			total := int64(len(sp.Plans))
			if c.Evals > 0 {
				total = int64(min(c.Evals, len(sp.Plans)))
			}
			pb.Describe(fmt.Sprintf("tuning, best %.4f ms (%s)", ms, name))
			pb.Update(int64(t.N), total) // the line adds the rate and the time left
		},
	}
}

// replay runs the strategy against a recording: no graph file, no GPU.
func (c *TuneCmd) replay(g *Globals, sf *autotune.SpaceFile, strat autotune.Strategy) error {
	start := time.Now()
	f, err := os.Open(c.Replay)
	if err != nil {
		return withCode(exitBadInput, err)
	}
	rows, err := store.ReadJSON(f, c.Replay)
	f.Close()
	if err != nil {
		return withCode(exitBadInput, err)
	}
	var mine []store.Row
	for _, r := range rows {
		if (r.Graph == c.Graph || r.GraphName == c.Graph) && r.Flushed == c.FlushL2 { // as a tune measures: one kind
			mine = append(mine, r)
		}
	}
	if len(mine) == 0 {
		return errorf(exitBadInput, "%s: no measurement of graph %q (give its name or fingerprint)", c.Replay, c.Graph)
	}
	// One GPU and one tcgen version: measurements of another would mix in.
	keys := map[string]bool{}
	for _, r := range mine {
		keys[r.GPU+" / tcgen "+r.Version] = true
	}
	if len(keys) > 1 {
		return errorf(exitBadInput, "%s: graph %q was measured on %d GPU/version pairs (%s); export one (tcgen store export --gpu KEY)",
			c.Replay, c.Graph, len(keys), strings.Join(slices.Sorted(maps.Keys(keys)), "; "))
	}
	t := gen.DefaultTarget()
	t.MaxSharedPerBlock = autotune.MaxSharedOptin
	full, err := sf.Expand(t)
	if err != nil {
		return withCode(exitBadInput, err)
	}
	if why := full.Refused(); why != "" {
		return errorf(exitBadInput, "%s", why)
	}
	have := map[string]bool{}
	for _, r := range mine {
		have[r.Plan] = true
	}
	sp := full.Subset(func(i int) bool { return have[full.Cands.Plans[i]] })
	if missing := len(full.Plans) - len(sp.Plans); missing > 0 {
		g.notice("tune: the recording lacks %d of the space's %d points; replaying the %d it has", missing, len(full.Plans), len(sp.Plans))
	}
	if len(sp.Plans) == 0 {
		return errorf(exitBadInput, "%s: no point of space %s is recorded for %s", c.Replay, sf.Name, c.Graph)
	}
	// The model learns from every GPU's measurements, less the graph's own
	// on its GPU, as in a tune of a graph not seen on this GPU.
	sp, base, err := replayBaselines(sp, rows, mine[0], have, t)
	if err != nil {
		return err
	}
	rp, err := autotune.NewReplay(&sp.Cands, mine)
	if err != nil {
		return withCode(exitBadInput, err)
	}
	opt := c.options(g, sp, nil, nil)
	opt.Baseline = base
	tr := &tuneTracer{sp: sp, runs: c.Runs, base: base, cost: replayCost(sp, mine)}
	opt.Observe = tr.observe(opt.Observe)
	if !c.Cold { // as a tune of an unseen graph: the model learns from the other graphs
		opt.Start = autotune.WarmStartFrom(rows, mine[0].Graph, mine[0].Features, autotune.RowGPU(mine[0]), &sp.Cands, autotune.WarmStartN)
	}
	out, err := autotune.Run(g.ctx, &sp.Cands, strat, rp, opt)
	if err != nil {
		return err
	}
	res := c.outcome(sp, out, start)
	res.Graph = c.Graph
	if c.Finals > 0 {
		res.Final = &finalsOut{Skipped: "a replay cannot measure again"}
	}
	for _, i := range opt.Start {
		res.WarmStart = append(res.WarmStart, sp.Cands.Plans[i])
	}
	res.Baseline = planNames(sp, base)
	if bi, bs := rp.Best(); bi >= 0 && out.Best >= 0 {
		res.Exhaust = &replayTruth{Plan: sp.Cands.Plans[bi], Ms: bs, Ratio: out.Score / bs}
	}
	if c.Report != "" {
		if err := c.writeTuneReport(tr, res, mine[0].GPUName, secondsRecorded); err != nil {
			return err
		}
	}
	return printTune(g.stdout, c.JSON, res)
}

// replayBaselines adds to sp the plans count would run for the recorded
// graph of row one (as tuneGPU does), those of them the recording has:
// the model learns from rows.
func replayBaselines(sp *autotune.Space, rows []store.Row, one store.Row, have map[string]bool, t gen.Target) (*autotune.Space, []int, error) {
	var feats *graph.Features
	if one.Features.Vertices > 0 { // an oriented file's rows carry no features
		feats = &one.Features
	}
	plans, labels, err := baselines(rows, feats, autotune.RowGPU(one), one.Graph, t)
	if err != nil {
		return nil, nil, err
	}
	var ps []ir.Plan
	var ls []string
	for k, p := range plans {
		if have[p.Name()] {
			ps, ls = append(ps, p), append(ls, labels[k])
		}
	}
	sp, at := sp.With(ps, ls, t)
	return sp, at, nil
}

func (c *TuneCmd) outcome(sp *autotune.Space, out autotune.Outcome, start time.Time) tuneOutcome {
	res := tuneOutcome{Space: sp.Cands.Name, Points: len(sp.Plans), Culled: len(sp.Cands.Culled), Strategy: c.Strategy,
		Evals: out.Evals, Stopped: out.Stopped, Seconds: time.Since(start).Seconds(),
		Passes: c.Runs, Warmup: c.Warmup, FlushL2: c.FlushL2}
	for _, t := range out.Trials {
		if t.Result.Cached {
			res.Cached++
		}
		if !t.Result.OK {
			res.Failed++
		}
	}
	if out.Best >= 0 {
		setBest(&res, sp, out.Best, out.Score, searchSamples(out, out.Best, c.Runs))
	}
	return res
}

// tuneGPU measures on the GPU, through the tuning store.
func (c *TuneCmd) tuneGPU(g *Globals, sf *autotune.SpaceFile, strat autotune.Strategy) error {
	start := time.Now()
	l, err := g.load(GraphArg{Graph: c.Graph, Format: c.Format})
	if err != nil {
		return err
	}
	dev, comp, err := g.openGPU(c.GPUFlags)
	if err != nil {
		return err
	}
	defer dev.Close()
	facts := dev.Facts()
	sp, err := sf.Expand(executor.Target(facts, ""))
	if err != nil {
		return withCode(exitBadInput, err)
	}
	if why := sp.Refused(); why != "" {
		return errorf(exitBadInput, "%s (tcgen sweep --dry-run lists every point's)", why)
	}
	ev, st, err := g.evaluator(dev, comp, l, c.Graph, sp, c.Expect, c.Warmup, "tune")
	if err != nil {
		return err
	}
	ev.FlushL2 = c.FlushL2
	if st != nil {
		defer st.Close()
	}
	sp, ev, startIdx, baseIdx, err := c.starts(g, st, sp, ev, facts)
	if err != nil {
		return err
	}
	pb := newProgress(g.Quiet, "tuning", "evals")
	bestName, bestMs := "-", math.Inf(1)
	opt := c.options(g, sp, pb, func() (string, float64) { return bestName, bestMs })
	observe := opt.Observe
	opt.Observe = func(t autotune.Trial) {
		if t.Result.OK && t.Runs >= c.Runs && t.Result.Score < bestMs {
			bestName, bestMs = sp.Cands.Plans[t.Index], t.Result.Score
		}
		observe(t)
	}
	opt.Start, opt.Baseline = startIdx, baseIdx
	tr := &tuneTracer{sp: sp, runs: c.Runs, base: baseIdx}
	tr.cost = tr.measuredCost
	opt.Observe = tr.observe(opt.Observe)
	out, err := autotune.Run(g.ctx, &sp.Cands, strat, ev, opt)
	pb.Done()
	if err != nil {
		return err
	}
	res := c.outcome(sp, out, start)
	res.Graph = c.Graph
	if out, err = c.final(g, ev, sp, out, &res); err != nil {
		return err
	}
	if c.Report != "" {
		if err := c.writeTuneReport(tr, res, facts.Name, secondsMeasured); err != nil {
			return err
		}
	}
	for _, i := range startIdx {
		res.WarmStart = append(res.WarmStart, sp.Cands.Plans[i])
	}
	res.Baseline = planNames(sp, baseIdx)
	if out.Best >= 0 {
		res.SpecFile, res.CUDAFile, err = writeWinner(c.Out, sp, out.Best, facts)
		if err != nil {
			return err
		}
	}
	if err := printTune(g.stdout, c.JSON, res); err != nil {
		return err
	}
	if out.Stopped == autotune.StopInterrupted {
		return withCode(exitInterrupted, g.ctx.Err())
	}
	if out.Best < 0 {
		return errorf(exitCompile, "tune: no candidate of space %s counted correctly on %s", sf.Name, c.Graph)
	}
	return nil
}

// starts adds to sp the plans count would otherwise run for the graph
// (baselines) and returns the space, its evaluator, the indices to start
// from (the store's best if it is a point of the space, else for a graph not
// tuned here yet the model's best plans) and the baselines' indices.
func (c *TuneCmd) starts(g *Globals, st *store.Store, sp *autotune.Space, ev *autotune.GPU, facts gpu.DeviceFacts) (_ *autotune.Space, _ *autotune.GPU, startIdx, baseIdx []int, err error) {
	target := executor.Target(facts, "")
	var rows []store.Row // every GPU's, failures too: the model never predicts a plan that counted wrong
	if st != nil {
		rows, _ = st.Rows(store.Filter{}) // unreadable: the default alone is measured first
	}
	var feats *graph.Features // the oriented files carry no undirected features
	if ev.Oriented == nil {
		feats = &ev.Base.Features
	}
	plans, labels, err := baselines(rows, feats, autotune.RowGPU(ev.Base), ev.Base.Graph, target)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	sp, baseIdx = sp.With(plans, labels, target)
	ev = ev.WithSpace(sp)
	if st != nil {
		row, skipped, ok, err := st.Best(ev.Base.Graph, ev.Base.GPU, autotune.CodeMatcher(facts))
		if skipped > 0 {
			g.notice("%s", staleNotice(skipped))
		}
		if err == nil && ok {
			for i, p := range sp.Cands.Plans {
				if p == row.Plan {
					startIdx = append(startIdx, i)
				}
			}
		}
		if len(startIdx) == 0 && !c.Cold && feats != nil && len(rows) > 0 {
			startIdx = autotune.WarmStartFrom(rows, ev.Base.Graph, *feats, autotune.RowGPU(ev.Base), &sp.Cands, autotune.WarmStartN)
		}
	}
	return sp, ev, startIdx, baseIdx, nil
}

// planNames are the plan names of sp's candidates is (-1: none).
func planNames(sp *autotune.Space, is []int) []string {
	var out []string
	for _, i := range is {
		if i >= 0 {
			out = append(out, sp.Cands.Plans[i])
		}
	}
	return out
}

// evaluator opens the store and builds the GPU evaluator for graph l.
func (g *Globals) evaluator(dev gpu.Device, comp gpu.Compiler, l *loaded, path string, sp *autotune.Space, expect *uint64, warmup int, source string) (*autotune.GPU, *store.Store, error) {
	facts := dev.Facts()
	major, minor := comp.Version()
	o := graph.FileOriented(l.g, l.rep)
	gr := l.g
	if o != nil {
		gr = nil
	}
	var ref uint64
	switch {
	case expect != nil:
		ref = *expect
	default:
		var err error
		if ref, err = g.oracle(l.g, o, "reference count (CPU oracle)"); err != nil {
			return nil, nil, err
		}
	}
	st, err := g.openStore()
	if err != nil {
		return nil, nil, err
	}
	base := store.Row{
		Graph: graph.Fingerprint(&l.g.CSR), GraphName: graphName(path),
		GPU: autotune.GPUKey(facts, major, minor), GPUName: facts.Name, CC: fmt.Sprintf("%d.%d", facts.Major, facts.Minor),
		SMs: facts.SMs, Driver: facts.Driver, NVRTC: fmt.Sprintf("%d.%d", major, minor),
		L2Bytes: facts.L2Bytes, SharedPerSM: facts.SharedPerSM, BandwidthGBs: facts.BandwidthGBs(),
		Version: toolVersion(), Space: sp.Cands.Name, Source: source,
	}
	if o == nil {
		base.Features = graph.ComputeFeatures(l.g)
	}
	ev := &autotune.GPU{Ctx: g.ctx, Dev: dev, Comp: comp, Graph: gr, Oriented: o, Space: sp, Reference: ref,
		Warmup: warmup, Store: st, Base: base, Workers: 4, Clocks: g.clocks(facts.UUID)}
	if ahead, n := g.compileAhead(comp, facts); ahead != nil {
		ev.Ahead, ev.Workers = ahead, n
	}
	return ev, st, nil
}

// openStore opens the tuning store (--store, else the user's data dir),
// creating it if missing; nil with --no-store.
func (g *Globals) openStore() (*store.Store, error) { return g.storeOpen(false) }

// errNoStoreYet: the default store is not there yet (nothing was tuned).
var errNoStoreYet = errors.New("no tuning store yet")

// openExistingStore is openStore for commands that only read the store;
// it creates none. A --store that is not there is an error (a typo reads
// as one); the default store not there yet is errNoStoreYet, with a notice.
func (g *Globals) openExistingStore() (*store.Store, error) { return g.storeOpen(true) }

func (g *Globals) storeOpen(existing bool) (*store.Store, error) {
	if g.NoStore {
		return nil, nil
	}
	path, err := g.storePath()
	if err != nil {
		return nil, err
	}
	if existing {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			if g.Store != "" {
				return nil, errorf(exitBadInput, "store: %s: no tuning store there (tune and sweep make one)", path)
			}
			g.notice("store: no tuning store yet at %s (tune and sweep make one)", path)
			return nil, errNoStoreYet
		}
	}
	st, err := store.Open(path)
	if err != nil {
		return nil, withCode(exitBadInput, err)
	}
	return st, nil
}

// storePath is the store's file: --store, else the default.
func (g *Globals) storePath() (string, error) {
	if g.Store != "" {
		return g.Store, nil
	}
	return store.DefaultPath()
}

// writeWinner writes the winning plan's spec and CUDA source into dir.
func writeWinner(dir string, sp *autotune.Space, i int, facts gpu.DeviceFacts) (specFile, cudaFile string, err error) {
	p := sp.Plans[i]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	p.Doc = "tuned: " + sp.Labels[i] + " (space " + sp.Cands.Name + ", on " + facts.Name + ")"
	y, err := p.EncodeYAML()
	if err != nil {
		return "", "", err
	}
	out, err := gen.Generate(p, executor.Target(facts, ""))
	if err != nil {
		return "", "", err
	}
	specFile = filepath.Join(dir, sp.Cands.Plans[i]+".yaml")
	cudaFile = filepath.Join(dir, sp.Cands.Plans[i]+".cu")
	if err := writeAtomic(specFile, func(w io.Writer) error { _, err := w.Write(y); return err }); err != nil {
		return "", "", err
	}
	if err := writeAtomic(cudaFile, func(w io.Writer) error { _, err := io.WriteString(w, out.Source); return err }); err != nil {
		return "", "", err
	}
	for name, text := range out.Headers { // tcgen.cuh, which the source includes
		if err := writeFileAtomic(filepath.Join(dir, name), []byte(text)); err != nil {
			return "", "", err
		}
	}
	return specFile, cudaFile, nil
}

func printTune(w io.Writer, asJSON bool, r tuneOutcome) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "graph\t%s\n", r.Graph)
	fmt.Fprintf(tw, "space\t%s: %d points (%d culled by restrictions)\n", r.Space, r.Points, r.Culled)
	fmt.Fprintf(tw, "strategy\t%s: %d evaluations (%d from the store, %d failed), stopped: %s, %.1f s\n", r.Strategy, r.Evals, r.Cached, r.Failed, r.Stopped, r.Seconds)
	if len(r.Baseline) > 0 {
		fmt.Fprintf(tw, "measured first\t%s (what count runs untuned)\n", strings.Join(r.Baseline, ", "))
	}
	if len(r.WarmStart) > 0 {
		fmt.Fprintf(tw, "started from\t%s\n", strings.Join(r.WarmStart, ", "))
	}
	fmt.Fprintf(tw, "measured\t%d passes after %d warm-ups per candidate, %s\n", r.Passes, r.Warmup, flushText(r.FlushL2))
	if r.Best != "" {
		fmt.Fprintf(tw, "best\t%s, %.4f ms median gpu pass (95%% CI %.4f-%.4f)\n", r.Best, r.BestMs, r.BestCILo, r.BestCIHi)
		fmt.Fprintf(tw, "\t%s\n", r.BestLabel)
	} else {
		fmt.Fprintf(tw, "best\tnone: no candidate counted correctly\n")
	}
	printFinal(tw, r.Final)
	if t := r.Exhaust; t != nil {
		fmt.Fprintf(tw, "exhaustive\t%s, %.4f ms (found / best = %.4f)\n", t.Plan, t.Ms, t.Ratio)
	}
	if r.SpecFile != "" {
		fmt.Fprintf(tw, "wrote\t%s, %s\n", r.SpecFile, r.CUDAFile)
	}
	return tw.Flush()
}

// graphName is a graph's name for people and reports: its file name
// without compression and format extensions.
func graphName(path string) string {
	b := filepath.Base(path)
	for _, ext := range []string{".gz", ".tcsr", ".txt", ".csv", ".mtx", ".el", ".bin32", ".bin64"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}
