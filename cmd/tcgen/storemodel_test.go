package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

// store import adds the two transfer recordings to a store, once however
// often they are imported; store model --gpus then judges each GPU from the
// other's rows. A file that is not JSON Lines, or a store file, adds
// nothing and says why.
func TestStoreImport(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tuning.db")
	recs := []string{"../../autotune/testdata/transfer-nvidia-h100.jsonl.gz", "../../autotune/testdata/transfer-nvidia-h200.jsonl.gz"}
	code, out, errOut := runCLI(t, append([]string{"--store", path, "store", "import"}, recs...)...)
	if code != 0 || !strings.Contains(out, "6452 measurements read, 6452 added") {
		t.Fatalf("first import: exit %d, %q %q", code, out, errOut)
	}
	if code, out, _ := runCLI(t, append([]string{"--store", path, "store", "import"}, recs...)...); code != 0 || !strings.Contains(out, "0 added") {
		t.Errorf("second import: exit %d, %q; want nothing added", code, out)
	}
	code, out, errOut = runCLI(t, "--store", path, "store", "model", "--gpus")
	if code != 0 || !regexp.MustCompile(`leave-one-GPU-out, the 1\d\d graphs of 0.1 ms or more`).MatchString(out) {
		t.Errorf("store model --gpus after the import: exit %d, %q", code, errOut)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"graph\": 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{bad, path} {
		code, _, errOut := runCLI(t, "--store", filepath.Join(dir, "other.db"), "store", "import", recs[0], f)
		if code != exitBadInput || !strings.Contains(errOut, f) {
			t.Errorf("import of %s: exit %d, %q; want %d naming the file", f, code, errOut, exitBadInput)
		}
	}
	// The failed imports made no store at all; reading one that is not
	// there is an error, and makes none either.
	for range 2 {
		if code, out, errOut := runCLI(t, "--store", filepath.Join(dir, "other.db"), "store", "export"); code != exitBadInput || !strings.Contains(errOut, "no tuning store there") {
			t.Errorf("export of a store the failed imports should not have made: exit %d, %q %q", code, out[:min(len(out), 200)], errOut)
		}
	}
}
