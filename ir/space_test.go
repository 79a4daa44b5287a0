package ir

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestRandomPlan(t *testing.T) {
	a := rand.New(rand.NewPCG(42, 0))
	b := rand.New(rand.NewPCG(42, 0))
	pairs := map[[2]string]int{}
	keys := map[Key]int{}
	widths := map[string]int{}
	classes := map[int]int{}
	skips := 0
	for i := range 3000 {
		p, q := RandomPlan(a), RandomPlan(b)
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("draw %d: same seed, different plans", i)
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("draw %d: invalid plan: %v", i, err)
		}
		if err := p.CheckGeneratable(); err != nil {
			t.Fatalf("draw %d: %v", i, err)
		}
		n := 0
		for _, c := range p.Classes {
			keys[c.Select.Key]++
			if c.Skip {
				skips++
				continue
			}
			n++
			pairs[[2]string{string(c.Iterator), string(c.Intersection)}]++
			w := "block"
			if c.Width <= 32 && c.Width != c.Block {
				w = strings.Repeat("x", c.Width)
			}
			widths[w]++
		}
		classes[n]++
	}
	for _, pr := range SupportedPairs() {
		if pairs[pr] < 20 {
			t.Errorf("pair %v drawn %d times", pr, pairs[pr])
		}
	}
	for pr := range pairs {
		if !Supported[pr] {
			t.Errorf("drew unsupported pair %v", pr)
		}
	}
	for _, k := range Keys {
		if keys[k] < 20 {
			t.Errorf("key %s drawn %d times", k, keys[k])
		}
	}
	for n := 1; n <= 3; n++ {
		if classes[n] < 20 {
			t.Errorf("%d-class plans drawn %d times", n, classes[n])
		}
	}
	if skips < 20 || len(widths) < 7 {
		t.Errorf("skips %d, widths %v", skips, widths)
	}
}

// With no supported pair marked, RandomPlan draws from every valid pair.
func TestRandomPlanAllPairs(t *testing.T) {
	saved := Supported
	Supported = map[[2]string]bool{}
	defer func() { Supported = saved }()
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[[2]string]bool{}
	for range 3000 {
		p := RandomPlan(rng)
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		for _, c := range p.Classes {
			if !c.Skip {
				seen[[2]string{string(c.Iterator), string(c.Intersection)}] = true
			}
		}
	}
	if len(seen) != len(Pairs()) {
		t.Errorf("drew %d of %d pairs", len(seen), len(Pairs()))
	}
}

func TestDimensions(t *testing.T) {
	ds := Dimensions()
	byName := map[string]Dimension{}
	for _, d := range ds {
		if _, dup := byName[d.Name]; dup {
			t.Errorf("dimension %s listed twice", d.Name)
		}
		byName[d.Name] = d
		if d.Doc == "" || d.Range == "" {
			t.Errorf("dimension %s lacks a doc or range", d.Name)
		}
	}
	for _, n := range []string{"iterator", "intersection", "pair", "width", "block", "key", "orientation", "relabel", "guard.feature"} {
		if _, ok := byName[n]; !ok {
			t.Errorf("missing dimension %s", n)
		}
	}
	for _, pr := range Pairs() {
		for _, ps := range ParamsFor(Strategy{Iterator: Iterator(pr[0]), Intersection: Intersection(pr[1])}) {
			d, ok := byName["param."+ps.Name]
			if !ok {
				t.Errorf("param %s missing", ps.Name)
				continue
			}
			if d.Source == "" || d.Default == "" {
				t.Errorf("param %s lacks source or default", ps.Name)
			}
			found := false
			for _, a := range d.AppliesTo {
				found = found || a == pr[0]+"/"+pr[1]
			}
			if !found {
				t.Errorf("param %s does not list %v", ps.Name, pr)
			}
		}
	}
	if d := byName["param.cta"]; d.Default != "0 (fixed)" || len(d.Values) != 4 {
		t.Errorf("param.cta: %+v", d)
	}
}
