package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"time"

	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// Compiling ahead on every core: NVRTC compiles one unit at a time per
// process (two goroutines of one process compiled no faster than one,
// NVRTC 11.8, while two processes took half the time), so tune and sweep
// compile the candidates they will measure in worker processes of this
// binary, each with NVRTC behind the same kernel cache; the measuring
// process then finds every kernel in the cache.

// compileWorkerCommand is the hidden command a worker runs (not a kong
// command: it has no help and takes requests on standard input).
const compileWorkerCommand = "__compile-worker"

// compileHello is a worker's first line: a process that does not print it
// (not this binary) is no worker, and the pool compiles in-process.
const compileHello = "tcgen compile worker 1"

// compileRequest is one line a worker reads: a plan and the facts of the
// device it is compiled for (executor.Target reads these three).
type compileRequest struct {
	Spec        string `json:"spec"`
	Major       int    `json:"major"`
	Minor       int    `json:"minor"`
	SharedOptin int    `json:"shared_optin"`
}

// compileReply is the line a worker answers with: the compile's error, ""
// when the kernels are in the cache.
type compileReply struct {
	Error string `json:"error"`
}

// runCompileWorker is the worker: __compile-worker --kernels DIR [--nvrtc
// PATH]; it compiles each request into the kernel cache DIR and answers it,
// until its standard input ends.
func runCompileWorker(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(compileWorkerCommand, flag.ContinueOnError)
	fs.SetOutput(stderr)
	kernels := fs.String("kernels", "", "kernel cache directory")
	nvrtc := fs.String("nvrtc", "", "libnvrtc.so")
	if err := fs.Parse(args); err != nil || *kernels == "" || fs.NArg() > 0 {
		fmt.Fprintf(stderr, "tcgen: %s --kernels DIR [--nvrtc PATH]: the compile worker tune and sweep start\n", compileWorkerCommand)
		return exitUsage
	}
	inner, err := cuda.NewCompiler(cuda.Options{NVRTCPath: *nvrtc})
	if err != nil {
		fmt.Fprintf(stderr, "tcgen: %v\n", err)
		return exitNoGPU
	}
	comp := &cuda.CachingCompiler{Inner: inner, Dir: *kernels,
		Warn: func(err error) { fmt.Fprintf(stderr, "tcgen: kernel cache: %v\n", err) }}
	err = serveCompiles(stdin, stdout, func(p ir.Plan, f gpu.DeviceFacts) error { return executor.Compile(comp, f, p, "") })
	if err != nil {
		fmt.Fprintf(stderr, "tcgen: %s: %v\n", compileWorkerCommand, err)
		return exitInternal
	}
	return exitOK
}

// serveCompiles writes the hello line, then answers each request of in
// with compile's outcome; it returns at the end of in, or when a line is
// not a request or out cannot be written.
func serveCompiles(in io.Reader, out io.Writer, compile func(ir.Plan, gpu.DeviceFacts) error) error {
	w := bufio.NewWriter(out)
	if _, err := fmt.Fprintln(w, compileHello); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20) // a plan is a few KiB
	for sc.Scan() {
		var req compileRequest
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			return fmt.Errorf("request: %w", err)
		}
		var reply compileReply
		p, err := ir.Parse([]byte(req.Spec), "request")
		if err == nil {
			err = compile(p, gpu.DeviceFacts{Major: req.Major, Minor: req.Minor, SharedOptin: req.SharedOptin})
		}
		if err != nil {
			reply.Error = err.Error()
		}
		b, _ := json.Marshal(reply)
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// compilePool compiles plans in worker processes, one compile at a time
// each. A worker that cannot start or stops answering sends its plans to
// local, the measuring process's own compiler, from then on.
type compilePool struct {
	ctx    context.Context
	argv   []string // the worker's command line
	facts  gpu.DeviceFacts
	stderr io.Writer
	local  func(ir.Plan) error
	// slots holds one entry per worker: the worker, or nil for one not
	// started yet (or retired); taking one is the right to compile.
	slots chan *compileWorker
	size  int

	mu     sync.Mutex
	broken error // why workers are not used any more
	all    []*compileWorker
}

type compileWorker struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// newCompilePool is a pool of size workers running argv.
func newCompilePool(ctx context.Context, argv []string, size int, facts gpu.DeviceFacts, stderr io.Writer, local func(ir.Plan) error) *compilePool {
	// The workers' stderr, where it is not a file, is copied by a
	// goroutine a worker: their writes are serialized.
	if _, file := stderr.(*os.File); !file {
		stderr = &lockedWriter{w: stderr}
	}
	p := &compilePool{ctx: ctx, argv: argv, facts: facts, stderr: stderr, local: local, size: size,
		slots: make(chan *compileWorker, size)}
	for range size {
		p.slots <- nil
	}
	return p
}

// lockedWriter is a writer that several goroutines share.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// compileWorkers is how many worker processes compile ahead: every core but
// the one the measuring process uses.
func compileWorkers() int { return max(runtime.NumCPU()-1, 1) }

// Compile compiles plan pl into the kernel cache, in a worker when one
// answers.
func (p *compilePool) Compile(pl ir.Plan) error {
	w := <-p.slots
	defer func() { p.slots <- w }()
	if w == nil && p.usable() {
		var err error
		if w, err = p.start(); err != nil {
			p.retire(nil, err)
		}
	}
	if w == nil {
		return p.local(pl)
	}
	spec, err := pl.Canonical().EncodeJSON()
	if err != nil {
		return err
	}
	reply, err := w.ask(compileRequest{Spec: string(spec), Major: p.facts.Major, Minor: p.facts.Minor, SharedOptin: p.facts.SharedOptin})
	if err != nil {
		if p.ctx.Err() != nil {
			return p.ctx.Err() // interrupted: the workers stopped with us
		}
		p.retire(w, err)
		w = nil
		return p.local(pl)
	}
	if reply.Error != "" {
		return errors.New(reply.Error)
	}
	return nil
}

func (p *compilePool) usable() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.broken == nil
}

// start runs a worker and reads its hello line.
func (p *compilePool) start() (*compileWorker, error) {
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Stderr = p.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w := &compileWorker{cmd: cmd, in: in, out: bufio.NewScanner(out)}
	w.out.Buffer(make([]byte, 64<<10), 16<<20)
	if !w.out.Scan() || w.out.Text() != compileHello {
		w.stop()
		return nil, fmt.Errorf("%s did not start as a compile worker", p.argv[0])
	}
	p.mu.Lock()
	p.all = append(p.all, w)
	p.mu.Unlock()
	return w, nil
}

// retire stops w (if any) and sends every later compile to the local
// compiler, saying why once.
func (p *compilePool) retire(w *compileWorker, why error) {
	if w != nil {
		w.stop()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken == nil {
		p.broken = why
		fmt.Fprintf(p.stderr, "tcgen: compile workers: %v; compiling in this process\n", why)
	}
}

// ask sends one request and reads its reply.
func (w *compileWorker) ask(req compileRequest) (compileReply, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return compileReply{}, err
	}
	if _, err := w.in.Write(append(b, '\n')); err != nil {
		return compileReply{}, err
	}
	if !w.out.Scan() {
		if err := w.out.Err(); err != nil {
			return compileReply{}, err
		}
		return compileReply{}, io.ErrUnexpectedEOF
	}
	var reply compileReply
	err = json.Unmarshal(w.out.Bytes(), &reply)
	return reply, err
}

// compileStopWait is how long a worker may take to finish its compile
// after its input closes: a cold compile of the largest plans takes about
// a second.
const compileStopWait = 5 * time.Second

// stop closes w's input (it exits after the compile under way) and waits
// for it, killing it past compileStopWait.
func (w *compileWorker) stop() {
	w.in.Close()
	done := make(chan struct{})
	go func() {
		w.cmd.Wait() //nolint:errcheck // its end, not its status, matters here
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(compileStopWait):
		w.cmd.Process.Kill() //nolint:errcheck // already gone is fine
		<-done
	}
}

// Close stops every worker.
func (p *compilePool) Close() {
	p.mu.Lock()
	all := p.all
	p.all = nil
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.stop()
		}()
	}
	wg.Wait()
}

// compileAhead is the evaluator's compiler of candidates ahead of their
// measurement, and how many it runs at once: a pool of worker processes
// when comp is NVRTC behind the kernel cache and this binary can run them,
// made once per command and stopped when it ends; nil, 0 otherwise.
func (g *Globals) compileAhead(comp gpu.Compiler, facts gpu.DeviceFacts) (func(ir.Plan) error, int) {
	cc, ok := comp.(*cuda.CachingCompiler)
	if !ok {
		return nil, 0
	}
	inner, ok := cc.Inner.(*cuda.Compiler)
	if !ok {
		return nil, 0
	}
	g.poolOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			return
		}
		argv := []string{exe, compileWorkerCommand, "--kernels", cc.Dir, "--nvrtc", inner.Path()}
		g.pool = newCompilePool(g.ctx, argv, compileWorkers(), facts, g.stderr,
			func(p ir.Plan) error { return executor.Compile(comp, facts, p, "") })
		g.atEnd(g.pool.Close)
	})
	if g.pool == nil {
		return nil, 0
	}
	return g.pool.Compile, g.pool.size
}
