// Command tcgen generates, compiles, runs and tunes specialized CUDA kernels
// for exact triangle counting, and counts triangles exactly on the CPU.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/runtime/nvml"
)

// Globals are flags every command takes.
type Globals struct {
	CacheDir string `help:"Directory for tcgen's caches (converted graphs, compiled kernels). Default: the user cache directory + /tcgen." placeholder:"DIR"`
	NoCache  bool   `help:"Neither read nor write the graph cache."`
	Quiet    bool   `short:"q" help:"No progress bars or notices on stderr."`
	Store    string `help:"Tuning store file (SQLite; default: the user data dir + /tcgen/tuning.db). Carry it between machines to resume a tune or sweep." placeholder:"FILE" type:"path"`
	NoStore  bool   `help:"Neither read nor write the tuning store."`
	// MemoryLimit bounds the host memory reading or generating a graph may
	// take; past it tcgen refuses with exit code 6 before allocating.
	MemoryLimit string `help:"Most host memory a graph may take, as bytes or with a suffix K, M, G, T (powers of 1024: 8G, 512M), or none. Default: what the machine has available now (MemAvailable, the memory cgroup's limit, ulimit -v)." placeholder:"BYTES"`
	Force       bool   `help:"Write an output that is a symbolic link through the link (its target is replaced, the link kept); without it links are refused. Devices, FIFOs and directories are never replaced."`
	// VersionFlag is --version (the version command's field has the name).
	VersionFlag kong.VersionFlag `name:"version" help:"Print tcgen's version and exit."`

	ctx    context.Context
	stdout io.Writer
	stderr io.Writer

	memOnce sync.Once
	mem     graph.MemoryLimit
	memErr  error

	poolOnce sync.Once
	pool     *compilePool // compilepool.go
	nvmlOnce sync.Once
	nvml     *nvml.Session // clocks.go
	nvmlErr  error
	endMu    sync.Mutex
	ends     []func()     // run after the command, last first
	batch    *graph.Batch // while set, outputs wait for each other (inBatch, output.go)
}

// atEnd runs f when the command ends (worker processes, NVML).
func (g *Globals) atEnd(f func()) {
	g.endMu.Lock()
	defer g.endMu.Unlock()
	g.ends = append(g.ends, f)
}

// end runs what atEnd registered, last first.
func (g *Globals) end() {
	g.endMu.Lock()
	ends := g.ends
	g.ends = nil
	g.endMu.Unlock()
	for i := len(ends) - 1; i >= 0; i-- {
		ends[i]()
	}
}

// CLI is the command tree: one struct per command, each with Run.
type CLI struct {
	Globals

	Count      CountCmd      `cmd:"" help:"Count the triangles of a graph."`
	Stats      StatsCmd      `cmd:"" help:"Print a graph's size, degree statistics and features."`
	Convert    ConvertCmd    `cmd:"" help:"Convert a graph to tcgen's binary CSR format."`
	Graph      GraphCmd      `cmd:"" help:"Generate a synthetic graph (RMAT, Erdos-Renyi, grid, closed forms, Barabasi-Albert, Watts-Strogatz, geometric, Chung-Lu, block model, road-like)."`
	Cuda       CudaCmd       `cmd:"" help:"Write a plan's generated CUDA source and launch manifest."`
	List       ListCmd       `cmd:"" help:"List the presets and every dimension of the design space."`
	Devices    DevicesCmd    `cmd:"" help:"List the GPUs and their facts."`
	StoreCmd   StoreCmd      `cmd:"" name:"store" help:"Export the tuning store, list its best plans, judge its model."`
	Bench      BenchCmd      `cmd:"" help:"Run the fixed, versioned benchmark: every preset, the default and each graph's tuned plan on the shared datasets and RMAT 16-24."`
	Sweep      SweepCmd      `cmd:"" help:"Run a declared part of the design space over a set of graphs: verified timings, tables, plots, report."`
	Tune       TuneCmd       `cmd:"" help:"Search a space of plans for the fastest exact one on a graph and this GPU, through the tuning store."`
	Report     ReportCmd     `cmd:"" help:"Write a sweep's or bench's report and plots again from its results.jsonl (no GPU)."`
	Fuzz       FuzzCmd       `cmd:"" help:"Check random valid plans on random graphs against the CPU oracle (on the GPU; without one, generate and compile them)."`
	Version    VersionCmd    `cmd:"" help:"Print tcgen's version."`
	Help       HelpCmd       `cmd:"" help:"Show the help of a command (tcgen help graph rmat)."`
	Completion CompletionCmd `cmd:"" help:"Print a shell completion script (bash, zsh or fish)."`
}

// VersionCmd prints the version.
type VersionCmd struct{}

// Run implements the command.
func (c *VersionCmd) Run(g *Globals) error {
	fmt.Fprintln(g.stdout, versionLine())
	return nil
}

// setToolVersion tells package graph which build writes its caches, once
// (tests run commands in parallel).
var setToolVersion = sync.OnceFunc(func() { graph.ToolVersion = toolVersion() })

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args and runs one command; it returns the exit code.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		// Nothing crashes with a Go panic in front of a user: report it as
		// an internal error with the stack for the bug report.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "tcgen: internal error: %v\n%s", r, debug.Stack())
			code = exitInternal
		}
	}()
	setToolVersion()
	if gpuCount(args) {
		// The driver's start beside the command line's and the plan's
		// parsing: count's own cuda.Start finds it done (or reports why not).
		// A cgo build has started it before the runtime (early_cgo.go); this
		// call then waits for that one.
		go func() { _ = cuda.Init() }()
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	finished := make(chan struct{})
	defer close(finished)
	go watchInterrupt(sigs, cancel, finished, stderr, os.Exit)

	var cli CLI
	cli.ctx, cli.stdout, cli.stderr = ctx, stdout, stderr
	parser, err := newParser(&cli, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "tcgen: internal error: %v\n", err)
		return exitInternal
	}
	if len(args) > 0 && args[0] == completeCommand {
		return complete(parser, args[1:], stdout)
	}
	if len(args) > 0 && args[0] == compileWorkerCommand {
		return runCompileWorker(args[1:], os.Stdin, stdout, stderr)
	}
	kctx, code, done := parse(parser, joinNegativeValues(parser.Model, args))
	if done {
		return code
	}
	cli.removeStaleTemps()
	err = kctx.Run(&cli.Globals)
	cli.end()
	if ctx.Err() != nil {
		// Interrupted: whatever the command made of it (a read error, a
		// half-built graph), the user asked it to stop.
		err = ctx.Err()
	}
	if err != nil {
		code, msg := exitCode(err), errorLine(err)
		switch code {
		case exitInterrupted:
			fmt.Fprintln(stderr, "tcgen: interrupted")
		case exitUsage:
			fmt.Fprintf(stderr, "tcgen: %s\n%s\n", msg, usageHint(kctx.Selected()))
		default:
			fmt.Fprintf(stderr, "tcgen: %s\n", msg)
		}
		return code
	}
	return exitOK
}

// gpuCount reports whether args look like a count that may use the GPU:
// "count" among them and no CPU backend. A wrong guess costs a driver
// start in the background, or its wait in count.
func gpuCount(args []string) bool {
	count := false
	for i, a := range args {
		switch {
		case a == "--":
			return count
		case a == "count":
			count = true
		case a == "--backend=cpu", a == "--backend" && i+1 < len(args) && args[i+1] == "cpu":
			return false
		}
	}
	return count
}

// newParser is kong's parser of the command tree.
func newParser(cli *CLI, stdout, stderr io.Writer) (*kong.Kong, error) {
	return kong.New(cli,
		kong.Name("tcgen"),
		kong.Description("Generate, compile, run and tune CUDA kernels for exact triangle counting.\n\n"+exitCodesHelp),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { panic(kongExit(c)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Help(helpPrinter),
		kong.Vars(cliVars()),
	)
}

// kongExit is how kong's exit (after --help or --version) reaches run
// without leaving the process.
type kongExit int

func parse(parser *kong.Kong, args []string) (kctx *kong.Context, code int, done bool) {
	defer func() {
		if r := recover(); r != nil {
			c, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			kctx, code, done = nil, int(c), true
			if code == 1 { // kong's own failure code means a usage error
				code = exitUsage
			}
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		// The error and where the help is, on stderr: stdout stays empty
		// for whatever reads it.
		var sel *kong.Node
		var pe *kong.ParseError
		if errors.As(err, &pe) && pe.Context != nil {
			sel = pe.Context.Selected()
		}
		fmt.Fprintf(parser.Stderr, "tcgen: %s\n%s\n", parseMessage(err), usageHint(sel))
		return nil, exitUsage, true
	}
	return kctx, 0, false
}

// cliVars feeds enum values into flag help so help never drifts from the code.
func cliVars() kong.Vars {
	return kong.Vars{
		"version":    versionLine(),
		"formats":    "auto," + strings.Join(graph.Formats, ","),
		"presets":    strings.Join(ir.PresetNames(), ", "),
		"specs":      strings.Join(examples.Names(examples.Plans), ", "),
		"spaces":     strings.Join(examples.Names(examples.Spaces), ", "),
		"sweeps":     strings.Join(examples.Names(examples.Sweeps), ", "),
		"strategies": strings.Join(autotune.StrategyNames(), ","),
	}
}

// notice prints a line on stderr unless --quiet.
func (g *Globals) notice(format string, args ...any) {
	if g.Quiet {
		return
	}
	fmt.Fprintf(g.stderr, format+"\n", args...)
}
