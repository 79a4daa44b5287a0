package main

import (
	"bufio"
	"errors"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/tcgen/tcgen/graph"
)

// stdoutPath names standard output as an output file (-o -).
const stdoutPath = "-"

// writeOptions: outputs stop when the command is interrupted, and follow
// symbolic links only with --force.
func (g *Globals) writeOptions() graph.WriteOptions {
	return graph.WriteOptions{Context: g.ctx, FollowLinks: g.Force, Batch: g.batch}
}

// inBatch runs write, whose outputs then appear together when it succeeds
// and not at all when it fails (graph.Batch).
func (g *Globals) inBatch(write func() error) error {
	g.batch = &graph.Batch{}
	defer func() { g.batch = nil }()
	if err := write(); err != nil {
		g.batch.Abort()
		return err
	}
	return g.batch.Commit()
}

// writeAtomic streams write's output through graph.WriteFileAtomicOpt, so
// a failure or an interrupt leaves no partial output at path, and path is
// replaced only if it is a regular file (or nothing).
func (g *Globals) writeAtomic(path string, write func(w io.Writer) error) error {
	return graph.WriteFileAtomicOpt(path, g.writeOptions(), func(f *os.File) error {
		bw := bufio.NewWriterSize(graph.ContextWriter(g.ctx, f), 1<<20)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// checkOutput refuses an output path that cannot be written before any
// work is done (graph.CheckOutputPath); the write checks it again.
func (g *Globals) checkOutput(path string) error {
	if path == stdoutPath {
		return nil
	}
	_, _, err := graph.CheckOutputPath(path, g.Force)
	return err
}

// refuseInput refuses an output (named by flag) that is the file the
// command reads (what: "the input graph", "the tuning store"): writing it
// would replace it with what was read from it. Links and other spellings
// of the path are followed.
func refuseInput(cmd, flag, out, in, what string) error {
	if out == stdoutPath || in == stdoutPath || out == "" || in == "" {
		return nil
	}
	a, errA := os.Stat(out)
	b, errB := os.Stat(in)
	if errA == nil && errB == nil && os.SameFile(a, b) {
		return errorf(exitUsage, "%s: %s %s is %s; name another file", cmd, flag, out, what)
	}
	return nil
}

// outFormat is the format an output named path gets: format when given
// (--output-format), else the one its name implies (graph.OutputFormat;
// text for standard output).
func outFormat(path, format string) (string, bool) {
	f, gz := graph.OutputFormat(path)
	if path == stdoutPath {
		f, gz = "text", false
	}
	if format != "" && format != "auto" {
		f = format
	}
	return f, gz
}

// writeGraph writes gr to path (stdoutPath: standard output) in format
// (outFormat), a CSR file with meta; files are written atomically.
func (g *Globals) writeGraph(path, format string, gr *graph.Graph, meta graph.CacheMeta) error {
	format, gz := outFormat(path, format)
	switch {
	case format == "csr" && gz:
		return errorf(exitUsage, "%s: the CSR format is not gzipped; drop the .gz", path)
	case format == "npz" && gz:
		return errorf(exitUsage, "%s: .npz is a (compressed) zip already, which SciPy reads only so; drop the .gz", path)
	}
	if path == stdoutPath {
		return g.writeGraphStdout(format, gr, meta)
	}
	if format == "csr" {
		return graph.WriteCSROpt(path, gr, meta, g.writeOptions())
	}
	return graph.WriteEdgesFileOpt(path, gr, format, gz, g.writeOptions())
}

// writeGraphStdout writes gr to standard output: text formats anywhere,
// binary ones only where they do not land on a terminal.
func (g *Globals) writeGraphStdout(format string, gr *graph.Graph, meta graph.CacheMeta) error {
	if format != "text" && format != "mtx" && format != "adj" && isTerminal(g.stdout) {
		return errorf(exitUsage, "-o -: the %s format is binary and standard output is a terminal; redirect it, or name a file", format)
	}
	w := graph.ContextWriter(g.ctx, g.stdout)
	var err error
	if format == "csr" {
		err = graph.EncodeCSR(w, gr, meta)
	} else {
		err = graph.WriteEdges(w, gr, format)
	}
	if err != nil && g.ctx.Err() == nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return &graph.OutputError{Path: "standard output", Msg: "writing: " + pe.Err.Error(), Err: err}
		}
		return &graph.OutputError{Path: "standard output", Msg: err.Error(), Err: err}
	}
	return err
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// outputName is how notices name an output.
func outputName(path string) string {
	if path == stdoutPath {
		return "standard output"
	}
	return path
}
