package tune

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/store"
)

// TestReplayRecording replays every strategy against the exhaustive runs
// recorded on a GPU (testdata/record-*.jsonl: tcgen store export of the
// sweep examples/sweeps/record.yaml, docs/tuning.md): with a tenth of the
// evaluations, each must come within 5% of the exhaustive best (median over
// graphs and seeds; the worst case is logged).
func TestReplayRecording(t *testing.T) {
	files, _ := filepath.Glob("testdata/record-*.jsonl")
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
		gaps := map[string][]float64{}
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
				t.Errorf("%s: %s: the recording covers %d of the space's %d points", file, name, len(sp.Plans), len(full.Plans))
				continue
			}
			rp, err := NewReplay(&sp.Cands, byGraph[name])
			if err != nil {
				t.Fatal(err)
			}
			_, best := rp.Best()
			budget := int(math.Ceil(float64(len(sp.Plans)) / 10))
			for _, s := range []string{"random", "coordinate", "halving", "tpe"} {
				for seed := uint64(1); seed <= 5; seed++ {
					strat, _ := StrategyByName(s)
					out, err := Run(context.Background(), &sp.Cands, strat, rp, Options{Seed: seed, Budget: Budget{Evals: budget}})
					if err != nil {
						t.Fatal(err)
					}
					gaps[s] = append(gaps[s], out.Score/best-1)
				}
			}
		}
		for _, s := range []string{"random", "coordinate", "halving", "tpe"} {
			g := gaps[s]
			sort.Float64s(g)
			med, worst := g[len(g)/2], g[len(g)-1]
			t.Logf("%s: %-10s median gap %5.2f%%, worst %6.2f%% over %d graph x seed runs", filepath.Base(file), s, 100*med, 100*worst, len(g))
			if med > 0.05 {
				t.Errorf("%s: %s: median gap %.2f%% with a tenth of the evaluations, want <= 5%%", file, s, 100*med)
			}
		}
	}
}
