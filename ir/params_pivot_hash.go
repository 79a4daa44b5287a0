package ir

import (
	"errors"
	"fmt"
)

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
	// ParamCore names the core (CoreSpec). It is a field of the class list
	// (Plan.Core, Variant.Core), not a class parameter; specs that set it in
	// a pivot class's params are lifted to their list on load (LiftCore).
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
	specUnroll = ParamSpec{
		Name: ParamUnroll, Default: 4, Min: 1, Max: 8,
		Source: "tcgen default: a lane's load and probe are dependent; several loads in flight per lane hide the L2 latency (docs/performance.md, \"Pivot parameters\")",
		Doc:    "positions of the concatenated tails each lane loads before probing them (independent loads in flight)",
	}
)

// CoreSpec is the range of a class list's core (Plan.Core, Variant.Core):
// the core highest ids of the list's pivot classes. It is a field of the
// list, not of a class, because one preparation pass serves all pivot
// classes of a list and builds one core matrix for them.
var CoreSpec = ParamSpec{
	Name: ParamCore, Default: 0, Min: 0, Max: 8192, OmitDefault: true,
	Values: []int64{0, 1024, 2048, 4096, 8192},
	Source: "tcgen default: no core, so plans and stored measurements made before the core keep their meaning; docs/performance.md, \"The core\" for the specs' 4096 and 8192",
	Doc:    "a class list's core highest ids (after relabelling by degree, the hubs): triangles whose middle vertex is one of them are counted by a kernel per low vertex u, ANDing the core rows of u's core neighbours with u's own core row (a core x core bit matrix, core^2 / 8 bytes, built in every pass), so their in-edges are neither counted, placed nor probed by the list's pivot classes; set on the plan, or on each guard variant (variants may differ); only a list with a pivot class takes one; 0 = none",
}

// coreProblems checks a class list's core: an allowed value, and a pivot
// class to serve.
func coreProblems(core int, cs []Class, ctx string) []error {
	if core == 0 {
		return nil
	}
	var errs []error
	if !CoreSpec.Allowed(int64(core)) {
		errs = append(errs, fmt.Errorf("%score must be %s, got %d", ctx, CoreSpec.Range(), core))
	}
	if !hasPivot(cs) {
		errs = append(errs, fmt.Errorf("%score %d needs a pivot class in the list (the core takes the pivots' middle vertices)", ctx, core))
	}
	return errs
}

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
	return errs
}

// HasPivot reports whether any class of the plan uses the pivot iterator.
func (p Plan) HasPivot() bool {
	found := hasPivot(p.Classes)
	if p.Guard != nil {
		for _, v := range p.Guard.Variants {
			found = found || hasPivot(v.Classes)
		}
	}
	return found
}

func hasPivot(cs []Class) bool {
	for _, c := range cs {
		if !c.Skip && c.Iterator == IterPivot {
			return true
		}
	}
	return false
}

// LiftCore moves a core set the old way, as a parameter of pivot classes
// (params: {core: N}), to the class list it belongs to (Plan.Core,
// Variant.Core), so specs written before the move keep loading. The pivot
// classes of a list, and the list's own core when set, must agree. Only
// pivot classes are lifted from: elsewhere "core" stays an unknown
// parameter for Validate to report. Parse calls it.
func LiftCore(p Plan) (Plan, error) {
	var errs []error
	lift := func(core *int, cs []Class, ctx string) {
		from := "" // where *core came from, for messages
		if *core != 0 {
			from = "the list's"
		}
		for i := range cs {
			c := &cs[i]
			k, ok := c.Params[ParamCore]
			if !ok || c.Skip || c.Iterator != IterPivot {
				continue
			}
			delete(c.Params, ParamCore)
			if len(c.Params) == 0 {
				c.Params = nil
			}
			switch {
			case from == "":
				*core, from = int(k), className(*c, i)+"'s"
			case int64(*core) != k:
				errs = append(errs, fmt.Errorf("%s%s: core %d differs from %s %d: the pivot classes of a class list share one core (set it once, as the list's core)", ctx, className(*c, i), k, from, *core))
			}
		}
	}
	q := p.Clone()
	lift(&q.Core, q.Classes, "")
	if q.Guard != nil {
		for i := range q.Guard.Variants {
			v := &q.Guard.Variants[i]
			lift(&v.Core, v.Classes, fmt.Sprintf("guard variant %d [%s): ", i, floatRange(v.Lo, v.Hi)))
		}
	}
	return q, errors.Join(errs...)
}
