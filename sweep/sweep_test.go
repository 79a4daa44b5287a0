package sweep

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
)

func TestRecordSweep(t *testing.T) {
	f, err := Load("../examples/sweeps/record.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := f.Sources("../../shared/datasets")
	if err != nil {
		t.Skipf("shared datasets not beside the repository: %v", err)
	}
	if len(srcs) != 11 {
		t.Fatalf("%d graphs, want 11", len(srcs))
	}
	for _, s := range srcs[:8] {
		if s.Expect == nil || s.Path == "" {
			t.Errorf("%s: no path or count from the manifest", s.Label)
		}
	}
	if s := srcs[10]; s.Label != "rmat22" || s.Gen != graph.DefaultRMAT(22) || s.Expect != nil {
		t.Errorf("last graph %+v", s)
	}
	target := gen.DefaultTarget()
	target.MaxSharedPerBlock = autotune.MaxSharedOptin
	sp, err := f.Expand(target)
	if err != nil {
		t.Fatal(err)
	}
	// The model sweep: at least 200 plans covering at least 8 iterator/intersection pairs.
	pairs := map[string]bool{}
	for _, p := range sp.Plans {
		for _, c := range p.Classes {
			pairs[string(c.Iterator)+"/"+string(c.Intersection)] = true
		}
		if p.Guard != nil {
			for _, v := range p.Guard.Variants {
				for _, c := range v.Classes {
					pairs[string(c.Iterator)+"/"+string(c.Intersection)] = true
				}
			}
		}
	}
	if len(sp.Plans) < 200 || len(pairs) < 8 {
		t.Errorf("%d plans, %d pairs %v; want >= 200 and >= 8", len(sp.Plans), len(pairs), pairs)
	}
}

func TestFilters(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	os.WriteFile(p, []byte(`
name: f
graphs: [{rmat: {scales: [8]}}]
space_inline:
  name: inner
  classes: [1]
  strategies:
    - {name: merge, iterator: edge, intersection: merge, width: ["1"], block: [128, 256]}
    - {name: hash, iterator: vertex, intersection: hash, width: ["32"], block: [256], params: {buckets: [32, 64]}}
  plans: [preset:polak, preset:trust]
include: ["preset:*", "merge*"]
exclude: ["*b128*", "preset:trust"]
`), 0o644)
	f, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := f.Expand(gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range sp.Labels {
		got = append(got, l)
	}
	if strings.Join(got, ";") != "preset:polak;merge w1 b256" {
		t.Errorf("kept %q", got)
	}
	reasons := map[string]string{}
	for _, c := range sp.Cands.Culled {
		reasons[c.Label] = c.Reason
	}
	if reasons["preset:trust"] != "excluded" || reasons["merge w1 b128"] != "excluded" || reasons["hash w32 b256 buckets=32"] != "not included" {
		t.Errorf("culled %v", reasons)
	}
	if sp.Cands.Name != "f" {
		t.Errorf("space named %q, want the sweep's name", sp.Cands.Name)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{``, "empty file"},
		{"graphs: [{rmat: {scales: [8]}}]\nspace: x.yaml", "name"},
		{"name: x\nspace: x.yaml", "at least one graph"},
		{"name: x\ngraphs: [{rmat: {scales: [8]}}]", "exactly one of space"},
		{"name: x\ngraphs: [{rmat: {scales: [40]}}]\nspace: x.yaml", "1..32"},
		{"name: x\ngraphs: [{file: a, dataset: b}]\nspace: x.yaml", "exactly one of dataset"},
		{"name: x\ngraphs: [{rmat: {scales: [8]}, expect: 3}]\nspace: x.yaml", "expect"},
		{"name: x\ngraphs: [{file: a}]\nspace: x.yaml\ninclude: ['']", "empty pattern"},
		{"name: x\ngraphs: [{file: a}]\nspace: x.yaml\nbogus: 1", "bogus"},
		{"name: x\ngraphs: [{rmat: {scales: [8], edge_factor: 0}}]\nspace: x.yaml",
			"line 2: graphs[0].rmat.edge_factor: 0 is out of range; allowed: integers 1 and up (leave edge_factor out for the default)"},
		{"name: x\ngraphs: [{rmat: {scales: [8.5]}}]\nspace: x.yaml", "line 2: graphs[0].rmat.scales[0]: 8.5 is not an integer; allowed: integers"},
		{"name: x\ngraphs: [{er: {vertices: 10, edges: 5, seed: 0}}]\nspace: x.yaml", "graphs[0].er.seed: 0 is out of range"},
	} {
		_, err := Parse([]byte(tc.src), "w.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "w.yaml: ") {
			t.Errorf("%q: %v, want an error naming w.yaml and %q", tc.src, err, tc.want)
		}
	}
}

func TestManifestErrors(t *testing.T) {
	dir := t.TempDir()
	f, _ := Parse([]byte("name: x\ngraphs: [{dataset: a}]\nspace: s.yaml"), "w.yaml")
	if _, err := f.Sources(dir); err == nil || !strings.Contains(err.Error(), "MANIFEST.tsv") {
		t.Errorf("no manifest: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "MANIFEST.tsv"), []byte("name\tfile\ttriangles\nb\tb.txt\t3\n"), 0o644)
	if _, err := f.Sources(dir); err == nil || !strings.Contains(err.Error(), `dataset "a"`) {
		t.Errorf("unknown dataset: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "MANIFEST.tsv"), []byte("name\tfile\ttriangles\na\ta.txt\tmany\n"), 0o644)
	if _, err := f.Sources(dir); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad count: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("name: x\ngraphs: [{rmat: {scales: [8]}}]\nspace: s.yaml"))
	f.Add([]byte("name: x\ngraphs: [{datasets: [a, b]}]\nspace_inline: {name: i, plans: [preset:polak]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Parse(data, "f.yaml") // must not panic
	})
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"spec:*", "spec:../pivot.yaml", true}, {"preset:polak", "preset:polak", true},
		{"preset:p*k", "preset:polak", true}, {"*b128*", "merge w1 b128", true}, {"*b128*", "merge w1 b256", false},
		{"a*b*c", "abc", true}, {"a*b*c", "acb", false}, {"ab", "abc", false}, {"*c", "abcc", true},
	} {
		if got := glob(tc.p, tc.s); got != tc.want {
			t.Errorf("glob(%q, %q) = %v", tc.p, tc.s, got)
		}
	}
}

func TestModelSweep(t *testing.T) {
	f, err := Load("../examples/sweeps/model.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := f.Sources("../../shared/datasets")
	if err != nil {
		t.Skipf("shared datasets not beside the repository: %v", err)
	}
	rec, _ := Load("../examples/sweeps/record.yaml")
	recSrcs, _ := rec.Sources("../../shared/datasets")
	seen := map[string]bool{}
	for _, s := range append(srcs, recSrcs...) {
		if seen[s.Label] {
			t.Errorf("graph %s in both sweeps", s.Label)
		}
		seen[s.Label] = true
	}
	// Leave-one-out over at least 20 graphs, real and generated.
	if len(seen) < 20 {
		t.Errorf("%d graphs", len(seen))
	}
	target := gen.DefaultTarget()
	target.MaxSharedPerBlock = autotune.MaxSharedOptin
	sp, err := f.Expand(target)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Plans) != 24 {
		t.Errorf("%d plans, want the 15 fixed and 9 one-class points: %q", len(sp.Plans), sp.Labels)
	}
}

// TestDrySources: without the datasets' manifest, a dry run's sources list
// the datasets by name with a note, and the other graphs as Sources does.
func TestDrySources(t *testing.T) {
	f, err := Parse([]byte("name: x\ngraphs: [{dataset: karate}, {rmat: {scales: [8, 9]}}, {datasets: [jazz, lastfm]}]\nspace: x.yaml"), "w.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := f.Sources(dir); err == nil {
		t.Fatal("Sources without a manifest: no error")
	}
	srcs, err := f.DrySources(dir)
	var labels []string
	for _, s := range srcs {
		labels = append(labels, s.Label)
		if (s.Note != "") != (s.Gen == nil) || s.Path != "" {
			t.Errorf("%+v", s)
		}
	}
	if err != nil || strings.Join(labels, " ") != "karate rmat8 rmat9 jazz lastfm" || !strings.Contains(srcs[0].Note, "no MANIFEST.tsv in "+dir) {
		t.Errorf("%v: %q, %+v", err, labels, srcs)
	}
}

// TestRecordLargeSweep: the large space's recording runs 5445 points on 8
// graphs of 6 families, and every count it gives is the CPU oracle's.
func TestRecordLargeSweep(t *testing.T) {
	f, err := Load("../examples/sweeps/record-large.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := f.DrySources(t.TempDir()) // the datasets by name: no manifest there
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, s := range srcs {
		labels = append(labels, s.Label)
		if s.Gen == nil {
			continue
		}
		g, _, err := graph.Generate(s.Gen)
		if err != nil {
			t.Fatal(err)
		}
		if e := g.Edges(); e < 150_000 || e > 400_000 {
			t.Errorf("%s: %d edges; the recording's budget assumes 150 to 400 thousand", s.Label, e)
		}
		if s.Expect != nil {
			if want := graph.Oracle(g); *s.Expect != want {
				t.Errorf("%s: expect %d, the oracle counts %d", s.Label, *s.Expect, want)
			}
		}
	}
	want := "rmat14 rmat13-ef32-s42 grid300x300-diag er-n40000-m320000-s42 cl-n40000-d12-g2.1-s42 rgg2d-n40000-d16-s42 ca-AstroPh BlogCatalog3"
	if got := strings.Join(labels, " "); got != want {
		t.Errorf("graphs %s, want %s", got, want)
	}
	target := gen.DefaultTarget()
	target.MaxSharedPerBlock = autotune.MaxSharedOptin
	sp, err := f.Expand(target)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Plans) != 5445 {
		t.Errorf("%d points, want the large space's 5445", len(sp.Plans))
	}
}

// The generators a sweep file names beside RMAT, Erdos-Renyi and grids:
// Chung-Lu, geometric, small-world, block, preferential-attachment and
// road graphs, defaults filled, labelled by every parameter, refused with
// the generator's reason when they describe no graph.
func TestGeneratorSources(t *testing.T) {
	f, err := Parse([]byte(`name: x
graphs:
  - chung_lu: {vertices: 1000, degree: 8}
  - rgg: {vertices: 1000, dim: 3, degree: 10, seed: 7}
    expect: 5
  - ws: {vertices: 1000, k: 10, p: 0.1}
  - sbm: {vertices: 1000, blocks: 10, degree_in: 8, degree_out: 2, seed: 3}
  - ba: {vertices: 1000, m: 4}
  - road: {rows: 30, cols: 40, diagonals: true, delete: 0.2, links: 10}
  - rmat: {scales: [10], a: 0.45, b: 0.22, c: 0.22}
space: s.yaml`), "w.yaml")
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := f.Sources(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 7 || srcs[0].Label != "cl-n1000-d8-g2.5-s42" || srcs[0].Gen != (graph.ChungLu{N: 1000, Degree: 8, Gamma: 2.5, Seed: 42}) ||
		srcs[1].Label != "rgg3d-n1000-d10-s7" || srcs[1].Gen != (graph.RandomGeometric{N: 1000, Dim: 3, Degree: 10, Seed: 7}) || *srcs[1].Expect != 5 {
		t.Errorf("sources %+v", srcs)
	}
	for i, want := range []struct {
		label string
		gen   graph.Generator
	}{
		{"ws-n1000-k10-p0.1-s42", graph.WattsStrogatz{N: 1000, K: 10, P: 0.1, Seed: 42}},
		{"sbm-n1000-b10-in8-out2-s3", graph.SBM{N: 1000, Blocks: 10, DegreeIn: 8, DegreeOut: 2, Seed: 3}},
		{"ba-n1000-m4-s42", graph.BarabasiAlbert{N: 1000, M: 4, Seed: 42}},
		{"road30x40-del0.2-l10-s42-diag", graph.Road{Rows: 30, Cols: 40, Diagonals: true, Delete: 0.2, Links: 10, Seed: 42}},
		{"rmat10-a0.45-b0.22-c0.22", graph.RMAT{Scale: 10, EdgeFactor: 16, Seed: 42, A: 0.45, B: 0.22, C: 0.22}},
	} {
		if s := srcs[2+i]; s.Label != want.label || !reflect.DeepEqual(s.Gen, want.gen) {
			t.Errorf("source %d: %s %+v, want %s %+v", 2+i, s.Label, s.Gen, want.label, want.gen)
		}
	}
	for _, tc := range []struct{ src, want string }{
		{"chung_lu: {vertices: 1000, degree: 8, gamma: 3.5}", "graphs[0]: chung-lu: exponent gamma = 3.5 must lie in [2, 3]"},
		{"rgg: {vertices: 1000, dim: 4, degree: 8}", "graphs[0].rgg.dim: 4 is out of range"},
		{"rgg: {vertices: 1000}", "graphs[0]: rgg: give exactly one of radius and degree"},
		{"{chung_lu: {vertices: 10, degree: 2}, rgg: {vertices: 10, degree: 2}}", "exactly one of dataset, datasets, file, rmat, er, grid, chung_lu, rgg, ws, sbm, ba and road"},
		{"ws: {vertices: 1000, k: 3, p: 0.1}", "graphs[0]: watts-strogatz"},
		{"sbm: {vertices: 1000, blocks: 0, degree_in: 8, degree_out: 2}", "graphs[0]: "},
		{"ba: {vertices: 1000, m: 0}", "graphs[0]: barabasi-albert"},
		{"road: {rows: 30, cols: 40, delete: 1.5}", "graphs[0]: road"},
		{"rmat: {scales: [10], a: 0.6, b: 0.3, c: 0.3}", "graphs[0]: "},
		{"rmat: {scales: [10], a: 0.6}", "give all of a, b and c, or none"},
	} {
		_, err := Parse([]byte("name: x\ngraphs:\n  - "+tc.src+"\nspace: s.yaml"), "w.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestBuiltinSpaceByName: a sweep file on disk may name a built-in space
// as tune --space does, when no file of that name lies beside it; a name
// that is neither is an error listing the built-in ones.
func TestBuiltinSpaceByName(t *testing.T) {
	dir := t.TempDir()
	write := func(space string) string {
		p := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(p, []byte("name: s\nspace: "+space+"\ngraphs:\n  - rmat: {scales: [10]}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f, err := Load(write("model"))
	if err != nil {
		t.Fatal(err)
	}
	if sf, err := f.SpaceFile(); err != nil || sf.Name != "model" {
		t.Errorf("space: model: %v", err)
	}
	if f, err = Load(write("nope")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.SpaceFile(); err == nil || !strings.Contains(err.Error(), "sweep s: space "+filepath.Join(dir, "nope")+": no such file (built-in spaces: default, large, model") {
		t.Errorf("space: nope: %v", err)
	}
}
