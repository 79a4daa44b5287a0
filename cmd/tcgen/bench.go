package main

import (
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/store"
	"github.com/tcgen/tcgen/sweep"
)

// benchSweep is the fixed, versioned sweep bench runs (embedded).
const benchSweep = "sweeps/bench.yaml"

// BenchCmd runs the fixed benchmark: every preset and the default plan, plus
// each graph's tuned plan from the store, on the shared datasets and RMAT
// 16-24; its report belongs in docs/results/ for each GPU.
type BenchCmd struct {
	GPUFlags
	SearchFlags
	Datasets   string  `help:"Directory of the shared datasets (MANIFEST.tsv)." env:"TCGEN_DATASETS" default:"../shared/datasets" type:"path" placeholder:"DIR"`
	Out        string  `help:"Directory for the report (default: docs/results/<sweep version>-<gpu>)." type:"path" placeholder:"DIR"`
	DryRun     bool    `help:"List the graphs and plans; run nothing."`
	ProfileTop int     `help:"Profile the N fastest points with Nsight Compute (clocks left alone), at most 20." placeholder:"N"`
	SlowMs     float64 `help:"A point whose verifying pass takes longer than this many ms is timed with 3 runs." default:"2000"`
}

// Run implements the command.
func (c *BenchCmd) Run(g *Globals) error {
	f, err := sweep.LoadFS(examples.FS, benchSweep)
	if err != nil {
		return fmt.Errorf("the built-in bench sweep: %w", err) // a build defect: tests load it
	}
	sc := &SweepCmd{GPUFlags: c.GPUFlags, SearchFlags: c.SearchFlags, Datasets: c.Datasets, Out: c.Out,
		DryRun: c.DryRun, ProfileTop: c.ProfileTop, SlowMs: c.SlowMs, SharedKiB: 227}
	if c.Out == "" && !c.DryRun {
		dev, _, err := g.openGPU(c.GPUFlags)
		if err != nil {
			return err
		}
		sc.Out = filepath.Join("docs", "results", f.Name+"-"+slug(dev.Facts().Name))
		dev.Close()
	}
	return sc.run(g, f, "tcgen bench", c.tuned)
}

// tuned measures the graph's best plan in the store when the sweep's plans
// do not include it, labelled "tuned: ...".
func (c *BenchCmd) tuned(l *loaded, ev *autotune.GPU, st *store.Store) ([]string, []string, error) {
	row, _, ok, err := st.Best(ev.Base.Graph, ev.Base.GPU, autotune.CodeMatcher(ev.Dev.Facts()))
	if err != nil || !ok {
		return nil, nil, err
	}
	for _, p := range ev.Space.Cands.Plans {
		if p == row.Plan {
			return nil, nil, nil // a preset or the default is the best known
		}
	}
	p, err := ir.Parse([]byte(row.Spec), "the tuning store's plan "+row.Plan)
	if err != nil {
		return nil, nil, nil // a row from another version tcgen cannot read: nothing tuned to add
	}
	label := "tuned: " + p.Prefix
	sp := autotune.PlansSpace(ev.Space.Cands.Name, []ir.Plan{p}, []string{label}, executor.Target(ev.Dev.Facts(), ""))
	if len(sp.Plans) == 0 {
		return nil, nil, nil
	}
	strat, _ := autotune.StrategyByName("exhaustive")
	if _, err := autotune.Run(ev.Ctx, &sp.Cands, strat, ev.WithSpace(sp), autotune.Options{Runs: c.Runs}); err != nil {
		return nil, nil, err
	}
	return []string{sp.Cands.Plans[0]}, []string{label}, nil
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// slug makes a GPU name a file name part: "NVIDIA H200" -> "nvidia-h200".
func slug(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}
