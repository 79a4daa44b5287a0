package tests

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/store"
	"github.com/tcgen/tcgen/tests/gputest"
)

// defaultSpace is the space tune searches without --space (cmd/tcgen
// defaultSpaceName, embedded from examples/).
const defaultSpace = "spaces/default.yaml"

// syntheticRecording writes a recording of every point of the default
// space for one graph, and of the default plan (guarded by shape, it is no
// point of the space; a tune measures it first), with made-up times (a
// hash of the plan name) and a few failures: it tests replay's mechanics;
// the strategies' quality is tested against the real recording
// (tune/testdata). It returns the recording's path, its number of rows
// and the median times of those that counted right.
func syntheticRecording(t *testing.T) (string, int, []float64) {
	t.Helper()
	sf, err := autotune.LoadSpaceFS(examples.FS, defaultSpace)
	if err != nil {
		t.Fatal(err)
	}
	target := gen.DefaultTarget()
	target.MaxSharedPerBlock = autotune.MaxSharedOptin
	sp, err := sf.Expand(target)
	if err != nil {
		t.Fatal(err)
	}
	def, err := examples.FS.ReadFile("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defPlan, err := ir.Parse(def, "default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plans := sp.Cands.Plans
	if !slices.Contains(plans, defPlan.Name()) {
		plans = append(slices.Clip(plans), defPlan.Name())
	}
	var rows []store.Row
	var ok []float64
	for i, p := range plans {
		h := fnv.New32a()
		h.Write([]byte(p))
		ms := 1 + float64(h.Sum32()%1000)/100
		r := store.Row{Graph: "fp1", GraphName: "synthetic", GPU: "gpu", Version: "v", Plan: p, Status: store.StatusOK,
			Runs: 3, Samples: []float64{ms, ms * 1.01, ms * 0.99}, MedianMs: ms, MinMs: ms * 0.99, MaxMs: ms * 1.01, Time: time.Unix(0, 0).UTC()}
		if i%17 == 3 {
			r = store.Row{Graph: "fp1", GraphName: "synthetic", GPU: "gpu", Version: "v", Plan: p, Status: store.StatusWrong, Reason: "counted 1", Time: time.Unix(0, 0).UTC()}
		} else {
			ok = append(ok, ms)
		}
		rows = append(rows, r)
	}
	var buf bytes.Buffer
	if err := store.WriteJSON(&buf, rows); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, len(rows), ok
}

// countBelow is the number of times under ms (less a rounding margin).
func countBelow(times []float64, ms float64) int {
	k := 0
	for _, x := range times {
		if x < ms*(1-1e-9) {
			k++
		}
	}
	return k
}

func TestTuneReplay(t *testing.T) {
	rec, n, times := syntheticRecording(t)
	for _, s := range autotune.StrategyNames() {
		code, out, errOut := tcgen(t, "-q", "tune", "synthetic", "--replay", rec, "--strategy", s, "--evals", "40", "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", s, code, errOut)
		}
		var res tuneOutcome
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%s: %v in %s", s, err, out)
		}
		if res.Points != n || res.Evals > 40 || res.Best == "" || res.Exhaust == nil || res.Exhaust.Ratio < 1 {
			t.Errorf("%s: %+v", s, res)
		}
		// Three recorded passes (ms, 1.01 ms, 0.99 ms): the CI is [min, max].
		if math.Abs(res.CILo-res.BestMs*0.99) > 1e-9 || math.Abs(res.CIHi-res.BestMs*1.01) > 1e-9 {
			t.Errorf("%s: CI [%g, %g] of %g ms, want its min and max", s, res.CILo, res.CIHi, res.BestMs)
		}
		if res.Final == nil || res.Final.Skipped != "a replay cannot measure again" {
			t.Errorf("%s: finalists %+v, want them skipped", s, res.Final)
		}
		// On made-up times there is nothing to learn: every strategy does
		// as random search at best, and 39 random draws (one goes to the
		// default plan) all miss the best fifth with probability 0.8^39,
		// under 2e-4. A bound on the time ratio would test the draws' luck.
		if better := countBelow(times, res.BestMs); better > len(times)/5 {
			t.Errorf("%s: found %.3f x the best with 40 of %d evaluations, %d plans faster", s, res.Exhaust.Ratio, n, better)
		}
	}
	// The plan count runs untuned (the default; the recording's one graph
	// leaves the model nothing to learn from) is measured first and
	// competes: with one evaluation it is all a tune measures, and it is
	// the best.
	for _, s := range autotune.StrategyNames() {
		code, out, errOut := tcgen(t, "-q", "tune", "synthetic", "--replay", rec, "--strategy", s, "--evals", "1", "--json")
		var res tuneOutcome
		if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil {
			t.Fatalf("%s: exit %d, %v: %s", s, code, err, errOut)
		}
		if res.Evals != 1 || len(res.Baseline) != 1 || res.Best != res.Baseline[0] {
			t.Errorf("%s --evals 1: %+v", s, res)
		}
	}
	// Exhaustive finds the best.
	code, out, _ := tcgen(t, "-q", "tune", "fp1", "--replay", rec, "--strategy", "exhaustive")
	if code != 0 || !strings.Contains(out, "found / best = 1.0000") || !strings.Contains(out, "measured first  ") ||
		!strings.Contains(out, "finalists       not measured again: a replay cannot measure again") {
		t.Errorf("exhaustive: exit %d\n%s", code, out)
	}
}

func TestTuneReplayErrors(t *testing.T) {
	rec, _, _ := syntheticRecording(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"tune", "nosuch", "--replay", rec}, exitBadInput, `no measurement of graph "nosuch"`},
		{[]string{"tune", "fp1", "--replay", filepath.Join(t.TempDir(), "missing.jsonl")}, exitBadInput, "missing.jsonl"},
		{[]string{"tune", "fp1", "--replay", rec, "--strategy", "nosuch"}, exitUsage, "strategy"},
		{[]string{"tune", "fp1", "--replay", rec, "--runs", "0"}, exitUsage, "--runs"},
		{[]string{"tune", "fp1", "--replay", rec, "--space", writeFile(t, t.TempDir(), "s.yaml", "name: x\ncuts: [2, 1]\nplans: [preset:polak]")}, exitBadInput, "s.yaml"},
	} {
		code, _, errOut := tcgen(t, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 && tc.code != exitUsage {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
}

// TestBenchDryRun: bench --dry-run lists the fixed benchmark's points and
// graphs (the shared datasets and RMAT 16-24) without a GPU.
func TestBenchDryRun(t *testing.T) {
	code, out, errOut := tcgen(t, "bench", "--dry-run", "--datasets", gputest.Datasets(t))
	if code != 0 {
		t.Fatalf("bench --dry-run: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "bench_v1: 13 points x 34 graphs") || !strings.Contains(out, "spec:../hybrid.yaml") {
		t.Errorf("bench --dry-run:\n%s", out)
	}
}

// TestTuneReplayReport: tune --report writes a row per evaluation with the
// best so far and the GPU seconds the recording says each cost, and the
// plot of them.
func TestTuneReplayReport(t *testing.T) {
	rec, _, _ := syntheticRecording(t)
	dir := filepath.Join(t.TempDir(), "tune")
	code, out, errOut := tcgen(t, "-q", "tune", "synthetic", "--replay", rec, "--strategy", "random", "--evals", "30", "--report", dir, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res tuneOutcome
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "trace.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	if len(recs)-1 != res.Evals {
		t.Fatalf("%d trace rows, %d evaluations", len(recs)-1, res.Evals)
	}
	best, total := math.Inf(1), 0.0
	for _, r := range recs[1:] {
		sec, _ := strconv.ParseFloat(r[col["gpu_seconds"]], 64)
		want := 0.0
		if r[col["status"]] == "ok" {
			// The synthetic rows: no compile or prepare time, no warm-ups,
			// a verifying pass at the median and three passes of 0.99,
			// 1 and 1.01 times it.
			ms, _ := strconv.ParseFloat(r[col["median_ms"]], 64)
			want = 4 * ms / 1e3
			best = min(best, ms)
		}
		total += sec
		if math.Abs(sec-want) > 6e-4 {
			t.Errorf("evaluation %s: %v GPU seconds, want %v", r[col["n"]], sec, want)
		}
		if b, _ := strconv.ParseFloat(r[col["best_ms"]], 64); b != best {
			t.Errorf("evaluation %s: best so far %v, want %v", r[col["n"]], b, best)
		}
	}
	if best != res.BestMs {
		t.Errorf("trace's best %v, tune's %v", best, res.BestMs)
	}
	wellFormedSVG(t, filepath.Join(dir, "best-so-far.svg"))
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil || !strings.Contains(string(md), "## New bests") || !strings.Contains(string(md), "--replay "+rec) {
		t.Errorf("report.md (%v):\n%s", err, md)
	}
}
