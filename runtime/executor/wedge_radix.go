package executor

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// wedgeRadix runs the wedge iterator with the radix intersection
// (radix-binning.txt, gen/wedge_radix.go, templates/isect_radix.cu.tmpl): per
// batch of wedges, one kernel writes the candidate closing edges E'
// (Algorithm 1), then the host runs the MSD radix levels of Algorithm 2 one
// after the other (iteratively: §III-D found CUDA dynamic parallelism too
// slow), reading back four numbers per level to size the next. E' can be
// far larger than E (sum of C(d+, 2)), so it is generated and counted in
// batches of wedges that fit a device-memory budget (budget_mib; 0 = half
// of the memory left by the other buffers, shared by the wedge classes).
type wedgeRadix struct {
	classes []*radixClass // by class position; nil for the other classes
	idOrderE
}

// idOrderE is E, the oriented graph in id order, whose edge (v, w), v < w,
// closes a wedge (v, w) of the wedge classes. When the plan's order is not
// the id order, E is a second CSR (eOff, eAdj) made here; otherwise it is
// the plan's own.
type idOrderE struct {
	eOff []uint64
	eAdj []uint32
	// Device copies of E (the plan's buffers when eOff is nil).
	offE, adjE gpu.Buffer
	// endE is offE's last entry, where the kernels' searches past the last
	// vertex end: m, raised by RunOptions.IndexBase when E is the plan's.
	endE uint64
}

// make builds E when the plan's order is not the id order and some wedge
// class has wedges (active); what names the classes in errors.
func (e *idOrderE) make(pl *planning, active bool, what string) error {
	if !active || pl.man.IDOrdered {
		return nil
	}
	if pl.g == nil {
		return fmt.Errorf("%s classes of an unrelabelled degree order need the undirected graph; the graph was read oriented", what)
	}
	// Unrelabelled degree order: N+(u) is sorted by id, so a wedge is
	// (v, w) with v < w by id, but the edge between them may be stored as
	// w -> v. E in id order holds it as v -> w.
	o := graph.Orient(pl.g, graph.ByID, false)
	e.eOff, e.eAdj = o.Offsets, o.Adj
	return nil
}

// wedgePrefix returns the wedge offsets of a work list's items: entry i is
// the first wedge of item i (C(d+(u), 2) wedges per vertex u, in list
// order), the last the total.
func wedgePrefix(o *graph.Oriented, l *WorkList) []uint64 {
	wpre := make([]uint64, l.Count+1)
	for i := range l.Count {
		u := uint32(i)
		if !l.All {
			u = l.Vertices[i]
		}
		d := o.Degree(u)
		wpre[i+1] = wpre[i] + d*(d-1)/2 // 0 for d = 0 too (0 * anything)
	}
	return wpre
}

// radixClass is one wedge/radix class.
type radixClass struct {
	c  gen.Class
	ph map[string]gen.Helper
	fn map[string]gpu.Function
	// wpre[i] is the first wedge of item i (C(d+(u), 2) wedges per vertex u,
	// in list order); wpre[nitems] = total. These are the exact per-vertex
	// output offsets of Algorithm 1.
	wpre   []uint64
	nitems uint64
	total  uint64

	bits     uint   // radix_bits
	digits   uint64 // 2^bits
	thr      uint64 // threshold
	budget   uint64 // budget_mib in bytes; 0: automatic
	block    uint32
	tile     uint64 // candidates per tile (histogram, scatter, leaf)
	scanTile uint64

	capacity uint64 // candidates per batch
	sz       radixSizes
	// local: the plan counts a local output, so each candidate carries its
	// wedge's index beside its key (idx, moved with it: gen.radixLocalArgs).
	local bool

	wpreBuf                   gpu.Buffer
	keys, bk, idx             [2]gpu.Buffer
	hist, flags, part         gpu.Buffer
	stat                      gpu.Buffer
	batches, levels, maxLevel uint64 // of the last run, for tests and reports
}

// radixSizes are the element counts of a class's batch buffers for a
// capacity of c candidates per batch. Bounds: a bucket split further holds
// more than threshold candidates, so a level has at most
// splitMax = floor(c / (threshold+1)) of them (1 at the root); its list, with
// the leaves, at most min(c, splitMax * digits) entries; the split buckets
// have at most ceil(c / tile) + splitMax tiles. With the paper's parameters
// that is 16.7 bytes per candidate (keys 16, buckets 0.37, histogram 0.16,
// flags 0.12); since Validate keeps threshold >= digits, at most about 150.
type radixSizes struct {
	keys     uint64 // u64 keys per buffer (two buffers)
	buckets  uint64 // bucket records per list (two lists)
	splitMax uint64
	tileMax  uint64
	hist     uint64 // u64: digits * tileMax + 1 (the scan's total)
	flags    uint64 // u64: 4 * splitMax * digits + 1
	part     uint64 // u64: scan tile sums of the larger of the two
}

func (rc *radixClass) sizesFor(c uint64) radixSizes {
	s := radixSizes{keys: c}
	s.splitMax = max(1, c/(rc.thr+1))
	s.buckets = max(1, min(c, s.splitMax*rc.digits))
	s.tileMax = (c+rc.tile-1)/rc.tile + s.splitMax
	s.hist = rc.digits*s.tileMax + 1
	s.flags = 4*s.splitMax*rc.digits + 1
	s.part = (max(s.hist, s.flags) + rc.scanTile - 1) / rc.scanTile
	return s
}

// batchBuffers lists the batch buffers of sizes s.
func (rc *radixClass) batchBuffers(s radixSizes) []bufferSpec {
	var idx []bufferSpec
	if rc.local { // a wedge index per candidate, in each key buffer's order
		idx = []bufferSpec{{name: "candidate wedges", bytes: s.keys * 8, dst: &rc.idx[0]}, {name: "candidate wedges", bytes: s.keys * 8, dst: &rc.idx[1]}}
	}
	return append(idx, []bufferSpec{
		{name: "candidate keys", bytes: s.keys * 8, dst: &rc.keys[0]},
		{name: "bucket lists", bytes: s.buckets * gen.RadixBucketBytes, dst: &rc.bk[0]},
		{name: "candidate keys", bytes: s.keys * 8, dst: &rc.keys[1]},
		{name: "bucket lists", bytes: s.buckets * gen.RadixBucketBytes, dst: &rc.bk[1]},
		{name: "histogram", bytes: s.hist * 8, dst: &rc.hist},
		{name: "child flags", bytes: s.flags * 8, dst: &rc.flags},
		{name: "scan sums", bytes: max(s.part, 1) * 8, dst: &rc.part},
		{name: "level sizes", bytes: radixStatWords * 8, dst: &rc.stat},
	}...)
}

// batchBytes is the device memory of the batch buffers of sizes s.
func (rc *radixClass) batchBytes(s radixSizes) uint64 { return sumBytes(rc.batchBuffers(s)) }

// radixStatWords: the emit kernel's report of the next list (buckets to
// split, their tiles, leaves, their tiles).
const radixStatWords = 4

// radixMaxBatch caps the candidates per batch when nonzero (tests force
// many batches with it).
var radixMaxBatch uint64

// setCapacity sets the largest batch whose buffers fit budget bytes (and no
// larger than the class's wedges); false when not even one candidate fits.
func (rc *radixClass) setCapacity(budget uint64) bool {
	hi := rc.total
	if radixMaxBatch > 0 {
		hi = min(hi, radixMaxBatch)
	}
	if rc.batchBytes(rc.sizesFor(1)) > budget {
		return false
	}
	lo := uint64(1) // fits
	for lo < hi {   // largest c in [lo, hi] that fits
		mid := lo + (hi-lo+1)/2
		if rc.batchBytes(rc.sizesFor(mid)) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	rc.capacity = lo
	rc.sz = rc.sizesFor(lo)
	return true
}

// newWedgeRadix builds the wedge prefix sums of the wedge/radix classes in
// slots and, when the plan's order is not the id order, E in id order.
func newWedgeRadix(pl *planning, slots []int) (family, error) {
	rx := &wedgeRadix{classes: make([]*radixClass, len(pl.classes))}
	active := false
	for _, i := range slots {
		rc, err := newRadixClass(pl.classes[i], pl.o, &pl.lists[i])
		if err != nil {
			return nil, err
		}
		rc.local = pl.man.Output != ""
		rx.classes[i] = rc
		active = active || rc.total > 0
	}
	if err := rx.make(pl, active, "wedge/radix"); err != nil {
		return nil, err
	}
	return rx, nil
}

func newRadixClass(c gen.Class, o *graph.Oriented, l *WorkList) (*radixClass, error) {
	rc := &radixClass{c: c, ph: map[string]gen.Helper{}, fn: map[string]gpu.Function{}, block: uint32(c.Block)}
	for _, h := range radixPhases(c) {
		rc.ph[h.Phase] = h
	}
	for _, p := range []string{gen.PhaseGenerate, gen.PhaseHist, gen.PhaseScanUp, gen.PhaseScanMid, gen.PhaseScanDown,
		gen.PhaseClassify, gen.PhaseEmit, gen.PhaseScatter, gen.PhaseLeaf} {
		if _, ok := rc.ph[p]; !ok {
			return nil, fmt.Errorf("class %s: the manifest lists no %s phase", c.Name, p)
		}
	}
	rb, thr, mib := c.Params[ir.ParamRadixBits], c.Params[ir.ParamThreshold], c.Params[ir.ParamBudgetMiB]
	if rb < 1 || rb > 8 || thr < 1 || mib < 0 {
		return nil, fmt.Errorf("class %s: radix parameters %v out of range", c.Name, c.Params)
	}
	rc.bits, rc.digits, rc.thr, rc.budget = uint(rb), uint64(1)<<rb, uint64(thr), uint64(mib)<<20
	rc.tile, rc.scanTile = uint64(rc.ph[gen.PhaseHist].Tile), uint64(rc.ph[gen.PhaseScanUp].Tile)
	if rc.tile == 0 || rc.scanTile == 0 || rc.tile != uint64(rc.ph[gen.PhaseScatter].Tile) || rc.tile != uint64(rc.ph[gen.PhaseLeaf].Tile) {
		return nil, fmt.Errorf("class %s: radix phases without consistent tiles", c.Name)
	}

	rc.nitems = l.Count
	rc.wpre = wedgePrefix(o, l)
	rc.total = rc.wpre[rc.nitems]
	return rc, nil
}

// buffers lists E in id order when the plan has its own, and each class's
// wedge offsets and, once reserve has sized them, batch buffers.
func (rx *wedgeRadix) buffers() []bufferSpec {
	b := rx.idOrderE.buffers()
	for _, rc := range rx.classes {
		if rc != nil && rc.total > 0 {
			b = append(b, rc.buffers()...)
		}
	}
	return b
}

// buffers lists E, when the plan's order is not the id order.
func (e *idOrderE) buffers() []bufferSpec {
	if e.eOff == nil {
		return nil
	}
	return []bufferSpec{
		{name: "E in id order", bytes: uint64(len(e.eOff)) * 8, dst: &e.offE},
		{name: "E in id order", bytes: max(uint64(len(e.eAdj)), 1) * 4, dst: &e.adjE},
	}
}

// setup points E at the plan's buffers, or allocates and uploads its own.
func (e *idOrderE) setup(pr *Prepared) error {
	e.offE, e.adjE, e.endE = pr.off, pr.adj, pr.m+pr.base
	if e.eOff == nil {
		return nil
	}
	e.endE = pr.m // E's own copy, uploaded as it is
	if err := pr.allocate(e.buffers()); err != nil {
		return fmt.Errorf("plan %s: %w", pr.name, err)
	}
	if err := gpu.WriteSlice(e.offE, 0, e.eOff); err != nil {
		return fmt.Errorf("plan %s: uploading E in id order: %w", pr.name, err)
	}
	if err := gpu.WriteSlice(e.adjE, 0, e.eAdj); err != nil {
		return fmt.Errorf("plan %s: uploading E in id order: %w", pr.name, err)
	}
	return nil
}

// buffers lists the class's wedge offsets and, once sized, its batch
// buffers.
func (rc *radixClass) buffers() []bufferSpec {
	b := []bufferSpec{{name: "wedge offsets", bytes: (rc.nitems + 1) * 8, dst: &rc.wpreBuf}}
	if rc.capacity > 0 {
		b = append(b, rc.batchBuffers(rc.sz)...)
	}
	return b
}

// reserve sizes the wedge classes' batch buffers given need bytes of the
// other buffers (the fixed arrays of buffers among them) and have usable:
// an explicit budget caps a class's buffers; the classes without one share
// half of what is left. It returns the new need and false when they do not
// fit in have.
func (rx *wedgeRadix) reserve(need, have uint64) (uint64, bool) {
	if need > have {
		return need, false
	}
	var auto []*radixClass
	for _, rc := range rx.classes {
		switch {
		case rc == nil || rc.total == 0:
		case rc.budget > 0:
			if !rc.setCapacity(rc.budget) {
				return need + rc.batchBytes(rc.sizesFor(1)), false
			}
			need += rc.batchBytes(rc.sz)
		default:
			auto = append(auto, rc)
		}
	}
	if need > have {
		return need, false
	}
	if len(auto) > 0 {
		share := (have - need) / 2 / uint64(len(auto))
		for _, rc := range auto {
			if !rc.setCapacity(share) {
				return need + rc.batchBytes(rc.sizesFor(1)), false
			}
			need += rc.batchBytes(rc.sz)
		}
	}
	return need, need <= have
}

// setup loads the phase kernels, allocates the buffers and uploads the
// prefix sums and E.
func (rx *wedgeRadix) setup(pr *Prepared) error {
	if err := rx.idOrderE.setup(pr); err != nil {
		return err
	}
	for _, rc := range rx.classes {
		if rc == nil || rc.total == 0 {
			continue
		}
		fail := func(err error) error {
			return fmt.Errorf("plan %s: class %s (wedge/radix, %d candidates per batch): %w", pr.name, rc.c.Name, rc.capacity, err)
		}
		for p, h := range rc.ph {
			fn, err := pr.mod.Function(h.Kernel)
			if err != nil {
				return fail(fmt.Errorf("kernel %s: %w", h.Kernel, err))
			}
			rc.fn[p] = fn
		}
		if err := pr.allocate(rc.buffers()); err != nil {
			return fail(err)
		}
		if err := gpu.WriteSlice(rc.wpreBuf, 0, rc.wpre); err != nil {
			return fail(fmt.Errorf("uploading wedge offsets: %w", err))
		}
	}
	return nil
}

// idBits is the bits of a vertex id in a candidate key: ids are below n.
func idBits(n uint32) uint32 {
	return max(1, uint32(bits.Len32(max(n, 1)-1)))
}

// gridFor is ceil(items / per) blocks, at most gen.MaxGridX (the kernels
// stride over their items by the grid).
func gridFor(items, per uint64) uint32 {
	return uint32(min((items+per-1)/per, gen.MaxGridX))
}

// launch counts the class's triangles into counts[slot]: every batch of
// wedges, every level of its buckets.
func (rx *wedgeRadix) launch(ctx context.Context, pr *Prepared, pc *prepClass) error {
	rc := rx.classes[pc.c.Slot]
	if rc == nil {
		return fmt.Errorf("plan %s: class %s has radix phases but was not prepared", pr.name, pc.c.Name)
	}
	rc.batches, rc.levels, rc.maxLevel = 0, 0, 0
	if rc.total == 0 || pr.m == 0 {
		return nil
	}
	r := &radixRun{rx: rx, rc: rc, pr: pr, pc: pc, idb: idBits(pr.n)}
	for q0 := uint64(0); q0 < rc.total; q0 += rc.capacity {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.batch(q0); err != nil {
			return err
		}
	}
	return nil
}

// radixRun is one pass of a wedge/radix class.
type radixRun struct {
	rx  *wedgeRadix
	rc  *radixClass
	pr  *Prepared
	pc  *prepClass
	idb uint32 // bits of a vertex id in a key
}

func (r *radixRun) launch(phase string, grid uint32, args ...any) error {
	if grid == 0 {
		return nil
	}
	rc := r.rc
	if err := rc.fn[phase].Launch(gpu.Dim3{X: grid, Y: 1, Z: 1}, gpu.Dim3{X: rc.block, Y: 1, Z: 1}, 0, args...); err != nil {
		return fmt.Errorf("plan %s: class %s: %s kernel %s (grid %d x %d): %w", r.pr.name, r.pc.c.Name, phase, rc.ph[phase].Kernel, grid, rc.block, err)
	}
	return nil
}

// scan is the three-kernel prefix sum of n u64 in data.
func (r *radixRun) scan(data gpu.Buffer, n uint64) error {
	rc := r.rc
	nb := (n + rc.scanTile - 1) / rc.scanTile
	if err := r.launch(gen.PhaseScanUp, uint32(min(nb, gen.MaxGridX)), data, n, rc.part); err != nil {
		return err
	}
	if err := r.launch(gen.PhaseScanMid, 1, rc.part, nb, data, n); err != nil {
		return err
	}
	return r.launch(gen.PhaseScanDown, uint32(min(nb, gen.MaxGridX)), data, n, rc.part)
}

func (r *radixRun) tiles(len uint64) uint64 { return (len + r.rc.tile - 1) / r.rc.tile }

// batch generates the candidates of the wedges from q0 on and counts them
// level by level.
func (r *radixRun) batch(q0 uint64) error {
	rc, pr, rx := r.rc, r.pr, r.rx
	rc.batches++
	cnt := min(rc.capacity, rc.total-q0)
	if err := r.launch(gen.PhaseGenerate, gridFor(cnt, uint64(rc.block)),
		append([]any{pr.off, pr.adj, r.pc.listArg(), rc.wpreBuf, rc.nitems, q0, cnt, r.idb, rc.keys[0]}, r.localArgs(gen.PhaseGenerate, 0)...)...); err != nil {
		return err
	}
	// The root bucket: every candidate, every edge, no key bit fixed.
	var lv radixLevel
	if cnt <= rc.thr || pr.m <= rc.thr {
		lv.nleaf, lv.leafTiles = 1, r.tiles(cnt)
	} else {
		lv.nsplit, lv.splitTiles = 1, r.tiles(cnt)
	}
	if err := gpu.WriteSlice(rc.bk[0], 0, []uint64{0, cnt, 0, 0, pr.m, 0}); err != nil {
		return fmt.Errorf("plan %s: class %s: root bucket: %w", pr.name, r.pc.c.Name, err)
	}
	cur, hi := 0, 2*r.idb
	for level := uint64(0); ; level++ {
		if lv.nleaf > 0 {
			if err := r.launch(gen.PhaseLeaf, uint32(min(lv.leafTiles, gen.MaxGridX)),
				append([]any{rc.keys[cur], rc.bk[cur], lv.nsplit, lv.nsplit + lv.nleaf, lv.splitTiles, lv.splitTiles + lv.leafTiles, rx.offE, rx.adjE, r.idb, pr.counts},
					r.localArgs(gen.PhaseLeaf, cur)...)...); err != nil {
				return err
			}
		}
		if lv.nsplit == 0 {
			rc.maxLevel = max(rc.maxLevel, level)
			return nil
		}
		rc.levels++
		// A bucket to split has a key bit left: its children with none
		// left are leaves.
		lo := hi - min(hi, uint32(rc.bits))
		next, err := r.split(cur, lo, hi-lo, lv)
		if err != nil {
			return err
		}
		if next.nsplit > rc.sz.splitMax || next.nsplit+next.nleaf > rc.sz.buckets || next.splitTiles > rc.sz.tileMax {
			return fmt.Errorf("plan %s: class %s: level %d of batch %d has %d buckets to split (%d tiles) and %d leaves, beyond the buffers (%d, %d tiles, %d): a bug",
				pr.name, r.pc.c.Name, level+1, rc.batches, next.nsplit, next.splitTiles, next.nleaf, rc.sz.splitMax, rc.sz.tileMax, rc.sz.buckets)
		}
		lv, cur, hi = next, 1-cur, lo
	}
}

// localArgs are the arguments a phase's local variant takes after the
// total's (gen.radixLocalArgs), on key list cur; none for the total.
func (r *radixRun) localArgs(phase string, cur int) []any {
	rc, pr := r.rc, r.pr
	if !rc.local {
		return nil
	}
	switch phase {
	case gen.PhaseGenerate:
		return []any{rc.idx[0]}
	case gen.PhaseScatter:
		return []any{rc.idx[cur], rc.idx[1-cur]}
	case gen.PhaseLeaf:
		return []any{rc.idx[cur], pr.off, pr.adj, r.pc.listArg(), rc.wpreBuf, rc.nitems, bufArg(pr.localArg())}
	}
	return nil
}

// radixLevel is the size of one level's bucket list: buckets to split and
// leaves, and their tiles.
type radixLevel struct{ nsplit, splitTiles, nleaf, leafTiles uint64 }

// split splits the buckets of lv (list cur) on key bits [lo, lo+nb) into
// the other list and returns the next level's sizes.
func (r *radixRun) split(cur int, lo, nb uint32, lv radixLevel) (radixLevel, error) {
	rc, pr, rx := r.rc, r.pr, r.rx
	tgrid := uint32(min(lv.splitTiles, gen.MaxGridX))
	if err := r.launch(gen.PhaseHist, tgrid, rc.keys[cur], rc.bk[cur], lv.nsplit, lv.splitTiles, lo, nb, rc.hist); err != nil {
		return lv, err
	}
	if err := r.scan(rc.hist, rc.digits*lv.splitTiles); err != nil {
		return lv, err
	}
	children := lv.nsplit * rc.digits
	cgrid := gridFor(children, uint64(rc.block))
	if err := r.launch(gen.PhaseClassify, cgrid, rc.bk[cur], lv.nsplit, rc.hist, lo, nb,
		rx.offE, rx.adjE, pr.n, rx.endE, r.idb, rc.flags); err != nil {
		return lv, err
	}
	if err := r.scan(rc.flags, 4*children); err != nil {
		return lv, err
	}
	if err := r.launch(gen.PhaseEmit, cgrid, rc.bk[cur], lv.nsplit, rc.hist, lo, nb,
		rx.offE, rx.adjE, pr.n, rx.endE, r.idb, rc.flags, rc.bk[1-cur], rc.stat); err != nil {
		return lv, err
	}
	if err := r.launch(gen.PhaseScatter, tgrid, append([]any{rc.keys[cur], rc.bk[cur], lv.nsplit, lv.splitTiles, lo, nb, rc.hist, rc.keys[1-cur]},
		r.localArgs(gen.PhaseScatter, cur)...)...); err != nil {
		return lv, err
	}
	var stat [radixStatWords]uint64
	if err := gpu.ReadSlice(rc.stat, 0, stat[:]); err != nil {
		return lv, fmt.Errorf("plan %s: class %s: reading the level sizes: %w", pr.name, r.pc.c.Name, err)
	}
	return radixLevel{stat[0], stat[1], stat[2], stat[3]}, nil
}

// RadixStats describes a wedge/radix class's last run.
type RadixStats struct {
	Wedges   uint64 `json:"wedges"`    // candidate closing edges |E'| of the class
	Capacity uint64 `json:"capacity"`  // candidates per batch
	Bytes    uint64 `json:"bytes"`     // device memory of the batch buffers
	Batches  uint64 `json:"batches"`   // batches per pass
	Levels   uint64 `json:"levels"`    // bucketing levels run per pass, over all batches
	MaxLevel uint64 `json:"max_level"` // the deepest level reached
}

// stats reports the class's batches.
func (rx *wedgeRadix) stats(pc *prepClass, cr *ClassResult) {
	rc := rx.classes[pc.c.Slot]
	if rc == nil {
		return
	}
	cr.Radix = &RadixStats{Wedges: rc.total, Capacity: rc.capacity, Batches: rc.batches, Levels: rc.levels, MaxLevel: rc.maxLevel}
	if rc.total > 0 {
		cr.Radix.Bytes = rc.batchBytes(rc.sz)
	}
}

// noReplay: a batch's levels depend on the bucket sizes read back between
// launches (replayBlocker).
func (*wedgeRadix) noReplay() string {
	return "wedge/radix classes read their buckets' sizes between launches"
}
