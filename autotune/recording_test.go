package autotune

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/store"
)

// TestReplayRecording replays every strategy against the exhaustive runs
// recorded on a GPU (testdata/record-*.jsonl: tcgen store export of the
// sweep examples/sweeps/record.yaml, docs/tuning.md): with a tenth of the
// evaluations, each must come within 5% of the exhaustive best (median over
// graphs and seeds; the worst case is logged). Each graph's tune starts as
// tcgen tune starts on a graph it has not seen: from the model's best
// plans, trained on the recording's other graphs (leave-one-out). The cold
// start (no model) is logged beside it.
func TestReplayRecording(t *testing.T) {
	var files []string
	all, _ := filepath.Glob("testdata/record-*.jsonl*")
	for _, f := range all {
		if !strings.HasPrefix(filepath.Base(f), "record-large-") { // the large space's (replay_large_test.go)
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Skip("no recording in tune/testdata yet (scripts/gpu-sweep.sh records one on the GPU)")
	}
	sf, err := LoadSpace("../examples/spaces/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	target := gen.DefaultTarget()
	target.MaxSharedPerBlock = MaxSharedOptin
	full, err := sf.Expand(target)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		rows, byGraph := readRecording(t, file)
		gaps := map[string][]float64{}
		recorded := 0 // graphs with the whole space measured
		for _, name := range slices.Sorted(func(yield func(string) bool) {
			for k := range byGraph {
				if !yield(k) {
					return
				}
			}
		}) {
			have := map[string]bool{}
			for _, r := range byGraph[name] {
				have[r.Plan] = true
			}
			sp := full.Subset(func(i int) bool { return have[full.Cands.Plans[i]] })
			if len(sp.Plans) < len(full.Plans)*9/10 {
				continue // measured by another sweep (model.yaml): it trains the warm start only
			}
			recorded++
			rp, err := NewReplay(&sp.Cands, byGraph[name])
			if err != nil {
				t.Fatal(err)
			}
			_, best := rp.Best()
			budget := int(math.Ceil(float64(len(sp.Plans)) / 10))
			fp := byGraph[name][0].Graph
			warm := WarmStartFrom(rows, fp, featuresOf(rows, fp), RowGPU(byGraph[name][0]), &sp.Cands, WarmStartN)
			if len(warm) == 0 {
				t.Fatalf("%s: no warm start from the other graphs", name)
			}
			for _, s := range []string{"random", "coordinate", "halving", "tpe"} {
				for seed := uint64(1); seed <= 5; seed++ {
					for _, start := range [][]int{nil, warm} {
						strat, _ := StrategyByName(s)
						out, err := Run(context.Background(), &sp.Cands, strat, rp, Options{Seed: seed, Budget: Budget{Evals: budget}, Start: start})
						if err != nil {
							t.Fatal(err)
						}
						key := s + " cold"
						if start != nil {
							key = s + " warm"
						}
						gaps[key] = append(gaps[key], out.Score/best-1)
					}
				}
			}
		}
		if recorded < 6 {
			t.Errorf("%s: only %d graphs have the whole space recorded, want 6 or more", file, recorded)
		}
		for _, s := range []string{"random", "coordinate", "halving", "tpe"} {
			for _, mode := range []string{"cold", "warm"} {
				g := gaps[s+" "+mode]
				sort.Float64s(g)
				med, worst := g[len(g)/2], g[len(g)-1]
				t.Logf("%s: %-10s %s start: median gap %5.2f%%, worst %6.2f%% over %d graph x seed runs", filepath.Base(file), s, mode, 100*med, 100*worst, len(g))
				if mode == "warm" && med > 0.05 {
					t.Errorf("%s: %s: median gap %.2f%% with a tenth of the evaluations, want <= 5%%", file, s, 100*med)
				}
			}
		}
	}
}

// readRecording reads a recording (tcgen store export) and groups its rows
// by graph.
func readRecording(t *testing.T, file string) ([]store.Row, map[string][]store.Row) {
	t.Helper()
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := store.ReadJSON(fh, file)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	byGraph := map[string][]store.Row{}
	for _, r := range rows {
		byGraph[r.GraphName] = append(byGraph[r.GraphName], r)
	}
	return rows, byGraph
}
