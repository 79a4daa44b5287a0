package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/store"
)

// store model --gpus predicts each GPU's graphs from the other GPU's rows:
// every graph on both GPUs is judged, each row naming its GPU; --gpus and
// --families together are a usage error.
func TestStoreModelGPUs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tuning.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	def, err := defaultPlan()
	if err != nil {
		t.Fatal(err)
	}
	polak, _ := ir.Preset("polak")
	for i := range 3 {
		f := graph.Features{Vertices: 1000 << i, Edges: 10000 << i, DegreeMax: 100, DegreeMean: 20, DegreeStddev: 10}
		for _, gpu := range []struct {
			key, name string
			bw        float64
		}{{"a", "GPU A", 3352}, {"b", "GPU B", 4097}} {
			for _, r := range []store.Row{measured(fmt.Sprint(i), f, gpu.key, def, 10, 1), measured(fmt.Sprint(i), f, gpu.key, polak, 10, 0.5)} {
				r.GraphName, r.GPUName, r.SMs, r.L2Bytes, r.SharedPerSM, r.BandwidthGBs = fmt.Sprintf("er-%d", i), gpu.name, 132, 50<<20, 228<<10, gpu.bw
				if err := st.Put(r); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	st.Close()
	code, out, errOut := runCLI(t, "--store", path, "store", "model", "--gpus")
	if code != 0 {
		t.Fatalf("store model --gpus: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"leave-one-GPU-out", "er-0   er      GPU A", "er-2   er      GPU B", "median 1.000"} {
		if !strings.Contains(out, want) {
			t.Errorf("store model --gpus: no %q in\n%s", want, out)
		}
	}
	for _, args := range [][]string{{"--gpus", "--families"}, {"--gpus", "--gpu", "a"}} {
		if code, _, _ := runCLI(t, append([]string{"--store", path, "store", "model"}, args...)...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	// One GPU's rows: nothing to leave out.
	one := filepath.Join(t.TempDir(), "one.db")
	st, err = store.Open(one)
	if err != nil {
		t.Fatal(err)
	}
	r := measured("g", graph.Features{Vertices: 10, Edges: 20}, "a", def, 10, 1)
	r.SMs, r.L2Bytes, r.SharedPerSM, r.BandwidthGBs = 132, 50<<20, 228<<10, 3352
	if err := st.Put(r); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if code, _, errOut := runCLI(t, "--store", one, "store", "model", "--gpus"); code != exitBadInput || !strings.Contains(errOut, "1 GPUs with their facts recorded") {
		t.Errorf("--gpus on one GPU: exit %d, %q; want %d and the reason", code, errOut, exitBadInput)
	}
}
