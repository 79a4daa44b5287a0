package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/runtime/executor"
)

// TestParseGPUs: every form of --gpus, and the ordinals it names on hosts
// of 1, 2 and 4 GPUs, or the error naming the GPU a host lacks.
func TestParseGPUs(t *testing.T) {
	for _, c := range []struct {
		spec string
		have int
		want []int
		err  string
	}{
		{"all", 4, []int{0, 1, 2, 3}, ""},
		{"all", 1, []int{0}, ""},
		{"1", 2, []int{0}, ""},
		{" 2 ", 4, []int{0, 1}, ""}, // spaces around a count or all, as around ordinals
		{" all", 2, []int{0, 1}, ""},
		{"2", 4, []int{0, 1}, ""},
		{"3", 2, nil, "--gpus 3: asks for 3 GPUs, the driver reports 2"},
		{"0,2", 4, []int{0, 2}, ""},
		{"2,0", 4, []int{2, 0}, ""},
		{" 1, 0", 2, []int{1, 0}, ""},
		{"0,7", 2, nil, "--gpus 0,7: there is no GPU 7: the driver reports 2 (ordinals 0 to 1)"},
		{"0", 2, nil, `--gpus "0": a number of GPUs is 1 to 1024 (one GPU by its ordinal: --device K); want all, a number of GPUs (2: the first two) or a list of ordinals (0,2)`},
		{"", 2, nil, `--gpus "": not a number; want all, a number of GPUs (2: the first two) or a list of ordinals (0,2)`},
		{"1,1", 2, nil, `--gpus "1,1": GPU 1 is listed twice; want all, a number of GPUs (2: the first two) or a list of ordinals (0,2)`},
		{"0,-1", 2, nil, `--gpus "0,-1": ordinal -1 is out of range; want all, a number of GPUs (2: the first two) or a list of ordinals (0,2)`},
		{"0,,1", 2, nil, `--gpus "0,,1": ordinal "" is not a number; want all, a number of GPUs (2: the first two) or a list of ordinals (0,2)`},
		{"ALL", 2, nil, `--gpus "ALL": not a number; want all, a number of GPUs (2: the first two) or a list of ordinals (0,2)`},
	} {
		sel, err := parseGPUs(c.spec)
		var got []int
		if err == nil {
			got, err = sel.resolve(c.spec, c.have)
		}
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != c.err || !slices.Equal(got, c.want) {
			t.Errorf("--gpus %q on %d GPUs: %v, %q; want %v, %q", c.spec, c.have, got, msg, c.want, c.err)
		}
	}
}

// FuzzParseGPUs: any --gpus value parses or is refused without a panic,
// and what parses names distinct ordinals within range.
func FuzzParseGPUs(f *testing.F) {
	for _, s := range []string{"all", "2", "0,2", "0,1,0", "x", "-3", "1,", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := parseGPUs(s)
		if err != nil {
			return
		}
		ords, err := sel.resolve(s, 8)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, k := range ords {
			if k < 0 || k >= 8 || seen[k] {
				t.Fatalf("%q: ordinals %v", s, ords)
			}
			seen[k] = true
		}
	})
}

// TestPrintDevices: a --gpus count prints a line per GPU and the slowest
// one's share, and a line per rebalance, in text and JSON; a count without
// --gpus prints none of them.
func TestPrintDevices(t *testing.T) {
	r := countResult{Graph: "g", Backend: "gpu", Device: "2 GPUs (0, 1): H", Triangles: 10, SlowestShare: 0.5123,
		Devices: []executor.DeviceRun{
			{Ordinal: 0, Name: "H", Items: 7, Work: 100, Share: 0.4877, Triangles: 4, GPUMs: executor.Timing{Median: 1.5}, KernelMs: executor.Timing{Median: 1.25}},
			{Ordinal: 1, Name: "H", Items: 3, Work: 105, Share: 0.5123, Triangles: 6, GPUMs: executor.Timing{Median: 1.75}, KernelMs: executor.Timing{Median: 1.5}},
		}}
	var out bytes.Buffer
	if err := printCount(&Globals{stdout: &out}, false, &r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"devices    2, a pass ends when the slowest ends; its share of the modelled work 51.2%\n",
		"gpu 0      H: 7 items, 48.8% of the work, pass 1.5000 ms median, kernels 1.2500 ms, 4 triangles\n",
		"gpu 1      H: 3 items, 51.2% of the work, pass 1.7500 ms median, kernels 1.5000 ms, 6 triangles\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := printCount(&Globals{stdout: &out}, true, &r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"slowest_device_share": 0.5123`, `"ordinal": 1`, `"work_share": 0.4877`, `"items": 7`, `"gpu_ms": {`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("JSON lacks %q:\n%s", want, out.String())
		}
	}
	// Two rebalances, the first recut, the second not: their lines, and
	// each GPU's predicted time.
	r.Rebalance = []executor.RebalanceRound{
		{Before: []uint64{0, 9, 10}, After: []uint64{0, 7, 10}, MeasuredMs: []float64{2.5, 1.25}, PredictedMs: []float64{1.625, 1.6251}},
		{MeasuredMs: []float64{1.5, 1.75}, Why: "no time to spread"},
	}
	r.Devices[0].PredictedMs, r.Devices[1].PredictedMs = 1.625, 1.6251
	out.Reset()
	if err := printCount(&Globals{stdout: &out}, false, &r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"rebalance 1  cuts 9 -> 7; measured 2.50/1.25 ms, predicted 1.62/1.63 ms\n",
		"rebalance 2  none: no time to spread\n",
		"gpu 0        H: 7 items, 48.8% of the work, pass 1.5000 ms median (predicted 1.6250), kernels 1.2500 ms, 4 triangles\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := printCount(&Globals{stdout: &out}, true, &r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"cuts_before": [`, `"cuts_after": [`, `"predicted_ms": 1.625`, `"why": "no time to spread"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("JSON lacks %q:\n%s", want, out.String())
		}
	}
	r.Devices, r.SlowestShare, r.Rebalance = nil, 0, nil
	for _, asJSON := range []bool{false, true} {
		out.Reset()
		if err := printCount(&Globals{stdout: &out}, asJSON, &r); err != nil {
			t.Fatal(err)
		}
		if s := out.String(); strings.Contains(s, "devices") || strings.Contains(s, "gpu 0") || strings.Contains(s, "slowest") {
			t.Errorf("without --gpus the output names devices:\n%s", s)
		}
	}
}
