package sweep

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The testdata/profile_* files are hand-written samples modelled on the
// documented shape of ncu --csv --page raw output (a header row of launch
// columns then metric names, a units row, one row per kernel launch,
// numbers with thousands separators, ==PROF== lines and the program's own
// output around them). They were not captured from a GPU run.

func TestProfileCommand(t *testing.T) {
	tc := []string{"/opt/tcgen", "-q", "--no-store", "count", "g.tcsr", "--spec", "p.yaml",
		"--backend", "gpu", "--repeat", "1", "--warmup", "0"}
	argv := ProfileCommand("/usr/local/cuda/bin/ncu", tc)
	if argv[0] != "/usr/local/cuda/bin/ncu" {
		t.Errorf("argv[0] = %q", argv[0])
	}
	if !slices.Equal(argv[len(argv)-len(tc):], tc) {
		t.Errorf("argv does not end with the tcgen command: %q", argv)
	}
	opts := argv[1 : len(argv)-len(tc)]
	// Clocks must never be locked or changed: --clock-control none, and no
	// other --clock-control.
	n := 0
	for i, a := range opts {
		if a == "--clock-control" || strings.HasPrefix(a, "--clock-control=") {
			n++
			if a != "--clock-control" || i+1 >= len(opts) || opts[i+1] != "none" {
				t.Errorf("clock control not none: %q", opts)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d --clock-control options in %q, want exactly one (none)", n, opts)
	}
	want := map[string]string{
		"--page":             "raw",
		"--metrics":          strings.Join(Metrics, ","),
		"--target-processes": "all",
		"--print-units":      "base",
	}
	for opt, v := range want {
		i := slices.Index(opts, opt)
		if i < 0 || i+1 >= len(opts) || opts[i+1] != v {
			t.Errorf("%s %s missing from %q", opt, v, opts)
		}
	}
	if !slices.Contains(opts, "--csv") {
		t.Errorf("--csv missing from %q", opts)
	}
	// The caller's slice is not aliased.
	argv[len(argv)-1] = "changed"
	if tc[len(tc)-1] != "0" {
		t.Error("ProfileCommand wrote into its argument")
	}
}

func TestProfileMetrics(t *testing.T) {
	for _, m := range []string{
		"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
		"l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
		"smsp__thread_inst_executed_per_inst_executed.ratio",
		"dram__bytes_read.sum.per_second",
		"gpu__time_duration.sum",
	} {
		if !slices.Contains(Metrics, m) {
			t.Errorf("Metrics lacks %s", m)
		}
	}
}

func TestNCUPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	if p, why := NCUPath(); p != "" || why == "" || strings.Contains(why, "\n") {
		t.Errorf("no ncu: got %q, %q", p, why)
	}
	ncu := filepath.Join(dir, "ncu")
	if err := os.WriteFile(ncu, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, why := NCUPath(); p != ncu || why != "" {
		t.Errorf("ncu on PATH: got %q, %q; want %q", p, why, ncu)
	}
}

// The three kernels of the good samples, in base units:
//
//	kernel  duration  requests  sectors/req  threads/inst  DRAM read
//	0       10 us     1e6       4            32            1000 GB/s (1e7 B)
//	1       30 us     3e6       8            16            500 GB/s  (1.5e7 B)
//	2       60 us     0         n/a or 0     8             250 GB/s  (1.5e7 B)
//
// so 4e6 requests, 28e6 sectors (7 per request), efficiency
// (32*10 + 16*30 + 8*60) / 100 / 32 = 0.4, 4e7 bytes in 100 us = 400 GB/s.
var wantPass = map[string]float64{
	"global_load_requests":      4e6,
	"sectors_per_request":       7,
	"warp_execution_efficiency": 0.4,
	"dram_read_gbps":            400,
	"kernels":                   3,
	"duration_ms":               0.1,
}

func TestParseCSV(t *testing.T) {
	for _, name := range []string{
		"profile_base.csv",   // --print-units base, noise before and after
		"profile_scaled.csv", // usecond, Gbyte/second, Mrequest
		"profile_crlf.csv",   // msecond, Tbyte/second, Krequest; other column order; CRLF
	} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := ParseCSV(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(wantPass) {
				t.Errorf("keys %v, want %v", got, wantPass)
			}
			for k, w := range wantPass {
				g, ok := got[k]
				if !ok || math.Abs(g-w) > 1e-9*math.Abs(w) {
					t.Errorf("%s = %v, want %v", k, g, w)
				}
			}
		})
	}
}

func TestParseCSVErrors(t *testing.T) {
	for name, want := range map[string]string{
		"profile_err_no_column.csv":     "ncu output: no column dram__bytes_read.sum.per_second",
		"profile_err_no_kernels.txt":    "ncu output: no CSV header (ncu said: ==WARNING== No kernels were profiled.)",
		"profile_err_header_only.csv":   "ncu output: no kernel rows",
		"profile_err_details_page.csv":  "--page raw",
		"profile_err_bad_value.csv":     "kernel 0 (void tc_count_kernel<256, 32>(const unsigned int*, const unsigned int*, unsigned long long*)): gpu__time_duration.sum: value \"n/a\" is not a number",
		"profile_err_bad_unit.csv":      "gpu__time_duration.sum: unit \"cycle\" is not a time",
		"profile_err_decimal_comma.csv": "locale-formatted",
		"profile_err_ragged.csv":        "has 15 fields, the header 16",
	} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := ParseCSV(f)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("got %v, %v; want an error containing %q", m, err, want)
			}
		})
	}
}

func TestParseCSVEmpty(t *testing.T) {
	if _, err := ParseCSV(strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "no CSV header") {
		t.Errorf("empty input: %v", err)
	}
}

func TestParseCSVNumbers(t *testing.T) {
	for s, want := range map[string]float64{
		"0": 0, "12.5": 12.5, "1,048,576": 1048576, "1,234.5": 1234.5,
		"3.2e+05": 3.2e5, " 7 ": 7, "-1,000": -1000, "999": 999,
	} {
		if got, err := parseNumber(s); err != nil || got != want {
			t.Errorf("parseNumber(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "n/a", "1.000,5", "12,5", "1,00", "1234,567", ",123", "27.595.520"} {
		if got, err := parseNumber(s); err == nil {
			t.Errorf("parseNumber(%q) = %v, want an error", s, got)
		}
	}
}

func TestParseCSVUnits(t *testing.T) {
	for u, want := range map[string]float64{
		"": 1, "request": 1, "sector/request": 1, "thread/inst": 1, "%": 1,
		"Krequest": 1e3, "Msector": 1e6, "Gbyte": 1e9, "KiB": 1024,
		"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1,
		"byte/second": 1, "Gbyte/second": 1e9, "Mbyte/usecond": 1e12, "cycle/nsecond": 1e9,
	} {
		if got, err := unitScale(u); err != nil || math.Abs(got-want) > 1e-12*want {
			t.Errorf("unitScale(%q) = %v, %v; want %v", u, got, err, want)
		}
	}
	for _, u := range []string{"Xbyte", "3byte", "byte/Qs"} {
		if got, err := unitScale(u); err == nil {
			t.Errorf("unitScale(%q) = %v, want an error", u, got)
		}
	}
	for _, u := range []string{"request/second", "Gbyte", "byte/cycle"} {
		if got, err := rateScale(u); err == nil {
			t.Errorf("rateScale(%q) = %v, want an error", u, got)
		}
	}
	if got, err := rateScale("GB/s"); err != nil || got != 1e9 {
		t.Errorf("rateScale(GB/s) = %v, %v", got, err)
	}
}
