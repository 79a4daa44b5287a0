package autotune

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tcgen/tcgen/gen"
)

func TestExpandSmall(t *testing.T) {
	s, err := LoadSpace("../examples/spaces/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.Expand(gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	// 5 class configurations (2 merge blocks + 3 hash bucket counts):
	// 1 class: 5; 2 classes: 3 cuts x 5 x 5 = 75; 2 fixed plans.
	if got, want := len(sp.Cands.Points)+len(sp.Cands.Culled), 2+5+75; got != want {
		t.Fatalf("%d points and culled, want %d", got, want)
	}
	if len(sp.Plans) != len(sp.Cands.Points) || len(sp.Labels) != len(sp.Plans) || len(sp.Cands.Plans) != len(sp.Plans) {
		t.Fatal("plans, labels and points differ in length")
	}
	seen := map[string]bool{}
	keys := map[string]bool{}
	for i, p := range sp.Plans {
		if err := p.Validate(); err != nil {
			t.Errorf("point %d (%s): %v", i, sp.Labels[i], err)
		}
		if p.Name() != sp.Cands.Plans[i] {
			t.Errorf("point %d: plan %s, listed as %s", i, p.Name(), sp.Cands.Plans[i])
		}
		if seen[p.Name()] {
			t.Errorf("plan %s twice", p.Name())
		}
		seen[p.Name()] = true
		k := sp.Cands.Points[i].Key()
		if keys[k] {
			t.Errorf("point %s twice", k)
		}
		keys[k] = true
		if len(sp.Cands.Points[i]) != len(sp.Cands.Dims) {
			t.Errorf("point %d has %d coordinates for %d dimensions", i, len(sp.Cands.Points[i]), len(sp.Cands.Dims))
		}
	}
	if sp.Labels[0] != "preset:polak" {
		t.Errorf("first label %q", sp.Labels[0])
	}
	var two string
	for _, l := range sp.Labels {
		if strings.HasPrefix(l, "cuts 16: merge w1 b128 | hash w32 b256 buckets=64") {
			two = l
		}
	}
	if two == "" {
		t.Errorf("no two-class label of the expected form among %d", len(sp.Labels))
	}
	for _, c := range sp.Cands.Culled {
		if c.Reason == "" {
			t.Errorf("culled %s without a reason", c.Label)
		}
	}
}

func TestExpandCulls(t *testing.T) {
	// Pivot classes cannot be mixed with others (ir/params_pivot_hash.go): the
	// restrictions remove those points, each with its reason.
	s, err := ParseSpace([]byte(`
name: culls
classes: [2]
cuts: [16]
strategies:
  - {iterator: edge, intersection: merge, width: ["1"], block: [256]}
  - {iterator: pivot, intersection: hash, width: ["32"], block: [256], params: {table: [64]}}
`), "culls.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := s.Expand(gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	// merge+merge and pivot+pivot pass; the two mixes are culled.
	if len(sp.Plans) != 2 || len(sp.Cands.Culled) != 2 {
		t.Fatalf("%d plans, %d culled: %+v", len(sp.Plans), len(sp.Cands.Culled), sp.Cands.Culled)
	}
	for _, c := range sp.Cands.Culled {
		if !strings.Contains(c.Reason, "pivot") {
			t.Errorf("culled %s: reason %q does not name the pivot rule", c.Label, c.Reason)
		}
	}
}

func TestParseSpaceErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{``, "empty file"},
		{`classes: [1]`, "name"},
		{"name: x\ncuts: [16, 8]\nplans: [preset:polak]", "cuts"},
		{"name: x\nclasses: [3]\ncuts: [16]\nplans: [preset:polak]", "3 classes need 2 cuts"},
		{"name: x\nplans: [polak]", "preset:NAME"},
		{"name: My-space\nplans: [preset:polak]", "a-z"},
		{"name: x\nclasses: [1, 1]\nplans: [preset:polak]", "strictly increasing"},
		{"name: x\ncuts: [-4, 8]\nplans: [preset:polak]", "positive"},
		{"name: x", "strategies or plans"},
		{"name: x\nbogus: 1", "bogus"},
		{"name: x\nstrategies: [{iterator: edge, intersection: merge, width: [wide]}]", "width"},
		{"name: x\nstrategies: [{iterator: edge, intersection: merge, block: 64}]", "`64` is not a list (write [x] for one value)"},
		{"name: x\nstrategies: [{iterator: edge, intersection: merge, params: {tile: 4}}]", "`4` is not a list (write [x] for one value)"},
		{"name: x\nstrategies: [{iterator: nope, intersection: merge}]", `strategies[0] (nope/merge): iterator "nope" unknown`},
		{"name: x\nstrategies: [{iterator: vertex, intersection: radix}]", "strategies[0] (vertex/radix): intersection radix does not apply"},
		{"name: x\ncuts: [8.5]\nplans: [preset:polak]", "line 2: cuts[0]: 8.5 is not an integer; allowed: integers"},
		{"name: x\nstrategies: [{iterator: vertex, intersection: hash, params: {buckets: [64, 1e2]}}]", "strategies[0].params.buckets[1]: 1e2 is not an integer"},
	} {
		_, err := ParseSpace([]byte(tc.src), "s.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "s.yaml: ") {
			t.Errorf("%q: error %v, want one naming s.yaml and %q", tc.src, err, tc.want)
		}
	}
}

// TestExpandAllRefused: a space whose every point the IR refuses expands
// to no plan, its culled points with their reasons, and Refused names the
// first; a space with points has no such reason, an empty one says so.
func TestExpandAllRefused(t *testing.T) {
	sf, err := ParseSpace([]byte("name: x\nstrategies: [{iterator: edge, intersection: merge, block: [32], params: {tile: [64]}}]"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := sf.Expand(gen.DefaultTarget())
	if err != nil || len(sp.Plans) != 0 || len(sp.Cands.Culled) == 0 {
		t.Fatalf("Expand: %v", err)
	}
	if why := sp.Refused(); !strings.HasPrefix(why, "space x: every point is refused, the first (") || !strings.Contains(why, sp.Cands.Culled[0].Reason) {
		t.Errorf("Refused = %q", why)
	}
	sf, _ = ParseSpace([]byte("name: y\nplans: [preset:polak]"), "s.yaml")
	if sp, err = sf.Expand(gen.DefaultTarget()); err != nil || sp.Refused() != "" {
		t.Errorf("a space with a point: %v, %q", err, sp.Refused())
	}
	if why := (&Space{Cands: Candidates{Name: "z"}}).Refused(); why != "space z: no point" {
		t.Errorf("a space without points: %q", why)
	}
}

func FuzzParseSpace(f *testing.F) {
	f.Add([]byte("name: x\nclasses: [1, 2]\ncuts: [8]\nstrategies: [{iterator: edge, intersection: merge, width: [\"1\", block], block: [64]}]"))
	f.Add([]byte("name: y\nplans: [preset:polak]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSpace(data, "f.yaml")
		if err != nil {
			return
		}
		if s.rawCount() > 50 {
			return // expansion generates every point: keep the fuzzer fast
		}
		sp, err := s.Expand(gen.DefaultTarget())
		if err != nil {
			return
		}
		for i, p := range sp.Plans {
			if err := p.Validate(); err != nil {
				t.Fatalf("point %d passed the restrictions but is invalid: %v", i, err)
			}
		}
	})
}

func TestDefaultSpaceSize(t *testing.T) {
	s, err := LoadSpace("../examples/spaces/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	target := gen.DefaultTarget()
	target.MaxSharedPerBlock = MaxSharedOptin // the H100/H200's opt-in
	sp, err := s.Expand(target)
	if err != nil {
		t.Fatal(err)
	}
	// The issue asks for a recorded exhaustive space of 200 to 500 points.
	if n := len(sp.Plans); n < 200 || n > 500 {
		t.Errorf("%d points (%d culled), want 200..500", n, len(sp.Cands.Culled))
	}
	t.Logf("%d points, %d culled", len(sp.Plans), len(sp.Cands.Culled))
}

// TestSpaceCore: the core is an axis of the class list; a space file that
// gives it the old way, as a pivot strategy's parameter, has it lifted there
// and expands to the same plans.
func TestSpaceCore(t *testing.T) {
	const head = `name: c
classes: [1, 2]
cuts: [16]
strategies:
  - name: merge
    iterator: edge
    intersection: merge
    width: ["1"]
  - name: pivot
    iterator: pivot
    intersection: hash
    width: ["32"]
    block: [256]
`
	cur, err := ParseSpace([]byte(head+"    params: {table: [256]}\ncore: [0, 4096]\n"), "cur.yaml")
	if err != nil {
		t.Fatal(err)
	}
	old, err := ParseSpace([]byte(head+"    params: {table: [256], core: [4096, 0]}\n"), "old.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var names [2][]string
	for i, s := range []*SpaceFile{cur, old} {
		sp, err := s.Expand(gen.DefaultTarget())
		if err != nil {
			t.Fatal(err)
		}
		names[i] = sp.Cands.Plans
		if i > 0 {
			continue
		}
		// merge or pivot, one class or two: 2 + 4 per core; a core culls
		// the plans without a pivot class and the mixes are culled.
		cores := 0
		for _, p := range sp.Plans {
			if p.Core != 0 {
				cores++
			}
		}
		if len(sp.Plans) != 6 || cores != 2 || len(sp.Cands.Culled) != 6 {
			t.Errorf("%d plans (%d with a core), %d culled: %v", len(sp.Plans), cores, len(sp.Cands.Culled), sp.Labels)
		}
	}
	if !slices.Equal(names[0], names[1]) {
		t.Errorf("plans %v, the old form's %v", names[0], names[1])
	}
	_, err = ParseSpace([]byte(head+"    params: {table: [256], core: [4096]}\ncore: [0, 4096]\n"), "both.yaml")
	if err == nil || !strings.Contains(err.Error(), "the core is set once") {
		t.Errorf("core twice: %v", err)
	}
}

// TestExpandLarge: examples/spaces/large.yaml has the 5445 points its
// comment counts (at least 5000, so 3% of it is a search), on every knob
// it names with more than one value, and its declared order opens with
// the id order: the order exhaustive search takes is not the good one.
func TestExpandLarge(t *testing.T) {
	sp := largeSpace(t)
	if n := len(sp.Plans); n != 5445 || n < 5000 {
		t.Fatalf("large space: %d points, want the 5445 its comment counts (5000 at least)", n)
	}
	values := map[string]map[int]bool{}
	for _, p := range sp.Cands.Points {
		for d, v := range p {
			name := sp.Cands.Dims[d].Name
			if values[name] == nil {
				values[name] = map[int]bool{}
			}
			if v >= 0 {
				values[name][v] = true
			}
		}
	}
	for _, knob := range []string{"orientation", "relabel", "core", "classes", "cut1", "c0.strategy", "c1.strategy",
		"c0.width", "c0.block", "c0.tile", "c0.buckets", "c0.table", "c0.item_work", "c0.queue", "c1.table"} {
		if len(values[knob]) < 2 {
			t.Errorf("axis %s takes %d values, want 2 or more", knob, len(values[knob]))
		}
	}
	orient := slices.IndexFunc(sp.Cands.Dims, func(d Dim) bool { return d.Name == "orientation" })
	for i := range len(sp.Plans) * 3 / 100 {
		if v := sp.Cands.Dims[orient].Values[sp.Cands.Points[i][orient]]; v != "id" {
			t.Fatalf("point %d (%s) is oriented by %s: the first 3%% should all be id order", i, sp.Labels[i], v)
		}
	}
	for i, p := range sp.Plans {
		if err := p.Validate(); err != nil {
			t.Errorf("point %d (%s): %v", i, sp.Labels[i], err)
		}
	}
}

var largeOnce = sync.OnceValues(func() (*Space, error) {
	sf, err := LoadSpace("../examples/spaces/large.yaml")
	if err != nil {
		return nil, err
	}
	target := gen.DefaultTarget()
	target.MaxSharedPerBlock = MaxSharedOptin
	return sf.Expand(target)
})

// largeSpace is the large space expanded for an H100's or H200's target
// (what the GPU expands it to), once per test binary.
func largeSpace(t *testing.T) *Space {
	t.Helper()
	sp, err := largeOnce()
	if err != nil {
		t.Fatal(err)
	}
	return sp
}
