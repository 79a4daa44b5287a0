package executor

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// pivotFamily runs the pivot classes (ir/params_pivot_hash.go, gen/pivot_hash.go): their
// in-edge lists and item lists are built on the device by five preparation
// kernels at the start of every pass, inside the timed region, so a pass
// costs what a user waits for on the GPU. The host only sizes and
// allocates the buffers.
type pivotFamily struct {
	noStats
	h       *gen.PivotHelpers
	variant int
	classes []gen.Class // the variant's
	n       uint32
	m       uint64
	tiles   uint32 // blocks of the sums and bin kernels
	grid    uint32 // blocks of the count kernel (a warp per vertex)
	sgrid   uint32 // blocks of the scatter kernel
	cap     uint64 // items each class's list can hold
	shift   uint32 // count packs a pivot's tail entries << shift | its in-edges in one u64 (pivotShift)
	// grids are the variant's classes' grids the global tables are sized
	// for: the formulas' when planning, as launched in setup.
	grids []uint32

	count, sums, scan, bin, scatter gpu.Function
	core                            gpu.Function // the core kernel (nil when the variant has no core)
	ktimers                         [5]gpu.Timer // around each preparation kernel
	top                             uint32       // the first core id: n - the variant's core (n without a core)
	cw                              uint32       // u32 words of a core row: the variant's core / 32 (0 without one)
	coreSlot                        int          // the class whose launch runs the core kernel first (its count and time hold the core's)
	slot                            uint64       // device address of that class's counter

	end, wrk, sumsBuf, inoff, csz, tails, items, nitems gpu.Buffer
	mat                                                 gpu.Buffer // the core's bit matrix (nil without a core)
	// spill holds the global tables of spill-global classes: the classes
	// run one after the other, so they share the largest.
	spill gpu.Buffer
	// split is this device's share of a run on several (multi_pivot.go);
	// nil: every in-edge.
	split *pivotSplit
}

// newPivotFamily sizes the pivot buffers of the planned variant. A pivot
// gets at most min(cnt[v], ceil(wrk[v] / item_work)) items, so a class's
// list holds at most min(m, wedges / item_work + n), wedges being the sum
// of all tails; the lists are sized for the smallest item_work.
func newPivotFamily(pl *planning, _ []int) (family, error) {
	h, variant, o, sms := pl.man.Pivot, pl.variant, pl.o, pl.sms
	if h == nil {
		return nil, fmt.Errorf("pivot classes but no pivot helpers in the manifest")
	}
	wedges, why := pivotWedges(o.Offsets)
	if why != "" {
		return nil, &LimitError{Why: why}
	}
	n, m := uint64(o.N()), o.Arcs()
	minWork := uint64(1 << 62)
	for _, c := range h.Classes {
		minWork = min(minWork, uint64(max(c.ItemWork, 1)))
	}
	grids := make([]uint32, len(pl.classes)) // as the classes' formulas give them
	for i, c := range pl.classes {
		grids[i] = c.Grid.Blocks(pl.lists[i].Count, sms)
	}
	ph := &pivotFamily{h: h, variant: variant, classes: pl.classes, n: uint32(n), m: m, grids: grids,
		cap: min(m, wedges/minWork+n) + 1, shift: pivotShift(uint32(n)), top: uint32(n)}
	if k := h.VariantCore(variant); k > 0 {
		ph.top, ph.cw = ph.n-min(ph.n, uint32(k)), uint32(k/32)
	}
	ph.tiles = uint32(max((n+uint64(h.Tile)-1)/uint64(h.Tile), 1))
	ph.grid, ph.sgrid = ph.walkGrids(n, sms)
	if p := pl.part; p != nil {
		ph.split = &pivotSplit{lo: p.lo, hi: p.hi}
	}
	return ph, nil
}

// walkGrids are the grids of count (and the core kernel) and scatter for
// n vertices walked, a warp each. Every block of count and scatter clears
// and flushes its HUBS shared counters: count runs one wave of resident
// blocks, scatter four (docs/performance.md), fewer for few vertices.
func (ph *pivotFamily) walkGrids(n uint64, sms int) (uint32, uint32) {
	h := ph.h
	return gen.Grid{ItemsPerBlock: h.Block / 32, BlocksPerSM: 2048 / h.Block}.Blocks(max(n, 1), sms),
		gen.Grid{ItemsPerBlock: h.Block / 32, BlocksPerSM: 2048 / h.Block * 4}.Blocks(max(n, 1), sms)
}

// buffers lists the pivot buffers. The work counters start at zero and
// every pass leaves them so (bin zeroes them); end is written by bin
// before scatter counts it down.
func (ph *pivotFamily) buffers() []bufferSpec {
	n, m := uint64(ph.n), ph.m
	k := uint64(len(ph.h.Classes))
	b := []bufferSpec{
		{name: "in-edge ends", bytes: max(n, 1) * 8, dst: &ph.end, zero: true},
		{name: "work counters", bytes: max(n, 1) * 8, dst: &ph.wrk, zero: true},
		{name: "in-edges per item", bytes: max(n, 1) * 4, dst: &ph.csz},
		{name: "tile sums", bytes: (uint64(ph.tiles) + 1) * 8, dst: &ph.sumsBuf},
		{name: "in-edge offsets", bytes: (n + 1) * 8, dst: &ph.inoff},
		{name: "tails", bytes: max(m, 1) * 8, dst: &ph.tails},
		{name: "items", bytes: k * ph.cap * 8, dst: &ph.items},
	}
	if core := ph.h.CoreMatrixBytes(ph.variant); core > 0 {
		b = append(b, bufferSpec{name: "core matrix", bytes: core, dst: &ph.mat})
	}
	b = append(b, bufferSpec{name: "item counts", bytes: k * 16, dst: &ph.nitems}) // and each class's queue counter after them
	if spill := pivotSpillBytes(ph.classes, ph.grids); spill > 0 {
		b = append(b, bufferSpec{name: "global tables", bytes: spill, dst: &ph.spill})
	}
	return append(b, ph.splitBuffers()...)
}

// setup looks the kernels up and allocates the pivot buffers, the global
// tables for the grids as launched.
func (ph *pivotFamily) setup(pr *Prepared) error {
	h := ph.h
	fail := func(what string, err error) error {
		return fmt.Errorf("plan %s: pivot preparation: %s: %w", pr.name, what, err)
	}
	var err error
	for _, k := range []struct {
		name string
		fn   *gpu.Function
	}{{h.Count, &ph.count}, {h.Sums, &ph.sums}, {h.Scan, &ph.scan}, {h.Bin, &ph.bin}, {h.Scatter, &ph.scatter}, {h.CoreKernel(int(ph.cw) * 32), &ph.core}} {
		if k.fn == &ph.core && ph.cw == 0 {
			continue // no core in this variant
		}
		if *k.fn, err = pr.mod.Function(k.name); err != nil {
			return fail("kernel "+k.name, err)
		}
	}
	if sh := ph.coreShared(); sh > 0 { // the core's local counters (gen.PivotHelpers.CoreLocalBytes)
		if err := ph.core.SetMaxDynamicShared(sh); err != nil {
			return fail(fmt.Sprintf("kernel %s: %d bytes of dynamic shared memory", h.CoreKernel(int(ph.cw)*32), sh), err)
		}
	}
	for i := range pr.classes {
		ph.grids[i] = pr.classes[i].grid
	}
	if err := pr.allocate(ph.buffers()); err != nil {
		return fmt.Errorf("plan %s: pivot preparation: %w", pr.name, err)
	}
	// The core kernel runs just before the first pivot class that has
	// vertices (every vertex is in some class, so one does when n > 0),
	// inside its timer, and adds its triangles to that class's count.
	ph.coreSlot = -1
	for i := range pr.classes {
		if c := pr.classes[i].c; isPivot(c) && pr.classes[i].items > 0 {
			ph.coreSlot, ph.slot = c.Slot, pr.counts.Ptr()+uint64(c.Slot)*8
			break
		}
	}
	for i := range ph.ktimers {
		if ph.ktimers[i], err = pr.newTimer(); err != nil {
			return fail("timer", err)
		}
	}
	return ph.setupSplit(pr)
}

// prepare launches the five preparation kernels (stream-ordered before the
// class kernels of the pass), each between two events when timed.
func (ph *pivotFamily) prepare(pr *Prepared, timed bool) error {
	return ph.prepareSpan(pr, timed, ph.span(pr))
}

// prepareSpan launches the preparation for the in-edges of span.
func (ph *pivotFamily) prepareSpan(pr *Prepared, timed bool, sp pivotSpan) error {
	if ph.n == 0 {
		return nil
	}
	blk := gpu.Dim3{X: uint32(ph.h.Block), Y: 1, Z: 1}
	one := gpu.Dim3{X: 1, Y: 1, Z: 1}
	grid := gpu.Dim3{X: sp.grid, Y: 1, Z: 1}
	tiles := gpu.Dim3{X: ph.tiles, Y: 1, Z: 1}
	nth := 0
	launch := func(name string, fn gpu.Function, g gpu.Dim3, args ...any) error {
		t := ph.ktimers[nth]
		nth++
		if timed {
			if err := t.Start(); err != nil {
				return fmt.Errorf("plan %s: pivot preparation kernel %s: %w", pr.name, name, err)
			}
		}
		if err := fn.Launch(g, blk, 0, args...); err != nil {
			return fmt.Errorf("plan %s: pivot preparation kernel %s: %w", pr.name, name, err)
		}
		if timed {
			if err := t.Stop(); err != nil {
				return fmt.Errorf("plan %s: pivot preparation kernel %s: %w", pr.name, name, err)
			}
		}
		return nil
	}
	h := ph.h
	if err := launch(h.Count, ph.count, grid, sp.off, pr.adj, sp.n, ph.wrk, ph.nitems, ph.shift, sp.countMat, ph.top, sp.countCW); err != nil {
		return err
	}
	if err := launch(h.Sums, ph.sums, tiles, ph.wrk, ph.n, ph.shift, ph.sumsBuf); err != nil {
		return err
	}
	if err := launch(h.Scan, ph.scan, one, ph.sumsBuf, ph.tiles); err != nil {
		return err
	}
	if err := launch(h.Bin, ph.bin, tiles, pr.off, ph.end, ph.wrk, ph.n, uint32(ph.variant), ph.sumsBuf, ph.tiles,
		ph.inoff, ph.csz, ph.items, ph.cap, ph.nitems, ph.shift); err != nil {
		return err
	}
	return launch(h.Scatter, ph.scatter, gpu.Dim3{X: sp.sgrid, Y: 1, Z: 1}, sp.off, pr.adj, sp.n, ph.end, ph.tails, sp.rowsMat, ph.top, sp.rowsCW)
}

// prepNames names the preparation kernels in launch order.
func (*pivotFamily) prepNames() []string { return []string{"count", "sums", "scan", "bin", "scatter"} }

// prepTimes reads the last pass's time of each preparation kernel.
func (ph *pivotFamily) prepTimes() ([]float64, error) {
	ms := make([]float64, len(ph.ktimers))
	if ph.n == 0 {
		return ms, nil // prepare launched nothing: the timers hold no events
	}
	for i, t := range ph.ktimers {
		var err error
		if ms[i], err = t.Elapsed(); err != nil {
			return ms, err
		}
	}
	return ms, nil
}

// launch launches a pivot class kernel on its own item list, the core
// kernel first for the class that counts the core.
func (ph *pivotFamily) launch(_ context.Context, pr *Prepared, pc *prepClass) error {
	i := ph.h.Index(ph.variant, pc.c.Slot)
	if i < 0 {
		return pr.kernelErr(pc, fmt.Errorf("class %s is not among the plan's pivot classes", pc.c.Name))
	}
	items := ph.items.Ptr() + uint64(i)*ph.cap*8
	nitems := ph.nitems.Ptr() + uint64(i)*8
	queue := ph.nitems.Ptr() + uint64(len(ph.h.Classes)+i)*8 // zeroed by the count kernel
	// gen.PivotLocalArgs; the core kernel takes the counters alone.
	var local []any
	if pr.manifest.Output != "" { // null counters when the graph has no edges
		local = []any{pr.srcArg(), bufArg(pr.localArg())}
	}
	if ph.core != nil && pc.c.Slot == ph.coreSlot { // the core's triangles (setup)
		sp := ph.span(pr)
		args := []any{sp.off, pr.adj, sp.n, ph.top, ph.mat, ph.slot}
		if local != nil {
			args = append(args, local[1])
		}
		if err := ph.core.Launch(gpu.Dim3{X: sp.grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(ph.h.Block), Y: 1, Z: 1}, uint32(ph.coreShared()), args...); err != nil {
			return pr.kernelErr(pc, fmt.Errorf("core kernel %s: %w", ph.h.CoreKernel(int(ph.cw)*32), err))
		}
	}
	args := []any{pr.off, pr.adj, ph.inoff, ph.csz, ph.tails, items, nitems, pr.counts, bufArg(ph.spill), pr.n, queue}
	if err := pc.fn.Launch(gpu.Dim3{X: pc.grid, Y: 1, Z: 1}, gpu.Dim3{X: uint32(pc.c.Block), Y: 1, Z: 1}, pc.shared, append(args, local...)...); err != nil {
		return pr.kernelErr(pc, err)
	}
	return nil
}

// coreShared is the dynamic shared memory of the variant's core kernel:
// its local counters per vertex, none otherwise.
func (ph *pivotFamily) coreShared() int {
	if ph.cw == 0 {
		return 0
	}
	return ph.h.CoreShared(int(ph.cw) * 32)
}

// pivotSpillBytes is the global memory of the tables of spill-global pivot
// classes: the classes run one after the other, so they share the largest,
// grids[i] x groups per block x table words.
func pivotSpillBytes(classes []gen.Class, grids []uint32) uint64 {
	var b uint64
	for i, c := range classes {
		if w := pivotSpillWords(c); isPivot(c) && w > 0 {
			b = max(b, uint64(grids[i])*uint64(c.Block/c.Width)*uint64(w)*4)
		}
	}
	return b
}

// variantHasPivot reports whether a variant has pivot classes.
func variantHasPivot(v gen.Variant) bool {
	for _, c := range v.Classes {
		if isPivot(c) {
			return true
		}
	}
	return false
}

// pivotLenBits is how the preparation packs a tail: start << 24 | length
// (templates/pivot_prep.cu.tmpl, LEN_BITS).
const pivotLenBits = 24

// pivotShift is where count splits a pivot's counter: in-edges in the low
// bits (at most n - 1 of them), tail entries above.
func pivotShift(n uint32) uint32 { return uint32(bits.Len32(n)) }

// pivotWedges returns sum over u of C(d+(u), 2), the tails' total length,
// or why the graph's tails cannot be packed as the preparation packs them.
func pivotWedges(off []uint64) (uint64, string) {
	m := off[len(off)-1]
	if m >= 1<<(64-pivotLenBits) {
		return 0, fmt.Sprintf("%d oriented edges: pivot classes pack tail starts in %d bits", m, 64-pivotLenBits)
	}
	if why := pivotCounterFits(uint32(len(off)-1), m); why != "" {
		return 0, why
	}
	// Chunk by chunk on all cores, like the work lists.
	n := len(off) - 1
	chunks := (n + workChunk - 1) / workChunk
	sums := make([]uint64, chunks)
	long := make([]int, chunks) // the chunk's first vertex with a tail too long, or -1
	parallelChunks(chunks, func(ch int) {
		long[ch] = -1
		var w uint64
		for u := ch * workChunk; u < min((ch+1)*workChunk, n); u++ {
			d := off[u+1] - off[u]
			if d >= 1<<pivotLenBits && long[ch] < 0 {
				long[ch] = u
			}
			w += d * (d - 1) / 2
		}
		sums[ch] = w
	})
	var w uint64
	for ch := range chunks {
		if u := long[ch]; u >= 0 {
			return 0, fmt.Sprintf("vertex %d has out-degree %d: pivot classes pack tail lengths in %d bits (orient by degree)", u, off[u+1]-off[u], pivotLenBits)
		}
		w += sums[ch]
	}
	return w, ""
}

// pivotCounterFits says why count's packed counter cannot hold a graph of n
// vertices and m oriented edges, or "". A pivot's tail entries share a u64
// with its in-edge count (pivotShift bits). Each in-edge (u,v) brings at
// most d+(u) - 1 of them and each u one in-edge to v, so a pivot has fewer
// than m, however many wedges the graph has: m bounds every counter
// (RMAT-27: 2^31 edges against 38 bits, where its 5.7e11 wedges would not).
func pivotCounterFits(n uint32, m uint64) string {
	if s := pivotShift(n); s > 0 && m >= 1<<(64-s) {
		return fmt.Sprintf("%d oriented edges on %d vertices: pivot classes count a pivot's tail entries in %d bits", m, n, 64-s)
	}
	return ""
}
