package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// PlanArg selects a plan: a preset or a spec file.
type PlanArg struct {
	Preset string `help:"Preset plan (${presets})." placeholder:"NAME" xor:"plan"`
	Spec   string `help:"Plan spec file (YAML or JSON), or the name of a built-in example (${specs}) when no such file exists." placeholder:"FILE" xor:"plan"`
}

// plan returns the selected plan, or the default plan when none is given.
func (a PlanArg) plan() (ir.Plan, error) {
	switch {
	case a.Spec != "":
		var p ir.Plan
		var err error
		if fsys, name := exampleFile(examples.Plans, a.Spec); fsys != nil {
			data, rerr := fs.ReadFile(fsys, name)
			if rerr != nil {
				return ir.Plan{}, rerr
			}
			p, err = ir.ParseValid(data, builtIn(name))
		} else {
			p, err = ir.Load(name)
		}
		if err != nil {
			return ir.Plan{}, withCode(exitBadInput, withExamples(examples.Plans, err))
		}
		return p, nil
	case a.Preset != "":
		p, ok := ir.Preset(a.Preset)
		if !ok {
			return ir.Plan{}, errorf(exitUsage, "unknown preset %q (presets: %s)", a.Preset, strings.Join(ir.PresetNames(), ", "))
		}
		return p, nil
	}
	return defaultPlan()
}

// defaultPlan is the plan count runs when none is given and neither the
// tuning store nor the model knows better: examples/default.yaml
// (embedded), a design picked by the graph's shape (docs/performance.md,
// "The default plan"). Whatever needs "the default" (count, the plans a
// tune measures first) asks here, not the file.
func defaultPlan() (ir.Plan, error) { return examples.Default() }

// CudaCmd writes a plan's CUDA source and launch manifest.
type CudaCmd struct {
	PlanArg
	Output    string `short:"o" required:"" help:"Directory to write NAME.cu, NAME.json and the header tcgen.cuh into (created if missing)." placeholder:"DIR" type:"path"`
	Arch      string `default:"compute_90" help:"Target architecture recorded in the manifest (the source is the same for every architecture)."`
	SharedKiB int    `name:"shared-kib" default:"99" help:"Most shared memory per block the target allows, in KiB (99: the smallest opt-in limit of compute 8.x and 9.0)."`
}

// Run implements the command.
func (c *CudaCmd) Run(g *Globals) error {
	if c.SharedKiB < 1 {
		return errorf(exitUsage, "cuda: --shared-kib must be at least 1, got %d", c.SharedKiB)
	}
	p, err := c.plan()
	if err != nil {
		return err
	}
	t := gen.DefaultTarget()
	t.Arch = c.Arch
	// The smallest dynamic shared-memory opt-in of compute 8.x/9.0 GPUs, so
	// hash plans that need more than the static 48 KiB still generate.
	t.MaxSharedPerBlock = c.SharedKiB << 10
	out, err := gen.Generate(p, t)
	if err != nil {
		return withCode(exitBadInput, err)
	}
	undo, err := outputDir(c.Output)
	if err != nil {
		return err
	}
	man, err := json.MarshalIndent(out.Manifest, "", "  ")
	if err != nil {
		undo()
		return err
	}
	cu := filepath.Join(c.Output, out.FileName)
	js := strings.TrimSuffix(cu, ".cu") + ".json"
	files := [][2]string{{cu, out.Source}, {js, string(man) + "\n"}} // path, text
	// The headers the source includes (tcgen.cuh), so the directory compiles.
	for _, name := range slices.Sorted(maps.Keys(out.Headers)) {
		files = append(files, [2]string{filepath.Join(c.Output, name), out.Headers[name]})
	}
	err = g.inBatch(func() error {
		for _, f := range files {
			if err := g.writeFile(f[0], []byte(f[1])); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		undo()
		return err
	}
	for _, f := range files {
		fmt.Fprintln(g.stdout, f[0])
	}
	return nil
}

// ListCmd lists presets and the design space.
type ListCmd struct {
	JSON bool `help:"Print as JSON."`
}

// Run implements the command.
func (c *ListCmd) Run(g *Globals) error {
	presets := ir.Presets()
	dims := ir.Dimensions()
	if c.JSON {
		type presetRow struct {
			Name     string `json:"name"`
			Plan     string `json:"plan"`
			Generate bool   `json:"generatable"`
			Doc      string `json:"doc"`
		}
		var rows []presetRow
		for _, p := range presets {
			rows = append(rows, presetRow{p.Prefix, p.Name(), gen.Check(p) == nil, p.Doc})
		}
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"presets": rows, "dimensions": dims, "examples": map[string][]string{
			"specs": examples.Names(examples.Plans), "spaces": examples.Names(examples.Spaces), "sweeps": examples.Names(examples.Sweeps)}})
	}
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PRESET\tPLAN\tGENERATED\tDESCRIPTION")
	for _, p := range presets {
		ok := "yes"
		if gen.Check(p) != nil {
			ok = "not yet"
		}
		doc, _, _ := strings.Cut(p.Doc, "\n")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Prefix, p.Name(), ok, doc)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(g.stdout, "\nBUILT-IN EXAMPLES (by name: --spec NAME, --space NAME, tcgen sweep NAME)")
	for _, k := range []string{examples.Plans, examples.Spaces, examples.Sweeps} {
		fmt.Fprintf(g.stdout, "%s: %s\n", kindName(k), strings.Join(examples.Names(k), ", "))
	}
	fmt.Fprintln(g.stdout, "\nDESIGN SPACE")
	for _, d := range dims {
		fmt.Fprintf(g.stdout, "\n%s: %s", d.Name, d.Range)
		if d.Default != "" {
			fmt.Fprintf(g.stdout, " (default %s)", d.Default)
		}
		fmt.Fprintln(g.stdout)
		if len(d.AppliesTo) > 0 {
			fmt.Fprintf(g.stdout, "  applies to: %s\n", strings.Join(d.AppliesTo, ", "))
		}
		if d.Doc != "" {
			fmt.Fprintf(g.stdout, "  %s\n", d.Doc)
		}
		if d.Source != "" {
			fmt.Fprintf(g.stdout, "  default from: %s\n", d.Source)
		}
	}
	return nil
}

// writeFile is writeFileAtomic with the command's options (--force, the
// interrupt).
func (g *Globals) writeFile(path string, data []byte) error {
	return g.writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// outputDir makes dir, an output directory, if missing; anything else than
// a directory there is refused as a bad output path. undo removes the
// directories it made, for a command that then fails (those still empty).
func outputDir(dir string) (undo func(), err error) {
	if dir == stdoutPath {
		return nil, errorf(exitUsage, "-o -: this command writes several files; name a directory")
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, &graph.OutputError{Path: dir, Msg: "is a file, not a directory; this command writes several files into a directory"}
	}
	var made []string // the missing directories, deepest first
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		made = append(made, d)
	}
	undo = func() {
		for _, d := range made {
			os.Remove(d)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		undo()
		var pe *os.PathError
		msg := err.Error()
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
			if pe.Path != dir {
				msg = pe.Path + ": " + msg
			}
		}
		return nil, &graph.OutputError{Path: dir, Msg: "cannot make the directory: " + msg, Err: err}
	}
	return undo, nil
}

// writeFileAtomic writes data to path through a temporary file and rename.
func writeFileAtomic(path string, data []byte) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomic streams write's output through graph.WriteFileAtomic, so a
// failure leaves no partial output at path.
func writeAtomic(path string, write func(w io.Writer) error) error {
	return graph.WriteFileAtomic(path, func(f *os.File) error {
		bw := bufio.NewWriterSize(f, 1<<20)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}
