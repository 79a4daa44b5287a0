package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// envTestWorker makes this test binary a compile worker whose compiles
// succeed unless the plan's prefix is "bad" (TestMain).
const envTestWorker = "TCGEN_TEST_COMPILE_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(envTestWorker) == "1" {
		err := serveCompiles(os.Stdin, os.Stdout, func(p ir.Plan, f gpu.DeviceFacts) error {
			if p.Prefix == "bad" {
				return fmt.Errorf("plan %s does not compile for sm_%d%d", p.Prefix, f.Major, f.Minor)
			}
			return nil
		})
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func poolPlan(t *testing.T, prefix string) ir.Plan {
	t.Helper()
	p, err := ir.Parse([]byte("prefix: "+prefix+"\nclasses:\n  - {name: all, select: {key: outdeg, lo: 0}, iterator: edge, intersection: merge}\n"), "plan")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The serving loop: a hello line, then one reply per request, the
// compile's error or "", with the device's facts passed through.
func TestServeCompiles(t *testing.T) {
	var got []gpu.DeviceFacts
	in := `{"spec":"prefix: a\nclasses:\n  - {iterator: edge, intersection: merge}\n","major":9,"minor":0,"shared_optin":232448}
{"spec":"prefix: [","major":9}
`
	var out bytes.Buffer
	err := serveCompiles(strings.NewReader(in), &out, func(p ir.Plan, f gpu.DeviceFacts) error {
		got = append(got, f)
		return errors.New("no\nnewline escapes")
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 || lines[0] != compileHello || lines[1] != `{"error":"no\nnewline escapes"}` || !strings.HasPrefix(lines[2], `{"error":"request:`) {
		t.Errorf("replies %q", lines)
	}
	if len(got) != 1 || got[0] != (gpu.DeviceFacts{Major: 9, SharedOptin: 232448}) {
		t.Errorf("facts %+v", got)
	}
	if err := serveCompiles(strings.NewReader("not json\n"), &out, nil); err == nil {
		t.Error("a line that is not a request was accepted")
	}
}

// The pool compiles in worker processes (this test binary as a worker),
// at most size at once, each error reaching the plan that caused it; a
// command that is no worker sends every compile to the local compiler,
// with one notice.
func TestCompilePool(t *testing.T) {
	t.Setenv(envTestWorker, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var local atomic.Int64
	localCompile := func(ir.Plan) error { local.Add(1); return nil }
	var stderr bytes.Buffer
	p := newCompilePool(context.Background(), []string{exe}, 3, gpu.DeviceFacts{Major: 9}, &stderr, localCompile)
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for k := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prefix := "good"
			if k == 4 {
				prefix = "bad"
			}
			errs[k] = p.Compile(poolPlan(t, prefix))
		}()
	}
	wg.Wait()
	for k, err := range errs {
		if k == 4 && (err == nil || err.Error() != "plan bad does not compile for sm_90") || k != 4 && err != nil {
			t.Errorf("compile %d: %v", k, err)
		}
	}
	if n := len(p.all); n < 1 || n > 3 || local.Load() != 0 || stderr.Len() != 0 {
		t.Errorf("%d workers started (want 1..3), %d local compiles, stderr %q", n, local.Load(), stderr.String())
	}
	workers := p.all
	p.Close()
	for _, w := range workers {
		if w.cmd.ProcessState == nil || !w.cmd.ProcessState.Success() {
			t.Errorf("worker %d after Close: %v", w.cmd.Process.Pid, w.cmd.ProcessState)
		}
	}

	noWorker := newCompilePool(context.Background(), []string{"/bin/echo", "hello"}, 2, gpu.DeviceFacts{}, &stderr, localCompile)
	for range 3 {
		if err := noWorker.Compile(poolPlan(t, "good")); err != nil {
			t.Fatal(err)
		}
	}
	noWorker.Close()
	if local.Load() != 3 || strings.Count(stderr.String(), "compiling in this process") != 1 {
		t.Errorf("%d local compiles, stderr %q", local.Load(), stderr.String())
	}
}

// countingCompiler stands in for NVRTC behind the kernel cache.
type countingCompiler struct{ n atomic.Int64 }

func (c *countingCompiler) Compile(in gpu.CompileInput) (gpu.Image, error) {
	c.n.Add(1)
	return gpu.Image{Kind: "ptx", Data: []byte("// " + in.Name)}, nil
}
func (c *countingCompiler) Version() (int, int) { return 12, 8 }

// A plan a worker compiled (sent as its canonical JSON) is found in the
// kernel cache by the measuring process's compile of the plan itself:
// every point of a sample of the large space, pivot plans among them.
func TestCompileWorkerCacheHits(t *testing.T) {
	sf, err := autotune.LoadSpace("../../examples/spaces/large.yaml")
	if err != nil {
		t.Fatal(err)
	}
	facts := gpu.DeviceFacts{Major: 9, SharedOptin: autotune.MaxSharedOptin}
	sp, err := sf.Expand(executor.Target(facts, ""))
	if err != nil {
		t.Fatal(err)
	}
	inner := &countingCompiler{}
	cache := &cuda.CachingCompiler{Inner: inner, Dir: t.TempDir()}
	var req strings.Builder
	var plans []ir.Plan
	for i := 0; i < len(sp.Plans); i += len(sp.Plans) / 25 {
		spec, err := sp.Plans[i].Canonical().EncodeJSON()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&req, `{"spec":%q,"major":9,"minor":0,"shared_optin":%d}`+"\n", spec, facts.SharedOptin)
		plans = append(plans, sp.Plans[i])
	}
	var out bytes.Buffer
	if err := serveCompiles(strings.NewReader(req.String()), &out, func(p ir.Plan, f gpu.DeviceFacts) error {
		return executor.Compile(cache, f, p, "")
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Count(out.String(), `{"error":""}`) != len(plans) {
		t.Fatalf("worker replies: %s", out.String())
	}
	compiled := inner.n.Load()
	for _, p := range plans {
		if err := executor.Compile(cache, facts, p, ""); err != nil {
			t.Fatal(err)
		}
	}
	if inner.n.Load() != compiled {
		t.Errorf("%d of %d plans compiled again after the worker compiled them", inner.n.Load()-compiled, len(plans))
	}
}
