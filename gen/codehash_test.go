package gen

import (
	"testing"

	"github.com/tcgen/tcgen/ir"
)

// CodeHash is stable for one plan and target and changes with anything
// the compiler gets: the source (a template edit), a header, an option, the
// arch.
func TestCodeHash(t *testing.T) {
	p, ok := ir.Preset("polak")
	if !ok {
		t.Fatal("no preset polak")
	}
	gen := func() *Output {
		out, err := Generate(p, DefaultTarget())
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	out := gen()
	h := CodeHash(out, "compute_90")
	if len(h) != codeHashLen || CodeHash(gen(), "compute_90") != h {
		t.Fatalf("CodeHash %q is not a stable %d-digit hash", h, codeHashLen)
	}
	changed := map[string]func(o *Output) string{
		"arch":   func(o *Output) string { return CodeHash(o, "compute_100") },
		"source": func(o *Output) string { o.Source += "\n// edited template\n"; return CodeHash(o, "compute_90") },
		"option": func(o *Output) string {
			o.Manifest.Options = append(o.Manifest.Options, "-lineinfo")
			return CodeHash(o, "compute_90")
		},
		"header":  func(o *Output) string { o.Headers["tcgen.cuh"] += " "; return CodeHash(o, "compute_90") },
		"headers": func(o *Output) string { o.Headers["extra.cuh"] = ""; return CodeHash(o, "compute_90") },
	}
	for what, f := range changed {
		if f(gen()) == h {
			t.Errorf("a changed %s keeps the code hash", what)
		}
	}
}
