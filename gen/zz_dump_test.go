package gen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/tcgen/tcgen/ir"
)

func TestZZDump(t *testing.T) {
	os.MkdirAll("/tmp/nv/rand", 0o755)
	rng := rand.New(rand.NewPCG(7, 0))
	tg := DefaultTarget()
	tg.MaxSharedPerBlock = 99 << 10
	n := 0
	for i := 0; n < 60 && i < 1000; i++ {
		p := ir.RandomPlan(rng)
		if p.CheckGeneratable() != nil {
			continue
		}
		out, err := Generate(p, tg)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(fmt.Sprintf("/tmp/nv/rand/r%02d.cu", n), []byte(out.Source), 0o644)
		n++
	}
	for _, p := range ir.Presets() {
		if p.CheckGeneratable() != nil {
			continue
		}
		out, err := Generate(p, tg)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile("/tmp/nv/rand/"+p.Prefix+".cu", []byte(out.Source), 0o644)
	}
}
