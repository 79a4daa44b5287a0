package ir

import "fmt"

// The pivot iterator (IterPivot) counts each triangle u < v < w (in the
// orientation's order) at its middle vertex v: N+(v) is put in a
// shared-memory table, and for every in-edge (u,v) the entries of N+(u)
// after v probe it. Those entries are exactly the wedges (v, w) of u that
// start at v, so the probes total sum C(d+(u), 2), the fewest any
// intersection of oriented lists makes, and every probe is a read from a
// contiguous tail of N+(u). The in-edges are grouped by v on the device
// (gen/pivot_hash.go, runtime/executor) inside the timed region.
//
// Classes range over d+(v) of the pivot (key outdeg): it sizes the table.
// A pivot's in-edges are cut into items of about item_work tail entries, so
// a hub with a million in-edges is spread over many groups and no group is
// left with far more work than the others (items of a fixed in-edge count
// let single heavy items set the kernel time).

// Pivot parameter names.
const (
	ParamTable    = "table"     // u32 slots of a group's open-addressing table
	ParamItemWork = "item_work" // tail entries (probes) per item
	ParamUnroll   = "unroll"    // positions each lane loads before probing
	// ParamBuildRatio: an item holds at least build_ratio * d+(v) probes.
	ParamBuildRatio = "build_ratio"
	// ParamSpill: where the table lives (SpillShared, SpillGlobal).
	ParamSpill = "spill"
	// ParamHubBits: the highest ids, whose membership a bitmap answers.
	ParamHubBits = "hub_bits"
	// ParamQueue: items a group takes at a time from the class's work
	// counter; 0: a fixed stride over the items.
	ParamQueue = "queue"
	// ParamCore: the highest ids whose triangles as middle vertex a bit
	// matrix counts from the low side (the core), instead of the pivot.
	ParamCore = "core"
)

// Values of ParamSpill.
const (
	SpillShared int64 = 0 // table and filter in shared memory
	SpillGlobal int64 = 1 // filter in shared memory, table in global memory (L1/L2)
)

var (
	specTable = ParamSpec{
		Name: ParamTable, Default: 2048, Min: 64, Max: 16384, Pow2: true,
		Source: "tcgen default: 2048 slots hold N+(v) of up to 1024 entries at load <= 1/2, enough for most pivots of degree-oriented power-law graphs; docs/performance.md, \"Pivot parameters\" for the specs' 512",
		Doc:    "u32 slots of the group's open-addressing (linear probing) table of N+(v), behind a filter of 8 bits per slot (5 bytes of shared memory per slot); a pivot with d+(v) above table/2 is searched in global memory by binary search instead",
	}
	specItemWork = ParamSpec{
		Name: ParamItemWork, Default: 2048, Min: 32, Max: 1 << 24,
		Source: "docs/performance.md, \"Pivot parameters\": 2048 against 4096, shorter on small graphs and no longer on large ones",
		Doc:    "tail entries (probes) per work item: a pivot's in-edges are split into ceil(work / max(item_work, build_ratio * d+(v))) items of equal in-edge count, each building its own table",
	}
	specBuildRatio = ParamSpec{
		Name: ParamBuildRatio, Default: 16, Min: 1, Max: 1024,
		Source: "tcgen default (docs/performance.md, \"Pivot parameters\"): with items of only max(item_work, d+(v)) probes, building the tables of high-degree pivots costs about as much as probing them",
		Doc:    "an item holds at least build_ratio * d+(v) probes, so the table build (clearing up to 2 d+(v) slots and inserting d+(v) ids) stays a small part of it",
	}
	specSpill = ParamSpec{
		Name: ParamSpill, Default: SpillShared, Min: 0, Max: 1,
		Enum:   []string{"shared", "global"},
		Source: "tcgen default: shared tables keep the probes on chip; global tables (only the filter, 1 byte per slot, in shared memory) leave more warps per SM but were no faster in the pivot sweep (docs/results/sweep-pivot-nvidia-h200)",
		Doc:    "where the table of N+(v) lives: shared memory with its filter, or global memory (cached in L1/L2) with only the filter in shared memory",
	}
	specHubBits = ParamSpec{
		Name: ParamHubBits, Default: 4096, Min: 0, Max: 16384,
		Values: []int64{0, 256, 512, 1024, 2048, 4096, 8192, 16384},
		Source: "tcgen default: after relabelling by degree most probes of a power-law graph fall on the few thousand highest ids (docs/performance.md, \"Pivot parameters\" for the specs' 16384)",
		Doc:    "the hub_bits highest ids (the highest degrees after relabelling) are a bitmap of hub_bits / 8 bytes per group, answered exactly by one shared-memory read; the rest of N+(v) goes into the table; 0 = no bitmap",
	}
	specQueue = ParamSpec{
		Name: ParamQueue, Default: 0, Min: 0, Max: 64, OmitDefault: true,
		Values: []int64{0, 1, 2, 4, 8, 16, 32, 64},
		Source: "tcgen default: the fixed stride, so plans and stored measurements made before the queue keep their meaning; docs/performance.md, \"Pivot parameters\" for the specs' queue 1",
		Doc:    "items a group takes at a time from a counter the class's groups share (a dynamic work queue: groups that drew light items take more, so no group is left with the last heavy ones); 0 = each group takes every (blocks x groups)-th item",
	}
	specCore = ParamSpec{
		Name: ParamCore, Default: 0, Min: 0, Max: 8192, OmitDefault: true,
		Values: []int64{0, 1024, 2048, 4096, 8192},
		Source: "tcgen default: no core, so plans and stored measurements made before the core keep their meaning; docs/performance.md, \"The core\" for the specs' 4096 and 8192",
		Doc:    "the core highest ids (after relabelling by degree, the hubs): triangles whose middle vertex is one of them are counted by a kernel per low vertex u, ANDing the core rows of u's core neighbours with u's own core row (a core x core bit matrix, core^2 / 8 bytes, built in every pass), so their in-edges are neither counted, placed nor probed by the pivot; the same in every pivot class of a class list (a guard's variants may differ); 0 = none",
	}
	specUnroll = ParamSpec{
		Name: ParamUnroll, Default: 4, Min: 1, Max: 8,
		Source: "tcgen default: a lane's load and probe are dependent; several loads in flight per lane hide the L2 latency (docs/performance.md, \"Pivot parameters\")",
		Doc:    "positions of the concatenated tails each lane loads before probing them (independent loads in flight)",
	}
)

// pivotProblems checks what a class list with pivot classes needs: every
// class a pivot class (a pivot counts a triangle at its middle vertex, the
// other iterators at its lowest, so mixing them would count some twice and
// some never), the out-degree key, and no skip class.
func pivotProblems(cs []Class, ctx string) []error {
	pivots := 0
	for _, c := range cs {
		if !c.Skip && c.Iterator == IterPivot {
			pivots++
		}
	}
	if pivots == 0 {
		return nil
	}
	var errs []error
	for i, c := range cs {
		switch {
		case c.Skip:
			errs = append(errs, fmt.Errorf("%s%s: a list of pivot classes takes no skip class (a pivot with d+(v) = 1 can close triangles; pivots without work are dropped on the device)", ctx, className(c, i)))
		case c.Iterator != IterPivot:
			errs = append(errs, fmt.Errorf("%s%s: iterator %s cannot share a class list with pivot classes (pivots count a triangle at its middle vertex, the other iterators at its lowest)", ctx, className(c, i), c.Iterator))
		}
	}
	if cs[0].Select.Key != KeyOutDegree {
		errs = append(errs, fmt.Errorf("%spivot classes range over d+(v) of the pivot: key must be outdeg, got %s", ctx, cs[0].Select.Key))
	}
	// One preparation pass serves a list's pivot classes, and with it one core.
	first := int64(-1)
	for i, c := range cs {
		if c.Skip || c.Iterator != IterPivot || c.Intersection != Hash {
			continue
		}
		switch k := Get(c.Strategy, ParamCore); {
		case first < 0:
			first = k
		case k != first:
			errs = append(errs, fmt.Errorf("%s%s: core %d differs from the first pivot class's %d: the pivot classes of a class list share one core", ctx, className(c, i), k, first))
		}
	}
	return errs
}

// HasPivot reports whether any class of the plan uses the pivot iterator.
func (p Plan) HasPivot() bool {
	found := false
	check := func(cs []Class) {
		for _, c := range cs {
			found = found || (!c.Skip && c.Iterator == IterPivot)
		}
	}
	check(p.Classes)
	if p.Guard != nil {
		for _, v := range p.Guard.Variants {
			check(v.Classes)
		}
	}
	return found
}
