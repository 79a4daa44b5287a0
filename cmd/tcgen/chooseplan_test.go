package main

import (
	"bytes"
	"context"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/store"
)

type fakeCompiler struct{}

func (fakeCompiler) Compile(gpu.CompileInput) (gpu.Image, error) { return gpu.Image{}, nil }
func (fakeCompiler) Version() (int, int)                         { return 13, 0 }

func TestChoosePlan(t *testing.T) {
	gr, _, err := graph.Generate(graph.DefaultRMAT(8))
	if err != nil {
		t.Fatal(err)
	}
	facts := testFacts
	key := autotune.GPUKey(facts, 13, 0)
	dir := t.TempDir()
	var stderr bytes.Buffer
	g := &Globals{Store: filepath.Join(dir, "tuning.db"), ctx: context.Background(), stderr: &stderr}
	def, _ := PlanArg{}.plan()

	check := func(wantSource, wantPlan, wantNotice string) {
		t.Helper()
		stderr.Reset()
		p, src := g.choosePlan(def, gr, nil, facts, fakeCompiler{})
		if src != wantSource || p.Name() != wantPlan || !strings.Contains(stderr.String(), wantNotice) {
			t.Errorf("got %s from %s (%q), want %s from %s (%q)", p.Name(), src, stderr.String(), wantPlan, wantSource, wantNotice)
		}
	}
	check("default", def.Name(), "nothing tuned to predict from")

	polak, _ := ir.Preset("polak")
	trust, _ := ir.Preset("trust")
	spec := func(p ir.Plan) string { js, _ := p.Canonical().EncodeJSON(); return string(js) }
	code := func(p ir.Plan) string { h, _ := executor.CodeHash(facts, p, ""); return h }
	st, err := store.Open(g.Store)
	if err != nil {
		t.Fatal(err)
	}
	tuned := func(gen graph.Generator, name string) {
		t.Helper()
		other, _, err := graph.Generate(gen)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct {
			p  ir.Plan
			ms float64
		}{{polak, 1}, {trust, 2}} {
			if err := st.Put(store.Row{Graph: graph.Fingerprint(&other.CSR), GraphName: name, Features: graph.ComputeFeatures(other),
				GPU: key, GPUName: facts.Name, SMs: facts.SMs, L2Bytes: 50 << 20, SharedPerSM: 228 << 10, BandwidthGBs: 3352, Version: "v1", Code: code(r.p), Plan: r.p.Name(), Spec: spec(r.p), Status: store.StatusOK, MedianMs: r.ms, Runs: 1, Time: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A graph unlike this one (a grid), tuned: too far for the model.
	tuned(graph.Grid{Rows: 300, Cols: 300}, "grid")
	st.Close()
	check("default", def.Name(), "nearest tuned graph (grid) lies 14.2 away")
	// Another graph like this one (RMAT 8 of another seed), tuned: the
	// model predicts its best plan.
	st, _ = store.Open(g.Store)
	like := graph.DefaultRMAT(8)
	like.Seed = 7
	tuned(like, "other")
	st.Close()
	check("model", polak.Name(), "predicted from 2 tuned graphs on 1 GPU ")

	// This graph tuned: its own best wins.
	st, _ = store.Open(g.Store)
	if err := st.Put(store.Row{Graph: graph.Fingerprint(&gr.CSR), GraphName: "this", GPU: key, Version: "v1", Code: code(trust), Plan: trust.Name(),
		Spec: spec(trust), Status: store.StatusOK, MedianMs: 0.5, Runs: 1, Time: time.Now()}); err != nil {
		t.Fatal(err)
	}
	// A faster row whose code is not what this build generates for its
	// plan (a template edited since) is skipped, with a notice; so is one
	// of an older store, without a code hash.
	for _, v := range []string{"v0", "v2"} {
		r := store.Row{Graph: graph.Fingerprint(&gr.CSR), GraphName: "this", GPU: key, Version: v, Plan: polak.Name(),
			Spec: spec(polak), Status: store.StatusOK, MedianMs: 0.1, Runs: 1, Time: time.Now()}
		if v == "v2" {
			r.Code = "0123456789abcdef"
		}
		if err := st.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	check("store", trust.Name(), "store: 2 better-ranked rows of other generated code ignored")
	if !strings.Contains(stderr.String(), "the tuning store's best") {
		t.Errorf("no store notice: %q", stderr.String())
	}

	// Another GPU whose facts are unknown learns nothing from this one's
	// rows; one whose facts are known learns from the rows that recorded
	// theirs.
	facts.Name = "Other GPU"
	check("default", def.Name(), "lack the GPU facts the model needs")
	facts.L2Bytes, facts.SharedPerSM, facts.MemClockMHz, facts.MemBusBits = 50<<20, 228<<10, 3201, 5120
	check("model", polak.Name(), "nearest: other on Test GPU")

	g.NoStore = true
	check("default", def.Name(), "built-in default")
}

// The model keeps the default plan where its neighbours found another
// plan less than autotune.DefaultMargin faster, and says so; at 10% it
// takes the faster plan.
func TestChoosePlanKeepsDefault(t *testing.T) {
	gr, _, err := graph.Generate(graph.DefaultRMAT(8))
	if err != nil {
		t.Fatal(err)
	}
	like := graph.DefaultRMAT(8)
	like.Seed = 7
	other, _, err := graph.Generate(like)
	if err != nil {
		t.Fatal(err)
	}
	facts := testFacts
	key := autotune.GPUKey(facts, 13, 0)
	def, _ := PlanArg{}.plan()
	polak, _ := ir.Preset("polak")
	for _, c := range []struct {
		defMs      float64
		want       ir.Plan
		wantNotice string
	}{
		{1.03, def, "the default, as they found no plan 5% faster"},
		{1.10, polak, "predicted from 1 tuned graphs on 1 GPU "},
	} {
		var stderr bytes.Buffer
		g := &Globals{Store: filepath.Join(t.TempDir(), "tuning.db"), ctx: context.Background(), stderr: &stderr}
		st, err := store.Open(g.Store)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []struct {
			p  ir.Plan
			ms float64
		}{{polak, 1}, {def, c.defMs}} {
			js, _ := r.p.Canonical().EncodeJSON()
			h, _ := executor.CodeHash(facts, r.p, "")
			if err := st.Put(store.Row{Graph: graph.Fingerprint(&other.CSR), GraphName: "other", Features: graph.ComputeFeatures(other),
				GPU: key, GPUName: facts.Name, SMs: facts.SMs, L2Bytes: 50 << 20, SharedPerSM: 228 << 10, BandwidthGBs: 3352, Version: "v1", Code: h,
				Plan: r.p.Name(), Spec: string(js), Status: store.StatusOK, MedianMs: r.ms, Runs: 1, Time: time.Now()}); err != nil {
				t.Fatal(err)
			}
		}
		st.Close()
		p, src := g.choosePlan(def, gr, nil, facts, fakeCompiler{})
		if src != "model" || p.Name() != c.want.Name() || !strings.Contains(stderr.String(), c.wantNotice) {
			t.Errorf("default at %.2f ms: %s from %s (%q), want %s (%q)", c.defMs, p.Name(), src, stderr.String(), c.want.Name(), c.wantNotice)
		}
	}
}
