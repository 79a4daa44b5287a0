package gen_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/gen/internal/golden"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/templates"
)

var update = flag.Bool("update", false, "rewrite the golden set in ../generated from the generator")

// goldenDir holds the one golden set (package gen/internal/golden).
const goldenDir = "../generated"

// goldenPlans are the generatable presets and the specs of the golden set.
func goldenPlans() []ir.Plan { return golden.Plans() }

// bigTarget is the golden set's target: 99 KiB of shared memory per block,
// so every valid hash fits.
func bigTarget() gen.Target { return golden.Target() }

// TestGolden: generated/ holds exactly what the generator writes for the
// golden set (make generate and go test ./gen -update both write it).
func TestGolden(t *testing.T) {
	want, err := golden.Files()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := golden.Write(goldenDir, want); err != nil {
			t.Fatal(err)
		}
	}
	have, err := golden.Existing(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range have {
		if _, ok := want[rel]; !ok {
			t.Errorf("generated/%s is not generated any more (run make generate)", rel)
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(want)) {
		data := want[rel]
		got, err := os.ReadFile(filepath.Join(goldenDir, filepath.FromSlash(rel)))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("generated/%s is missing or stale: run make generate (or go test ./gen -update) and review the diff (%v)", rel, err)
		}
	}
}

var externRE = regexp.MustCompile(`extern "C" __global__ void __launch_bounds__\((\w+)(?:, \d+)?\)\n(\w+)\(`)

// checkOutput checks the properties every generated unit has.
func checkOutput(t *testing.T, p ir.Plan, out *gen.Output) {
	t.Helper()
	src, m := out.Source, out.Manifest
	who := p.Name()
	if !strings.HasPrefix(src, gen.Header+"\n") {
		t.Errorf("%s: source does not start with the generated-code line", who)
	}
	// It includes its headers (tcgen.cuh) and nothing else: NVRTC may run
	// without the CUDA headers.
	for _, l := range strings.Split(src, "\n") {
		if name, ok := strings.CutPrefix(l, "#include "); ok {
			if _, have := out.Headers[strings.Trim(name, `"`)]; !have || !strings.HasPrefix(name, `"`) {
				t.Errorf("%s: %s is none of its headers", who, l)
			}
		}
	}
	if _, ok := out.Headers[templates.PreludeName]; !ok || !strings.Contains(src, `#include "`+templates.PreludeName+`"`) {
		t.Errorf("%s: source does not include %s", who, templates.PreludeName)
	}
	if m.Plan != who || out.FileName != who+".cu" || m.Source != out.FileName {
		t.Errorf("%s: names %q %q %q", who, m.Plan, out.FileName, m.Source)
	}
	// Kernel symbols: every non-skip class has one, each defined once;
	// nothing else is a kernel.
	defined := map[string]string{}
	for _, mm := range externRE.FindAllStringSubmatch(src, -1) {
		if _, dup := defined[mm[2]]; dup {
			t.Errorf("%s: kernel %s defined twice", who, mm[2])
		}
		defined[mm[2]] = mm[1]
	}
	wantKernels := 0
	needSrc := false
	nv := 1
	if p.Guard != nil {
		nv = len(p.Guard.Variants)
		if m.Feature != p.Guard.Feature {
			t.Errorf("%s: feature %q", who, m.Feature)
		}
	}
	if len(m.Variants) != nv {
		t.Fatalf("%s: %d variants, want %d", who, len(m.Variants), nv)
	}
	for vi, v := range m.Variants {
		for ci, c := range v.Classes {
			if c.Slot != ci {
				t.Errorf("%s: variant %d class %d has slot %d", who, vi, ci, c.Slot)
			}
			if c.Skip {
				continue
			}
			wantKernels++
			needSrc = needSrc || c.NeedsSrc
			if !strings.HasPrefix(c.Kernel, "tc_"+who+"_") {
				t.Errorf("%s: kernel name %q", who, c.Kernel)
			}
			if _, ok := defined[c.Kernel]; !ok {
				t.Errorf("%s: kernel %s not defined", who, c.Kernel)
			}
			// Exactly the part its kind names is set (none for single).
			if parts := [...]bool{c.Kind == gen.KindPivot, c.Pivot != nil, c.Kind == gen.KindRadix, c.Radix != nil, c.Kind == gen.KindBitwise, c.Bitwise != nil, c.Kind == gen.KindDense, c.Dense != nil}; c.Kind == "" || parts[0] != parts[1] || parts[2] != parts[3] || parts[4] != parts[5] || parts[6] != parts[7] {
				t.Errorf("%s: class %s: kind %q with parts %v", who, c.Name, c.Kind, parts)
			}
			var phases []gen.Helper
			if c.Radix != nil {
				phases = c.Radix.Phases
			}
			for i, h := range phases { // wedge/radix (gen/wedge_radix.go): phase 0 is c.Kernel
				if _, ok := defined[h.Kernel]; !ok || (i == 0) != (h.Kernel == c.Kernel) {
					t.Errorf("%s: phase %s kernel %s not defined or misplaced", who, h.Phase, h.Kernel)
				}
				wantKernels += min(i, 1)
			}
			if c.Grid.ItemsPerBlock <= 0 && !(c.Pivot != nil && c.Grid.BlocksPerSM > 0) { // pivot: persistent blocks
				t.Errorf("%s: class %s has no grid formula", who, c.Name)
			}
			if dense := c.Iterator == ir.IterEdge && c.Intersection == ir.Bitmap; dense != (c.Dense != nil) || dense != (c.Scratch != nil && c.Scratch.Square) {
				t.Errorf("%s: class %s: dense %v, rows %v, scratch %+v", who, c.Name, dense, c.Dense, c.Scratch)
			} else if dense {
				wantKernels++
				if _, ok := defined[c.Dense.Rows.Kernel]; !ok {
					t.Errorf("%s: rows kernel %s not defined", who, c.Dense.Rows.Kernel)
				}
			}
			if aligned := c.Params[ir.ParamAlign] > 0 && m.Output != ir.OutputVertex && m.Output != ir.OutputEdge; aligned != (c.Kind == gen.KindAligned) || aligned != (c.Aligned != nil) {
				t.Errorf("%s: class %s: align %d, kind %s, part %+v", who, c.Name, c.Params[ir.ParamAlign], c.Kind, c.Aligned)
			} else if aligned {
				wantKernels++
				if _, ok := defined[c.Aligned.Copy.Kernel]; !ok || c.Aligned.Tile != int(c.Params[ir.ParamTile]) {
					t.Errorf("%s: copy kernel %s not defined, or tile %d", who, c.Aligned.Copy.Kernel, c.Aligned.Tile)
				}
				// carry: a kernel writing the items of 16 bytes, where target items are taken
				if carry := c.Params[ir.ParamCarry] == 1 && c.Target; carry != (c.Aligned.Carry != nil) {
					t.Errorf("%s: class %s: carry %d, target %v, carry kernel %+v", who, c.Name, c.Params[ir.ParamCarry], c.Target, c.Aligned.Carry)
				} else if carry {
					wantKernels++
					if _, ok := defined[c.Aligned.Carry.Kernel]; !ok {
						t.Errorf("%s: carry kernel %s not defined", who, c.Aligned.Carry.Kernel)
					}
				}
			}
			if pivot := c.Pivot != nil; pivot != (c.Iterator == ir.IterPivot) || pivot && (m.Pivot == nil || m.Pivot.Index(vi, c.Slot) < 0) {
				t.Errorf("%s: class %s: pivot %v, iterator %s, helpers %v", who, c.Name, c.Pivot != nil, c.Iterator, m.Pivot)
			}
			if false {
				t.Errorf("%s: class %s has no grid formula", who, c.Name)
			}
			if c.StaticSharedBytes > ir.SharedLimit || c.StaticSharedBytes > 0 && c.DynamicSharedBytes > 0 {
				t.Errorf("%s: class %s shared %d static %d dynamic", who, c.Name, c.StaticSharedBytes, c.DynamicSharedBytes)
			}
			// Skiff's index organisations (gen/hash.go) give vertex classes edge lists.
			skiffIndex := c.Intersection == ir.Hash && (c.Params[ir.ParamCTA] == ir.CTABlockIndex || c.Params[ir.ParamCTA] == ir.CTAWarpIndex)
			vertexItems := c.Iterator == ir.IterVertex && !skiffIndex || c.Iterator == ir.IterWedge || c.Pivot != nil // wedge/radix: per vertex (gen/wedge_radix.go); pivot: per pivot
			// A pivot's local counts per vertex name an in-edge's u by src (gen/pivot_hash.go).
			// Target items carry N+(u) after v (targetitems.go): no src.
			wantSrc := !vertexItems && !c.Target || c.Pivot != nil && m.Output == ir.OutputVertex
			if c.Target && (c.Iterator != ir.IterEdge || c.Intersection != ir.Merge || m.Output != "" && m.Output != ir.OutputTotal) {
				t.Errorf("%s: class %s: target items for %s/%s with output %q", who, c.Name, c.Iterator, c.Intersection, m.Output)
			}
			if vertexItems != (c.Items == gen.ItemsVertices) || c.NeedsSrc != wantSrc {
				t.Errorf("%s: class %s: items %s, needs src %v for the %s iterator", who, c.Name, c.Items, c.NeedsSrc, c.Iterator)
			}
		}
		if v.Classes[0].Key == ir.KeyWork && v.Work == "" {
			t.Errorf("%s: work-keyed variant without a work model", who)
		}
	}
	if needSrc != (m.Src != nil) {
		t.Errorf("%s: src kernel %v, needed %v", who, m.Src, needSrc)
	} else if m.Src != nil {
		wantKernels++
		if _, ok := defined[m.Src.Kernel]; !ok {
			t.Errorf("%s: src kernel %s not defined", who, m.Src.Kernel)
		}
	}
	if m.Pivot != nil { // pivot preparation (gen/pivot_hash.go)
		for _, k := range m.Pivot.Kernels() {
			wantKernels++
			if _, ok := defined[k]; !ok {
				t.Errorf("%s: pivot helper %s not defined", who, k)
			}
		}
	}
	for _, k := range m.Slices.Kernels() { // bit-slice helpers (gen/edge_bitwise.go)
		wantKernels++
		if _, ok := defined[k]; !ok {
			t.Errorf("%s: slice helper %s not defined", who, k)
		}
	}
	if len(defined) != wantKernels {
		t.Errorf("%s: %d kernels defined, manifest names %d", who, len(defined), wantKernels)
	}
}

// TestGenerateRandom: Validate-then-Generate never fails for a generatable
// plan (presets, specs and 200 seeded random plans), output is
// deterministic, and different plans get different names.
func TestGenerateRandom(t *testing.T) {
	plans := goldenPlans()
	rng := rand.New(rand.NewPCG(2024, 6))
	for range 200 {
		plans = append(plans, ir.RandomPlan(rng))
	}
	names := map[string]string{}
	generated := 0
	pairs := map[ir.Pair]bool{}
	for _, p := range plans {
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: invalid: %v", p.Prefix, err)
		}
		if err := gen.Check(p); err != nil {
			if !errors.Is(err, gen.ErrNotGenerated) {
				t.Errorf("%s: a valid plan refused without ErrNotGenerated: %v", p.Name(), err)
			}
			if _, err := gen.Generate(p, bigTarget()); err == nil {
				t.Errorf("%s: generated a plan Check refuses", p.Name())
			}
			continue
		}
		out, err := gen.Generate(p, bigTarget())
		if err != nil {
			t.Errorf("%s: %v", p.Name(), err)
			continue
		}
		generated++
		for _, v := range out.Manifest.Variants {
			for _, c := range v.Classes {
				if !c.Skip {
					pairs[ir.Pair{Iterator: c.Iterator, Intersection: c.Intersection}] = true
				}
			}
		}
		checkOutput(t, p, out)
		again, err := gen.Generate(p.Clone(), bigTarget())
		if err != nil || again.Source != out.Source {
			t.Errorf("%s: not deterministic", p.Name())
		}
		if prev, ok := names[out.Manifest.Plan]; ok && prev != out.Source {
			t.Errorf("%s: two different plans share the name", out.Manifest.Plan)
		}
		names[out.Manifest.Plan] = out.Source
		// The default target (48 KiB, static only) refuses only for shared memory.
		if _, err := gen.Generate(p, gen.DefaultTarget()); err != nil && !strings.Contains(err.Error(), "shared memory") {
			t.Errorf("%s: default target: %v", p.Name(), err)
		}
	}
	if generated < 100 {
		t.Errorf("only %d of %d plans were generatable", generated, len(plans))
	}
	// Every pair gen registers is drawn and generated.
	for _, pr := range ir.GeneratedPairs() {
		if !pairs[pr] {
			t.Errorf("no plan generated %s", pr)
		}
	}
	t.Logf("generated %d plans", generated)
}

// Derived numbers reach the source as constants, with their checks.
func TestDerivedConstants(t *testing.T) {
	p, _ := ir.Preset("trust")
	out, err := gen.Generate(p, gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"constexpr u32 BUCKETS = 1024;", "constexpr u32 MASK = 1023;", "constexpr u32 SLOTS = 4;",
		"constexpr u32 BUCKETS = 32;", "constexpr u32 MASK = 31;", "constexpr u32 GROUPS = 8;",
		"static_assert(BUCKETS == MASK + 1", "static_assert(tc::Shape<BLOCK, WIDTH, GROUPS, TEAM>::ok);",
		"__shared__ u64 smem[", "WALK_AT", "tc::finish_count(c, counts, SLOT, NSLOTS);",
	} {
		if !strings.Contains(out.Source, want) {
			t.Errorf("trust source lacks %q", want)
		}
	}
	// Graph sizes are arguments, never constants.
	if regexp.MustCompile(`constexpr \w+ (N|M|NITEMS|EDGES|VERTICES) =`).MatchString(out.Source) {
		t.Error("a graph size is baked in")
	}
	if out.Manifest.Src != nil {
		t.Error("trust has vertex classes only; no src kernel expected")
	}
}

func TestGenerateRefuses(t *testing.T) {
	bad := ir.Plan{Prefix: "bad", Classes: []ir.Class{{Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 1},
		Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge}}}}
	if _, err := gen.Generate(bad, gen.DefaultTarget()); err == nil || !strings.Contains(err.Error(), "invalid") {
		t.Errorf("invalid plan: %v", err)
	}
	// A pair the IR accepts but the generator does not implement is refused
	// by Validate, which names it.
	for _, pr := range ir.Pairs() {
		if pr.Generated() {
			continue
		}
		s := ir.Strategy{Iterator: pr.Iterator, Intersection: pr.Intersection, Width: 256, Block: 256}
		np := ir.Plan{Prefix: "notgen", Classes: []ir.Class{{Select: ir.Selector{Key: ir.KeyOutDegree}, Strategy: s}}}
		want := fmt.Sprintf("the %s iterator with intersection %s is not generated by tcgen yet", pr.Iterator, pr.Intersection)
		if _, err := gen.Generate(np, gen.DefaultTarget()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", pr, err)
		}
	}
	p, _ := ir.Preset("polak")
	if _, err := gen.Generate(p, gen.Target{WarpSize: 64}); err == nil {
		t.Error("warp size 64 accepted")
	}
}

func TestGridBlocks(t *testing.T) {
	for _, tc := range []struct {
		g     gen.Grid
		items uint64
		sms   int
		want  uint32
	}{
		{gen.Grid{ItemsPerBlock: 8}, 0, 100, 0},
		{gen.Grid{ItemsPerBlock: 8}, 1, 100, 1},
		{gen.Grid{ItemsPerBlock: 8}, 17, 100, 3},
		{gen.Grid{ItemsPerBlock: 1}, 1 << 40, 100, gen.MaxGridX},
		{gen.Grid{BlocksPerSM: 4}, 5, 132, 528},
	} {
		if got := tc.g.Blocks(tc.items, tc.sms); got != tc.want {
			t.Errorf("%+v.Blocks(%d, %d) = %d, want %d", tc.g, tc.items, tc.sms, got, tc.want)
		}
	}
}

// TestPivotCoreFromList: a class list's core (ir.Plan.Core,
// ir.Variant.Core) reaches the manifest's variant and the pivot helpers.
func TestPivotCoreFromList(t *testing.T) {
	p, err := ir.Load("../examples/hybrid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(p, gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	m := out.Manifest
	for vi, want := range []int{0, 4096, 8192} {
		if got := m.Variants[vi].Core; got != want {
			t.Errorf("variant %d: core %d, want %d", vi, got, want)
		}
		if got := m.Pivot.VariantCore(vi); got != want {
			t.Errorf("variant %d: VariantCore %d, want %d", vi, got, want)
		}
		for _, c := range m.Variants[vi].Classes {
			if _, ok := c.Params[ir.ParamCore]; ok {
				t.Errorf("variant %d class %s: core among the class parameters", vi, c.Name)
			}
		}
	}
	if !slices.Equal(m.Pivot.Cores, []int{4096, 8192}) {
		t.Errorf("cores %v", m.Pivot.Cores)
	}
	for _, k := range []string{m.Pivot.CoreKernel(4096), m.Pivot.CoreKernel(8192)} {
		if !strings.Contains(out.Source, k) {
			t.Errorf("source lacks %s", k)
		}
	}
}

// TestSourceFor: a guarded plan's source for one variant defines the
// variant's class kernels and the helpers those classes launch (the src
// kernel for edge items, the pivot's preparation, the bit slices' builders,
// a class's own helpers: dense rows' rows kernel, a radix class's phases),
// and no other kernel.
func TestSourceFor(t *testing.T) {
	data, err := os.ReadFile("../examples/default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ir.Parse(data, "default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(p, gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	m := out.Manifest
	for vi, v := range m.Variants {
		src, err := out.SourceFor(vi)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		pivot, bitwise := false, false
		for _, c := range v.Classes {
			want = append(want, c.Kernel)
			if c.NeedsSrc && !slices.Contains(want, m.Src.Kernel) {
				want = append(want, m.Src.Kernel)
			}
			if c.Dense != nil { // dense rows: the class's rows kernel
				want = append(want, c.Dense.Rows.Kernel)
			}
			if c.Aligned != nil { // the aligned copy's kernel, and the carry kernel
				want = append(want, c.Aligned.Copy.Kernel)
				if c.Aligned.Carry != nil {
					want = append(want, c.Aligned.Carry.Kernel)
				}
			}
			if c.Radix != nil { // the wedge radix's phases after the first, c.Kernel
				for _, h := range c.Radix.Phases[1:] {
					want = append(want, h.Kernel)
				}
			}
			pivot = pivot || c.Kind == gen.KindPivot
			bitwise = bitwise || c.Kind == gen.KindBitwise
		}
		if pivot {
			want = append(want, m.Pivot.Kernels()...)
		}
		if bitwise { // the plan's one slice size: its builders and the scan
			want = append(want, m.Slices.Kernels()...)
		}
		var got []string
		for _, k := range externRE.FindAllStringSubmatch(src, -1) {
			got = append(got, k[2])
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("variant %d: kernels %v, want %v", vi, got, want)
		}
	}
	if _, err := out.SourceFor(len(m.Variants)); err == nil {
		t.Error("a variant past the last: no error")
	}
}
