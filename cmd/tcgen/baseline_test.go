package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"github.com/tcgen/tcgen/store"
)

// testFacts is the GPU the tests' store rows were measured on.
var testFacts = gpu.DeviceFacts{Name: "Test GPU", Major: 9, SMs: 132, Driver: 13000}

// measured is a store row of plan p on graph fp with runs passes of ms
// each, of the code this build generates for p on testFacts.
func measured(fp string, f graph.Features, key string, p ir.Plan, runs int, ms float64) store.Row {
	js, _ := p.Canonical().EncodeJSON()
	code, _ := executor.CodeHash(testFacts, p, "")
	return store.Row{Graph: fp, GraphName: "g", Features: f, GPU: key, Version: toolVersion(), Code: code, Plan: p.Name(), Spec: string(js),
		Status: store.StatusOK, Runs: runs, Samples: slices.Repeat([]float64{ms}, runs), MedianMs: ms, Time: time.Now()}
}

// count and store best serve the fastest of the rows with the most passes:
// the default measured over 10 passes, not a 1-pass screening that looked
// five times faster, nor a slower 10-pass plan.
func TestChoosePlanMostPasses(t *testing.T) {
	gr, _, err := graph.Generate(graph.DefaultRMAT(8))
	if err != nil {
		t.Fatal(err)
	}
	facts := testFacts
	key := autotune.GPUKey(facts, 13, 0)
	path := filepath.Join(t.TempDir(), "tuning.db")
	var stderr bytes.Buffer
	g := &Globals{Store: path, ctx: context.Background(), stderr: &stderr}
	def, err := defaultPlan()
	if err != nil {
		t.Fatal(err)
	}
	polak, _ := ir.Preset("polak")
	trust, _ := ir.Preset("trust")
	fp, f := graph.Fingerprint(&gr.CSR), graph.ComputeFeatures(gr)
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []store.Row{measured(fp, f, key, polak, 1, 0.01), measured(fp, f, key, def, 10, 0.0516), measured(fp, f, key, trust, 10, 0.1258)} {
		if err := st.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	p, src := g.choosePlan(def, gr, nil, facts, fakeCompiler{})
	if src != "store" || p.Name() != def.Name() || !strings.Contains(stderr.String(), "0.0516 ms median of 10 passes") {
		t.Errorf("count runs %s from %s (%q), want the default %s from the store", p.Name(), src, stderr.String(), def.Name())
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"--store", path, "store", "best", "--json"}, &out, &errOut); code != 0 {
		t.Fatalf("store best: exit %d: %s", code, errOut.String())
	}
	var rows []store.Row
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) != 1 || rows[0].Plan != def.Name() || rows[0].Runs != 10 {
		t.Errorf("store best: %v\n%s", err, out.String())
	}
}

// baselines: the default, then the model's prediction from the other
// graphs when the graph's features are known.
func TestBaselines(t *testing.T) {
	def, _ := defaultPlan()
	polak, _ := ir.Preset("polak")
	trust, _ := ir.Preset("trust")
	other, _, err := graph.Generate(graph.DefaultRMAT(9))
	if err != nil {
		t.Fatal(err)
	}
	this, _, err := graph.Generate(graph.DefaultRMAT(8))
	if err != nil {
		t.Fatal(err)
	}
	ofp, thisFP, f := graph.Fingerprint(&other.CSR), graph.Fingerprint(&this.CSR), graph.ComputeFeatures(this)
	rows := []store.Row{
		measured(ofp, graph.ComputeFeatures(other), "gpu", polak, 10, 1),
		measured(ofp, graph.ComputeFeatures(other), "gpu", trust, 10, 2),
		measured(thisFP, f, "gpu", trust, 10, 0.5), // the graph's own rows do not vote
	}
	target := gen.DefaultTarget()
	for _, tc := range []struct {
		rows  []store.Row
		f     *graph.Features
		plans []string
		label []string
	}{
		{rows, &f, []string{def.Name(), polak.Name()}, []string{"default: " + def.Prefix, "model: polak"}},
		{rows, nil, []string{def.Name()}, []string{"default: " + def.Prefix}}, // an oriented file
		{nil, &f, []string{def.Name()}, []string{"default: " + def.Prefix}},   // nothing tuned
	} {
		plans, labels, err := baselines(tc.rows, tc.f, autotune.GPUFacts{Key: "gpu"}, thisFP, target)
		var names []string
		for _, p := range plans {
			names = append(names, p.Name())
		}
		if err != nil || !slices.Equal(names, tc.plans) || !slices.Equal(labels, tc.label) {
			t.Errorf("baselines = %v %v (%v), want %v %v", names, labels, err, tc.plans, tc.label)
		}
	}
}

// A tune on the GPU adds the default and the model's pick to its space
// (this one has neither) and measures them first through the evaluator of
// the grown space.
func TestTuneStarts(t *testing.T) {
	sf, err := autotune.ParseSpace([]byte("name: small\nplans: [preset:trust]\n"), "small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	target := executor.Target(testFacts, "")
	sp, err := sf.Expand(target)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(t.TempDir(), "tuning.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other, _, _ := graph.Generate(graph.DefaultRMAT(9))
	this, _, _ := graph.Generate(graph.DefaultRMAT(8))
	polak, _ := ir.Preset("polak")
	if err := st.Put(measured(graph.Fingerprint(&other.CSR), graph.ComputeFeatures(other), "gpu", polak, 10, 1)); err != nil {
		t.Fatal(err)
	}
	def, _ := defaultPlan()
	ev := &autotune.GPU{Space: sp, Store: st, Base: store.Row{Graph: graph.Fingerprint(&this.CSR), GPU: "gpu", Features: graph.ComputeFeatures(this)}}
	sp2, ev2, _, base, err := (&TuneCmd{}).starts(&Globals{stderr: io.Discard}, st, sp, ev, testFacts)
	if err != nil {
		t.Fatal(err)
	}
	if got := planNames(sp2, base); !slices.Equal(got, []string{def.Name(), polak.Name()}) || ev2.Space != sp2 || len(sp2.Plans) != len(sp.Plans)+2 {
		t.Errorf("baselines %v in a space of %d plans (evaluator's space grown: %v), want the default %s and polak", got, len(sp2.Plans), ev2.Space == sp2, def.Name())
	}
}
