package tests

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/tests/gputest"
)

// TestCountGPUsErrors: --gpus values that do not parse, name a GPU twice
// or go with a CPU-only flag are refused before any work, with exit code 2
// and one line naming the value; on a machine without a GPU, a valid
// --gpus with --backend gpu is exit code 5.
func TestCountGPUsErrors(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "k4.txt", k4)
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"not a number", []string{"--gpus", "abc"}, `count: --gpus "abc": not a number; want all, a number of GPUs (2: the first two) or a list of ordinals (0,2)`},
		{"zero", []string{"--gpus", "0"}, `count: --gpus "0": a number of GPUs is 1 to 1024 (one GPU by its ordinal: --device K)`},
		{"duplicate", []string{"--gpus", "0,1,0"}, `count: --gpus "0,1,0": GPU 0 is listed twice`},
		{"bad ordinal", []string{"--gpus", "0,x"}, `count: --gpus "0,x": ordinal "x" is not a number`},
		{"huge ordinal", []string{"--gpus", "0,5000"}, `count: --gpus "0,5000": ordinal 5000 is out of range`},
		{"cpu backend", []string{"--gpus", "2", "--backend", "cpu"}, "count: --gpus counts on GPUs; --backend cpu counts on the CPU"},
		{"negative rebalance", []string{"--gpus", "2", "--rebalance", "-1"}, "count: --rebalance -1: a number of rebalances is 0 or more"},
		{"local output", []string{"--gpus", "all", "--per-vertex", filepath.Join(dir, "v.tsv")}, "count: --gpus counts the total only; --per-vertex is not implemented on several GPUs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := tcgen(t, append([]string{"--no-cache", "-q", "count", good}, c.args...)...)
			first, _, _ := strings.Cut(errs, "\n")
			if code != exitUsage || out != "" || !strings.HasPrefix(first, "tcgen: "+c.msg) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, out, errs, exitUsage, c.msg)
			}
		})
	}
	if _, err := cuda.Devices(); err != nil { // no GPU here: a demanded one is exit code 5
		code, out, errs := tcgen(t, "--no-cache", "-q", "count", good, "--gpus", "0,1", "--backend", "gpu")
		if code != exitNoGPU || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("--gpus without a GPU: exit %d, stdout %q, stderr %q; want %d and one line", code, out, errs, exitNoGPU)
		}
	}
}

// TestCountGPUsAll: on the GPU machine, count --gpus all counts the shared
// datasets on every visible GPU (one on a machine of one), equal to the
// CPU oracle, and reports each GPU's part: their triangles add up, their
// shares of the modelled work to 1.
func TestCountGPUsAll(t *testing.T) {
	opts := cuda.Options{NVRTCPath: gputest.NVRTCPath()}
	dev := gputest.Open(t, func() (*cuda.Device, error) { return cuda.Open(0, opts) }, cuda.ErrNoDriver, cuda.ErrNoDevice)
	dev.Close()
	facts, err := cuda.Devices()
	if err != nil {
		t.Fatal(err)
	}
	rows := gputest.Pick(t, gputest.Manifest(t), gpuDatasets...)
	base := []string{"-q", "--cache-dir", t.TempDir(), "--no-store"}
	for _, plan := range [][]string{nil, {"--preset", "polak"}, {"--spec", "pivot"}} {
		for _, d := range rows {
			args := append(append(append([]string{}, base...), "count", d.Path, "--gpus", "all", "--check", "--json", "--repeat", "3"), plan...)
			if p := gputest.NVRTCPath(); p != "" {
				args = append(args, "--nvrtc", p)
			}
			code, out, errs := tcgen(t, args...)
			if code != exitOK {
				t.Fatalf("tcgen %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
			}
			var r struct {
				Triangles uint64 `json:"triangles"`
				Checked   string `json:"checked"`
				Devices   []struct {
					Ordinal   int     `json:"ordinal"`
					Triangles uint64  `json:"triangles"`
					Share     float64 `json:"work_share"`
				} `json:"devices"`
				Slowest float64 `json:"slowest_device_share"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%s: %v\n%s", d.Name, err, out)
			}
			var sum uint64
			share := 0.0
			for _, x := range r.Devices {
				sum, share = sum+x.Triangles, share+x.Share
			}
			if r.Triangles != d.Triangles || r.Checked != "CPU oracle" || len(r.Devices) != len(facts) || sum != r.Triangles ||
				(share < 0.999 || share > 1.001) && r.Triangles > 0 || r.Slowest <= 0 {
				t.Errorf("%s %v: %+v, want %d triangles on %d GPUs", d.Name, plan, r, d.Triangles, len(facts))
			}
		}
	}
}
