package tests

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/tests/gputest"
)

// gpuDatasets are the small shared datasets the GPU integration test counts.
var gpuDatasets = []string{"karate", "jazz", "ca-GrQc", "as20000102", "p2p-Gnutella08"}

// TestCountGPU: tcgen count --backend gpu --check, with the default plan
// and two presets, prints the manifest's triangle count for a few small
// shared datasets, counted on the GPU and found equal to the CPU oracle.
// Without a GPU the test is skipped; with TCGEN_REQUIRE_GPU=1 (the GPU
// machine) it fails instead.
func TestCountGPU(t *testing.T) {
	opts := cuda.Options{NVRTCPath: gputest.NVRTCPath()}
	dev := gputest.Open(t, func() (*cuda.Device, error) { return cuda.Open(0, opts) }, cuda.ErrNoDriver, cuda.ErrNoDevice)
	t.Logf("device %s", dev.Facts().Name)
	if err := dev.Close(); err != nil { // the binary opens its own
		t.Fatal(err)
	}
	rows := gputest.Pick(t, gputest.Manifest(t), gpuDatasets...)
	base := []string{"-q", "--cache-dir", t.TempDir(), "--no-store"} // kernels compiled once per plan; no tuned plan replaces the default
	for _, plan := range []struct {
		name string
		args []string
	}{{"default", nil}, {"polak", []string{"--preset", "polak"}}, {"trust", []string{"--preset", "trust"}}} {
		for _, d := range rows {
			t.Run(plan.name+"/"+d.Name, func(t *testing.T) {
				args := append(append(append([]string{}, base...), "count", d.Path, "--backend", "gpu", "--check"), plan.args...)
				if p := gputest.NVRTCPath(); p != "" {
					args = append(args, "--nvrtc", p)
				}
				code, out, errs := tcgen(t, args...)
				if code != exitOK {
					t.Fatalf("tcgen %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
				}
				r := printed(out)
				if got, err := strconv.ParseUint(r["triangles"], 10, 64); err != nil || got != d.Triangles {
					t.Errorf("printed %q triangles, manifest says %d (%v)\n%s", r["triangles"], d.Triangles, err, out)
				}
				if !strings.HasPrefix(r["backend"], "gpu (") || r["checked"] != "equal to the CPU oracle" {
					t.Errorf("not counted on the GPU and checked against the oracle: backend %q, checked %q", r["backend"], r["checked"])
				}
				if plan.args != nil && !strings.HasPrefix(r["plan"], plan.name+"_") {
					t.Errorf("plan %q, want preset %s", r["plan"], plan.name)
				}
				t.Logf("%s: %s triangles, plan %s", d.Name, r["triangles"], r["plan"])
			})
		}
	}
}

// printedLine is one "name  value" line of count's text output; lines of
// a value's continuation start with spaces.
var printedLine = regexp.MustCompile(`^(\S.*?)\s{2,}(.*)$`)

// printed maps the names of count's text output to their values.
func printed(out string) map[string]string {
	r := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if m := printedLine.FindStringSubmatch(l); m != nil {
			r[m[1]] = strings.TrimSpace(m[2])
		}
	}
	return r
}

// TestPrinted reads count's text output as TestCountGPU does, from a CPU
// count, so that its reading is tested where there is no GPU.
func TestPrinted(t *testing.T) {
	in := writeFile(t, t.TempDir(), "k4.txt", k4)
	code, out, errs := tcgen(t, "-q", "--no-cache", "count", in, "--backend", "cpu", "--expect", "4")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := printed(out)
	if r["triangles"] != "4" || r["max degree"] != "4" || !strings.HasPrefix(r["backend"], "cpu (") || r["checked"] != "equal to the expected (--expect)" {
		t.Errorf("read %q from\n%s", r, out)
	}
}
