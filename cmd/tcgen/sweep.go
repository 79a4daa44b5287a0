package main

import (
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"os"
	"os/exec"
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
	"github.com/tcgen/tcgen/report"
	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/runtime/gpu"
	"github.com/tcgen/tcgen/store"
	"github.com/tcgen/tcgen/sweep"
)

// SweepCmd runs a declared part of the design space over a set of graphs.
type SweepCmd struct {
	File string `arg:"" help:"Sweep file (YAML): graphs, space, include/exclude filters; or the name of a built-in sweep (${sweeps}) when no such file exists."`
	GPUFlags
	SearchFlags
	Datasets   string  `help:"Directory of the shared datasets (MANIFEST.tsv) that dataset entries name." env:"TCGEN_DATASETS" default:"../shared/datasets" type:"path" placeholder:"DIR"`
	Out        string  `help:"Directory for results.csv, results.jsonl, report.md and the plots." default:"sweep-out" type:"path" placeholder:"DIR"`
	DryRun     bool    `help:"List the graphs and the points that would run, and those the restrictions or filters cull with the reason; run nothing."`
	ProfileTop int     `help:"Profile the N fastest points with Nsight Compute (ncu, clocks left alone), at most 20." placeholder:"N"`
	SlowMs     float64 `help:"A point whose verifying pass takes longer than this many ms is timed with 3 runs instead of --runs." default:"2000"`
	SharedKiB  int     `name:"shared-kib" help:"Shared memory a block may opt into, for --dry-run's restrictions (the GPU's own limit otherwise)." default:"227"`
	Shard      string  `help:"Run only the graphs whose place in the list is K modulo N (K/N), so N processes, one per GPU, share a sweep; each writes its own store and --out." placeholder:"K/N"`
}

// shard keeps the graphs of --shard K/N: those at places K, K+N, ...
func (c *SweepCmd) shard(srcs []sweep.Source) ([]sweep.Source, error) {
	if c.Shard == "" {
		return srcs, nil
	}
	var k, n int
	if _, err := fmt.Sscanf(c.Shard, "%d/%d", &k, &n); err != nil || n < 1 || k < 0 || k >= n || fmt.Sprintf("%d/%d", k, n) != c.Shard {
		return nil, errorf(exitUsage, "sweep: --shard %q: want K/N with 0 <= K < N", c.Shard)
	}
	var out []sweep.Source
	for i := k; i < len(srcs); i += n {
		out = append(out, srcs[i])
	}
	return out, nil
}

// Run implements the command.
func (c *SweepCmd) Run(g *Globals) error {
	fsys, name := exampleFile(examples.Sweeps, c.File)
	f, err := sweep.LoadFS(fsys, name)
	if err != nil {
		return withCode(exitBadInput, withExamples(examples.Sweeps, err))
	}
	return c.run(g, f, "tcgen sweep "+c.File, nil)
}

// afterGraph runs once per graph after its points, with the graph loaded
// and its evaluator (bench measures each graph's tuned plan there); it
// returns extra plans measured and their labels.
type afterGraph func(l *loaded, ev *autotune.GPU, st *store.Store) (plans, labels []string, err error)

// run measures every point of f on every graph, then writes the report.
func (c *SweepCmd) run(g *Globals, f *sweep.File, command string, after afterGraph) error {
	if err := c.checkFlags(); err != nil {
		return err
	}
	if c.DryRun {
		return c.dryRun(g, f)
	}
	srcs, err := f.Sources(c.Datasets)
	if err != nil {
		return withCode(exitBadInput, err)
	}
	if srcs, err = c.shard(srcs); err != nil {
		return err
	}
	if g.NoStore {
		return errorf(exitUsage, "sweep: measurements go through the tuning store (it makes a sweep resumable); drop --no-store or give --store FILE")
	}
	dev, comp, sp, err := c.openSpace(g, f)
	if err != nil {
		return err
	}
	defer dev.Close()
	total := int64(len(sp.Plans) * len(srcs))
	pb := newProgress(g.Quiet, "sweep", "points")
	var done int64
	start := time.Now()
	var graphs []string // fingerprints, in the sweep's order
	var key, version string
	failed := 0
	paths := map[string]string{} // fingerprint -> file, for ncu's count
	extra := map[string]string{} // plan -> label of plans after() measured
	interrupted := func() error {
		pb.Done()
		g.notice("sweep: interrupted after %d of %d points; run it again to resume (finished points come from the store)", done, total)
		return withCode(exitInterrupted, g.ctx.Err())
	}
	for _, src := range srcs {
		if g.ctx.Err() != nil {
			return interrupted()
		}
		l, path, err := c.loadSource(g, src)
		if err != nil {
			pb.Done()
			return err
		}
		ev, st, err := g.evaluator(dev, comp, l, path, sp, src.Expect, c.Warmup, "sweep")
		if err != nil {
			pb.Done()
			return err
		}
		ev.Base.GraphName = src.Label
		ev.Base.Space = f.Name
		ev.SlowMs = c.SlowMs
		ev.FlushL2 = c.FlushL2
		graphs = append(graphs, ev.Base.Graph)
		paths[ev.Base.Graph] = path
		key, version = ev.Base.GPU, ev.Base.Version
		graphStart, graphFailed := time.Now(), failed
		strat, _ := autotune.StrategyByName("exhaustive")
		out, err := autotune.Run(g.ctx, &sp.Cands, strat, ev, autotune.Options{Runs: c.Runs, Seed: c.Seed,
			Observe: func(t autotune.Trial) {
				done++
				if !t.Result.OK {
					failed++
				}
				pb.Describe(fmt.Sprintf("%s: point %d/%d, %d failed", src.Label, t.N, len(sp.Plans), failed))
				pb.Update(done, total)
			}})
		if err == nil {
			// A line per graph: logs of runs without a terminal show progress.
			g.notice("sweep: %s: %d points (%d from the store, %d failed) in %.1f s", src.Label, len(out.Trials), countCached(out.Trials), failed-graphFailed, time.Since(graphStart).Seconds())
		}
		if err == nil && out.Stopped != autotune.StopInterrupted && after != nil {
			var plans, labels []string
			plans, labels, err = after(l, ev, st)
			for i, p := range plans {
				extra[p] = labels[i]
			}
		}
		st.Close()
		if err != nil {
			pb.Done()
			return err
		}
		if out.Stopped == autotune.StopInterrupted || g.ctx.Err() != nil {
			return interrupted()
		}
	}
	pb.Done()
	if err := c.writeReport(g, f, sp, command, extra, graphs, paths, key, version); err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "sweep %s: %d points x %d graphs in %.1f s (%d failed); results in %s\n",
		f.Name, len(sp.Plans), len(srcs), time.Since(start).Seconds(), failed, c.Out)
	return nil
}

// checkFlags rejects out-of-range flags.
func (c *SweepCmd) checkFlags() error {
	if c.ProfileTop < 0 || c.ProfileTop > 20 {
		return errorf(exitUsage, "sweep: --profile-top is 0..20 (ncu replays every kernel many times)")
	}
	if c.Runs < 1 || c.Warmup < 0 {
		return errorf(exitUsage, "sweep: --runs must be at least 1 and --warmup at least 0")
	}
	if c.SharedKiB < 1 || c.SlowMs <= 0 {
		return errorf(exitUsage, "sweep: --shared-kib must be at least 1 and --slow-ms above 0")
	}
	_, err := c.shard(nil)
	return err
}

// openSpace opens the GPU and expands the sweep's space for it; the caller
// closes the device.
func (c *SweepCmd) openSpace(g *Globals, f *sweep.File) (*cuda.Device, gpu.Compiler, *autotune.Space, error) {
	dev, comp, err := g.openGPU(c.GPUFlags)
	if err != nil {
		return nil, nil, nil, err
	}
	sp, err := f.Expand(executor.Target(dev.Facts(), ""))
	if err == nil {
		if why := sp.Refused(); why != "" { // the restrictions' or the filters' reasons
			err = fmt.Errorf("sweep %s: %s (--dry-run lists every point's)", f.Name, why)
		}
	}
	if err != nil {
		dev.Close()
		return nil, nil, nil, withCode(exitBadInput, err)
	}
	return dev, comp, sp, nil
}

// countCached is how many trials came from the store.
func countCached(trials []autotune.Trial) int {
	n := 0
	for _, tr := range trials {
		if tr.Result.Cached {
			n++
		}
	}
	return n
}

// writeReport writes the sweep's report from the stored rows, with the
// plans after() added and, when asked, an ncu profile.
func (c *SweepCmd) writeReport(g *Globals, f *sweep.File, sp *autotune.Space, command string, extra map[string]string, graphs []string, paths map[string]string, key, version string) error {
	rows, err := c.rows(g, sp, extra, graphs, key, version)
	if err != nil {
		return err
	}
	opt := c.reportOptions(f, sp, command)
	for p, label := range extra {
		opt.Labels[p] = label
	}
	if c.ProfileTop > 0 {
		prof, note := c.profile(g, rows, paths)
		opt.Profile = prof
		if note != "" {
			g.notice("sweep: %s", note)
			opt.Command += "\n# " + note
		}
	}
	return report.Write(c.Out, rows, opt)
}

// loadSource reads a file through the cache, or generates a graph
// (written once to the cache directory, so ncu's count can read it too).
func (c *SweepCmd) loadSource(g *Globals, src sweep.Source) (*loaded, string, error) {
	if src.Path != "" {
		l, err := g.load(GraphArg{Graph: src.Path, Format: "auto"})
		return l, src.Path, err
	}
	dir, err := g.cacheDir()
	if err != nil {
		return nil, "", err
	}
	// The label names every generator parameter (sweep.Sources), so one
	// file holds one graph.
	path := filepath.Join(dir, "graphs", fmt.Sprintf("sweep-%s.tcsr", src.Label))
	if _, err := os.Stat(path); err == nil {
		l, err := g.load(GraphArg{Graph: path, Format: "auto"})
		if err == nil {
			return l, path, nil
		}
	}
	if err := g.fits(src.Gen); err != nil {
		return nil, "", err
	}
	pb := newSpinner(g.Quiet, "generating "+src.Label)
	gr, _, err := graph.GenerateContext(g.ctx, src.Gen)
	pb.Done()
	if err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
		if err := graph.WriteCSROpt(path, gr, graph.CacheMeta{}, graph.WriteOptions{Context: g.ctx}); err != nil {
			g.notice("sweep: could not keep %s: %v", path, err)
		}
	}
	return &loaded{g: gr, rep: &graph.Report{}}, path, nil
}

// rows are the store's measurements of this sweep: its graphs and points,
// on this GPU with this tcgen (whichever command measured them).
func (c *SweepCmd) rows(g *Globals, sp *autotune.Space, extra map[string]string, graphs []string, key, version string) ([]store.Row, error) {
	// Rows of the sweep's kind: with the L2 flushed before each pass or not.
	st, err := g.openStore()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	plans := map[string]bool{}
	for _, p := range sp.Cands.Plans {
		plans[p] = true
	}
	for p := range extra {
		plans[p] = true
	}
	var out []store.Row
	for _, fp := range graphs {
		rs, err := st.Rows(store.Filter{Graph: fp, GPU: key, Version: version})
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if plans[r.Plan] && r.Flushed == c.FlushL2 {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

func (c *SweepCmd) reportOptions(f *sweep.File, sp *autotune.Space, command string) report.Options {
	opt := report.Options{
		Title:   "tcgen sweep " + f.Name,
		Presets: map[string]string{},
		Labels:  map[string]string{},
		Command: command + fmt.Sprintf(" --runs %d --warmup %d", c.Runs, c.Warmup),
	}
	if c.FlushL2 {
		opt.Command += " --flush-l2"
	}
	for i, p := range sp.Cands.Plans {
		label := sp.Labels[i]
		opt.Labels[p] = label
		if name, ok := strings.CutPrefix(label, "preset:"); ok {
			opt.Presets[p] = name
		}
	}
	return opt
}

// profile runs ncu over the fastest points.
func (c *SweepCmd) profile(g *Globals, rows []store.Row, paths map[string]string) ([]report.ProfileRow, string) {
	ncu, why := sweep.NCUPath()
	if ncu == "" {
		return nil, "--profile-top: " + why + "; no profile collected"
	}
	self, err := os.Executable()
	if err != nil {
		return nil, "--profile-top: " + err.Error()
	}
	ok := slices.DeleteFunc(slices.Clone(rows), func(r store.Row) bool { return r.Status != store.StatusOK })
	slices.SortStableFunc(ok, func(a, b store.Row) int { return cmpFloat(a.MedianMs, b.MedianMs) })
	tmp, err := os.MkdirTemp("", "tcgen-profile")
	if err != nil {
		return nil, "--profile-top: " + err.Error()
	}
	defer os.RemoveAll(tmp)
	var out []report.ProfileRow
	var notes []string
	for _, r := range ok[:min(c.ProfileTop, len(ok))] {
		p, err := ir.Parse([]byte(r.Spec), r.Plan)
		if err != nil {
			continue
		}
		y, _ := p.EncodeYAML()
		spec := filepath.Join(tmp, r.Plan+".yaml")
		if err := os.WriteFile(spec, y, 0o644); err != nil {
			continue
		}
		argv := sweep.ProfileCommand(ncu, []string{self, "-q", "--no-store", "count", paths[r.Graph], "--spec", spec,
			"--backend", "gpu", "--repeat", "1", "--warmup", "0"})
		cmd := exec.CommandContext(g.ctx, argv[0], argv[1:]...)
		data, err := cmd.Output()
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s on %s: ncu: %v", r.Plan, r.GraphName, err))
			continue
		}
		m, err := sweep.ParseCSV(strings.NewReader(string(data)))
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s on %s: %v", r.Plan, r.GraphName, err))
			continue
		}
		out = append(out, report.ProfileRow{GraphName: r.GraphName, Plan: r.Plan, Metrics: m})
	}
	return out, strings.Join(notes, "; ")
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// dryRun lists the graphs, the points and the culled points with their
// reasons; it compiles and runs nothing.
func (c *SweepCmd) dryRun(g *Globals, f *sweep.File) error {
	// A dry run reads no graph: the datasets may be elsewhere.
	srcs, err := f.DrySources(c.Datasets)
	if err != nil {
		return withCode(exitBadInput, err)
	}
	if srcs, err = c.shard(srcs); err != nil {
		return err
	}
	t := gen.DefaultTarget()
	t.MaxSharedPerBlock = c.SharedKiB << 10
	sp, err := f.Expand(t)
	if err != nil {
		return withCode(exitBadInput, err)
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "sweep\t%s: %d points x %d graphs = %d runs (%d culled)\n", f.Name, len(sp.Plans), len(srcs), len(sp.Plans)*len(srcs), len(sp.Cands.Culled))
	for _, s := range srcs {
		what := s.Path
		switch {
		case s.Note != "":
			what = s.Note
		case what == "":
			what = "generated " + describeGen(s.Gen)
		}
		exp := "CPU oracle"
		if s.Expect != nil {
			exp = fmt.Sprintf("expect %d", *s.Expect)
		}
		fmt.Fprintf(tw, "graph\t%s\t%s\t%s\n", s.Label, what, exp)
	}
	for i := range sp.Plans {
		fmt.Fprintf(tw, "run\t%s\t%s\n", sp.Cands.Plans[i], sp.Labels[i])
	}
	for _, cu := range sp.Cands.Culled {
		fmt.Fprintf(tw, "culled\t%s\t%s\n", cu.Label, cu.Reason)
	}
	return tw.Flush()
}
