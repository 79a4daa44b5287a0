package main

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/store"
)

// StoreCmd reads the tuning store.
type StoreCmd struct {
	Export StoreExportCmd `cmd:"" help:"Write measurements as JSON Lines (a tune --replay recording) or Kernel Tuner's T4 results format."`
	Best   StoreBestCmd   `cmd:"" help:"List each graph's best plan on each GPU: the one count runs (of the rows with the most passes, the fastest)."`
	Import StoreImportCmd `cmd:"" help:"Add measurements from JSON Lines files (store export's, or a recording such as autotune/testdata/transfer-*.jsonl.gz) to the store; rows it already holds are skipped."`
	Model  StoreModelCmd  `cmd:"" help:"Judge the plan model by leave-one-out (or leave-one-family-out, or leave-one-GPU-out) over the graphs tuned on every GPU (or one: --gpu)."`
}

// StoreFilter selects rows.
type StoreFilter struct {
	Graph string `help:"Only this graph (name or fingerprint)." placeholder:"NAME"`
	GPU   string `help:"Only this GPU key (as tcgen store best prints it)." placeholder:"KEY"`
	Space string `help:"Only points of this space or sweep." placeholder:"NAME"`
}

// rows reads the rows f selects: every measurement when history is set,
// else the newest of each key.
func (f StoreFilter) rows(g *Globals, history bool) ([]store.Row, error) {
	st, err := g.openExistingStore()
	if errors.Is(err, errNoStoreYet) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, errorf(exitUsage, "store: --no-store leaves nothing to read")
	}
	defer st.Close()
	rows, err := st.Rows(store.Filter{GPU: f.GPU, Space: f.Space, History: history})
	if err != nil {
		return nil, err
	}
	if f.Graph == "" {
		return rows, nil
	}
	var out []store.Row
	for _, r := range rows {
		if r.Graph == f.Graph || r.GraphName == f.Graph {
			out = append(out, r)
		}
	}
	return out, nil
}

// StoreExportCmd writes rows out.
type StoreExportCmd struct {
	StoreFilter
	Format string `help:"jsonl (one measurement per line, what tune --replay reads) or t4." enum:"jsonl,t4" default:"jsonl"`
	Output string `short:"o" help:"Write to FILE (default, or -: standard output); a name ending in .gz is gzip-compressed." placeholder:"FILE" type:"path"`
}

// Run implements the command.
func (c *StoreExportCmd) Run(g *Globals) error {
	if path, err := g.storePath(); err == nil && !g.NoStore {
		if err := refuseInput("store export", "-o", c.Output, path, "the tuning store"); err != nil {
			return err
		}
	}
	rows, err := c.rows(g, true) // history too: an export is the whole record
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		g.notice("store export: no measurements in the store match; the export is empty")
	}
	write := func(w io.Writer) error {
		if c.Format == "t4" {
			return store.WriteT4(w, rows)
		}
		return store.WriteJSON(w, rows)
	}
	if strings.HasSuffix(c.Output, ".gz") {
		plain := write
		write = func(w io.Writer) error {
			zw, _ := gzip.NewWriterLevel(w, gzip.BestCompression) // a valid level: no error
			if err := plain(zw); err != nil {
				return err
			}
			return zw.Close()
		}
	}
	if c.Output == "" || c.Output == stdoutPath {
		return write(g.stdout)
	}
	return g.writeAtomic(c.Output, write)
}

// StoreImportCmd adds other stores' exports and recordings to the store.
type StoreImportCmd struct {
	Files []string `arg:"" name:"file" help:"JSON Lines files, gzip-compressed or not (tcgen store export; another store: export it first)." type:"path"`
}

// Run implements the command. Every file is read before anything is
// added, so a bad file adds nothing.
func (c *StoreImportCmd) Run(g *Globals) error {
	var rows []store.Row
	for _, path := range c.Files {
		f, err := os.Open(path)
		if err != nil {
			return withCode(exitBadInput, err)
		}
		rs, err := store.ReadJSON(f, path)
		f.Close()
		if err != nil {
			return withCode(exitBadInput, err)
		}
		rows = append(rows, rs...)
	}
	st, err := g.openStore()
	if err != nil {
		return err
	}
	if st == nil {
		return errorf(exitUsage, "store import: --no-store leaves nowhere to import into")
	}
	defer st.Close()
	added, err := st.Import(rows)
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "%d measurements read, %d added to %s (%d already there)\n", len(rows), added, st.Path(), len(rows)-added)
	return nil
}

// StoreBestCmd lists the best plans.
type StoreBestCmd struct {
	StoreFilter
	JSON bool `help:"Print as JSON."`
}

// Run implements the command: for each graph and GPU the filter selects,
// the plan count runs there (store.Best) among the rows with a code hash.
// (count also checks that hash against the code it generates for the
// device, which this command, without one, cannot.)
func (c *StoreBestCmd) Run(g *Globals) error {
	rows, err := c.rows(g, false)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return c.print(g, nil)
	}
	st, err := g.openExistingStore()
	if err != nil {
		return err
	}
	defer st.Close()
	withCode := func(store.Row) bool { return true } // Best skips rows without a hash
	type key struct{ graph, gpu string }
	best := map[key]store.Row{}
	var order []key
	for _, r := range rows {
		k := key{r.Graph, r.GPU}
		if _, seen := best[k]; seen || r.Status != store.StatusOK {
			continue
		}
		b, _, ok, err := st.Best(r.Graph, r.GPU, withCode)
		if err != nil {
			return err
		}
		if ok {
			best[k] = b
			order = append(order, k)
		}
	}
	out := make([]store.Row, 0, len(order))
	for _, k := range order {
		out = append(out, best[k])
	}
	return c.print(g, out)
}

// print lists the best rows, as JSON or a table.
func (c *StoreBestCmd) print(g *Globals, best []store.Row) error {
	if c.JSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(append([]store.Row{}, best...)) // [] for none
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "graph\tfingerprint\tgpu\tplan\tmedian ms\truns\tversion")
	for _, r := range best {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.4f\t%d\t%s\n", r.GraphName, r.Graph, r.GPU, r.Plan, r.MedianMs, r.Runs, r.Version)
	}
	return tw.Flush()
}

// StoreModelCmd runs the leave-one-out evaluation.
type StoreModelCmd struct {
	GPU string `xor:"gpu" help:"The GPU key whose measurements train the model (default: every GPU's, each graph judged on each GPU it was measured on)." placeholder:"KEY"`
	K   int    `help:"Neighbours that vote." default:"3"`
	// Families is the evaluation docs/tuning.md reports on the transfer sweep.
	Families bool `xor:"mode" help:"Leave each graph's whole family out (the family is the sweep label's generator: rmat, er, grid, road, rgg, ws, sbm, ba, cl; real for datasets and files), run the default plan where the model is not confident, as count does, and judge graphs of 0.1 ms or more."`
	GPUs     bool `name:"gpus" xor:"mode,gpu" help:"Leave each GPU out in turn: its graphs are predicted from the other GPUs' measurements (the same graphs included, placed by the GPUs' facts), the default plan runs where the model is not confident, and graphs of 0.1 ms or more are judged. Not with --gpu."`
	JSON     bool `help:"Print as JSON."`
}

// Run implements the command.
func (c *StoreModelCmd) Run(g *Globals) error {
	rows, err := StoreFilter{GPU: c.GPU}.rows(g, false)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return errorf(exitBadInput, "store model: the tuning store holds no measurements yet; tune (tcgen tune, tcgen sweep) at least 2 graphs on a GPU first")
	}
	var rep autotune.LeaveOneOutReport
	what := "leave-one-out"
	if c.Families || c.GPUs {
		def, err := defaultPlan()
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(rows, func(r store.Row) bool { return r.Plan == def.Name() }) {
			g.notice("store model: no measurement of this build's default plan %s: where the model is not confident its own pick is judged instead (sweep the graphs with examples/spaces/model.yaml)", def.Name())
		}
		if c.GPUs {
			known := map[string]bool{}
			for _, r := range rows {
				if autotune.RowGPU(r).Known() {
					known[r.GPU] = true
				}
			}
			if len(known) < 2 {
				return errorf(exitBadInput, "store model --gpus: %d GPUs with their facts recorded (L2, shared memory, bandwidth: rows of tuning store schema 5), need 2: tune or sweep the graphs on another GPU with this store", len(known))
			}
			rep, what = autotune.LeaveOneGPUOut(rows, c.K, def.Name()), "leave-one-GPU-out"
		} else {
			rep, what = autotune.LeaveOneFamilyOut(rows, c.K, def.Name()), "leave-one-family-out"
		}
	} else {
		rep = autotune.LeaveOneOut(rows, c.K)
	}
	gpus := c.GPU
	if gpus == "" {
		gpus = "every GPU"
	}
	if len(rep.Rows) < 2 {
		return errorf(exitBadInput, "store: %d graphs tuned on %s; leave-one-out needs at least 2", len(rep.Rows), gpus)
	}
	if c.JSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	if c.GPUs {
		gpus += ", each left out in turn"
	}
	fmt.Fprintf(tw, "gpu\t%s\n\n", gpus)
	fmt.Fprintln(tw, "graph\tfamily\tgpu\tpredicted\tdistance\tms\tbest\tms\tpredicted/best\tfixed/best")
	for _, r := range rep.Rows {
		pred := r.Predicted
		if r.Fallback {
			pred += " (not confident: default)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%.4f\t%s\t%.4f\t%.3f\t%.3f\n", r.Graph, r.Family, r.GPU, pred, r.Distance, r.PredictedMs, r.BestPlan, r.BestMs, r.Ratio, r.FixedRatio)
	}
	judged := "every graph"
	if rep.MinMs > 0 {
		judged = fmt.Sprintf("the %d graphs of %g ms or more", rep.Graphs, rep.MinMs)
	}
	fmt.Fprintf(tw, "\nmodel\tmedian %.3f, 90th percentile %.3f, geometric mean %.3f, worst %.3f (predicted / tuned best, %s, %s)\n", rep.Median, rep.P90, rep.Geomean, rep.Worst, what, judged)
	fmt.Fprintf(tw, "fixed\t%s: median %.3f, 90th percentile %.3f, geometric mean %.3f, worst %.3f (the one plan best over them)\n", rep.FixedPlan, rep.FixedMedian, rep.FixedP90, rep.FixedGeo, rep.FixedWorst)
	return tw.Flush()
}
