package executor_test

import (
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"github.com/tcgen/tcgen/tests/gputest"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/templates"
)

// compileArchs are the architectures CI compiles every plan for: the oldest
// GPU generation tcgen targets and the newest NVRTC 11.8 knows.
var compileArchs = []string{"compute_80", "compute_90"}

// randomCompiles is how many random plans are compiled (with the presets).
const randomCompiles = 40

// compileSharedLimit is the shared memory per block the compile test lets a
// kernel use: 99 KiB, the smallest opt-in limit of compute capability 8.x
// and 9.0 GPUs, so the dynamic shared memory path is compiled too.
const compileSharedLimit = 99 << 10

// testCompiler loads NVRTC, or skips the test; under CI=true (where .ci/run
// installs NVRTC) a missing NVRTC fails it.
func testCompiler(t *testing.T) *cuda.Compiler {
	t.Helper()
	return gputest.Compiler(t, func() (*cuda.Compiler, error) {
		return cuda.NewCompiler(cuda.Options{NVRTCPath: gputest.NVRTCPath()})
	}, cuda.ErrNoNVRTC)
}

// compilePlans returns the generatable presets and randomCompiles seeded
// random generatable plans.
func compilePlans(t *testing.T, seed uint64) []ir.Plan {
	var plans []ir.Plan
	for _, p := range ir.Presets() {
		if gen.Check(p) == nil {
			plans = append(plans, p)
		}
	}
	// The spec files of examples/ (hybrids such as the pivot plan).
	specs, err := filepath.Glob("../../examples/*.yaml")
	if err != nil || len(specs) == 0 {
		t.Fatalf("examples/*.yaml: %v (%d files)", err, len(specs))
	}
	for _, f := range specs {
		p, err := ir.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		plans = append(plans, p)
	}
	// The fake device's pivot plans: groups of 1 to 128 lanes, guards, the
	// queue. Random draws missed that every pivot group wider than a warp
	// failed a static_assert (fixed 2026-11-25).
	plans = append(plans, pivotPlans()...)
	plans = append(plans, specPlans()...)        // the GPU tests' hybrids
	plans = append(plans, wedgeSearchPlans()...) // both matrix layouts (wedge_search_test.go)
	// Every shape of local counts, per vertex and per edge (local_test.go).
	plans = append(plans, localPlans(t, ir.OutputVertex)...)
	plans = append(plans, localPlans(t, ir.OutputEdge)...)
	rng := rand.New(rand.NewPCG(seed, 0))
	for drawn := 0; drawn < randomCompiles; {
		p := ir.RandomPlan(rng)
		if gen.Check(p) != nil {
			continue
		}
		p.Prefix = "rand" + strconv.Itoa(drawn)
		plans = append(plans, p)
		drawn++
	}
	return plans
}

// TestCompileAll compiles every generatable preset and a seeded sample of
// random plans through the runtime's NVRTC path, for each architecture of
// compileArchs. Set TCGEN_COMPILE_SEED to replay another sample.
func TestCompileAll(t *testing.T) {
	comp := testCompiler(t)
	seed := uint64(20240601)
	if s := os.Getenv("TCGEN_COMPILE_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("TCGEN_COMPILE_SEED=%q: %v", s, err)
		}
		seed = v
	}
	major, minor := comp.Version()
	t.Logf("NVRTC %d.%d (%s); random plans from seed %d (TCGEN_COMPILE_SEED replays)", major, minor, comp.Path(), seed)

	plans := compilePlans(t, seed)
	// Serially: concurrent compilations in one NVRTC process were several
	// times slower than one after the other.
	kernels, units := 0, 0
	for _, p := range plans {
		for _, arch := range compileArchs {
			tg := gen.DefaultTarget()
			tg.Arch, tg.MaxSharedPerBlock = arch, compileSharedLimit
			out, err := gen.Generate(p, tg)
			if err != nil {
				t.Errorf("plan %s: %v", p.Prefix, err)
				continue
			}
			img, err := comp.Compile(gpu.CompileInput{Name: out.FileName, Source: out.Source, Headers: out.Headers, Arch: arch, Options: out.Manifest.Options})
			if err != nil {
				t.Errorf("plan %s for %s: %v", out.Manifest.Plan, arch, err)
				continue
			}
			if len(img.Data) == 0 {
				t.Errorf("plan %s for %s: empty image", out.Manifest.Plan, arch)
				continue
			}
			units++
			for _, v := range out.Manifest.Variants {
				for _, c := range v.Classes {
					if !c.Skip {
						kernels++
					}
				}
			}
		}
	}
	// The fixed kernels: the check of an uploaded CSR file's lists, and the
	// helpers of a count in partitions.
	for _, fixed := range []struct{ name, source string }{{executor.CheckListsFile, templates.CheckLists}, {"tcgen_partition.cu", templates.Partition}} {
		for _, arch := range compileArchs {
			img, err := comp.Compile(gpu.CompileInput{Name: fixed.name, Source: fixed.source, Headers: templates.Headers(), Arch: arch})
			if err != nil || len(img.Data) == 0 {
				t.Errorf("%s for %s: %v (%d bytes)", fixed.name, arch, err, len(img.Data))
			}
		}
	}
	t.Logf("compiled %d kernels in %d translation units (%d plans x %d architectures), the list check and the partition helpers", kernels, units, len(plans), len(compileArchs))
}
