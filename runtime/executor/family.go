package executor

import (
	"context"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// A family runs the classes of one kind that the executor launches its own
// way: one launch with gen.KernelArgs (single.go), dense rows
// (edge_bitmap.go), bit slices (bitwise.go), wedge batches and radix levels
// (wedge_radix.go), wedges searched (wedge_search.go), items built on the
// device (pivot.go), merges reading aligned lists (aligned.go). Prepare makes one
// family per kind among the chosen variant's classes, adds its buffers to
// the memory plan (memory.go) and sets it up once the graph, the work lists
// and src are on the device; Run has it launch each of its classes in
// every pass. A new family is a type in a file of its own, a familyID, a
// line of familyKinds and a case of familyOf (manifest.go).
type family interface {
	// buffers lists the device memory the family allocates: the memory
	// plan sums it before anything is allocated.
	buffers() []bufferSpec
	// setup allocates the buffers, looks the kernels up and builds what
	// the classes read before the first pass.
	setup(pr *Prepared) error
	// launch runs class pc in a pass, between its timer's events; its
	// errors name the plan.
	launch(ctx context.Context, pr *Prepared, pc *prepClass) error
	// stats adds what the family reports of class pc to cr.
	stats(pc *prepClass, cr *ClassResult)
}

// preparer is a family with device work at the start of every pass,
// before any class kernel and inside the pass's time (pivot.go).
type preparer interface {
	family
	// prepare launches the pass's preparation, each kernel between its
	// own timer's events when timed.
	prepare(pr *Prepared, timed bool) error
	// prepNames names the preparation kernels, in launch order.
	prepNames() []string
	// prepTimes reads their times in the last pass prepared timed.
	prepTimes() ([]float64, error)
}

// reserver is a family whose buffers grow into the memory left by the
// others (wedge_radix.go): given need bytes planned and have usable, it
// sizes them and returns the new need, false when they do not fit.
type reserver interface {
	family
	reserve(need, have uint64) (uint64, bool)
}

// familyID names a family; families are made and set up in this order.
type familyID int

const (
	famSingle familyID = iota
	famEdgeBitmap
	famBitwise
	famWedgeRadix
	famWedgeSearch
	famPivot
	famAligned
	numFamilies
)

// planning is what a family's constructor reads: the graph on the host and
// the chosen variant with its work lists.
type planning struct {
	man     gen.Manifest
	variant int          // the chosen variant's index in man.Variants
	classes []gen.Class  // its classes
	lists   []WorkList   // their work lists, in class order
	g       *graph.Graph // nil for a graph read oriented
	o       *graph.Oriented
	sms     int
	part    *devicePart // this device's share (multi.go); nil: all of it
}

// familyKinds tell how to make each family from the slots (class indices)
// of its classes, and whether preparing them reads the oriented lists on
// the host (hostReadsAdj).
var familyKinds = [numFamilies]struct {
	make     func(pl *planning, slots []int) (family, error)
	readsAdj bool
}{
	famSingle:      {make: newSingleLaunch},
	famEdgeBitmap:  {make: newEdgeBitmap},
	famBitwise:     {make: newEdgeBitwise, readsAdj: true},
	famWedgeRadix:  {make: newWedgeRadix, readsAdj: true},
	famWedgeSearch: {make: newWedgeSearch, readsAdj: true}, // the bit matrix
	famPivot:       {make: newPivotFamily},
	famAligned:     {make: newAligned},
}

// newFamilies makes the families of the planned variant's classes, skip
// classes apart, and returns them in familyID order with the family of
// each class (nil for a skip class).
func newFamilies(pl *planning) (fams, of []family, err error) {
	var slots [numFamilies][]int
	for i, c := range pl.classes {
		if !c.Skip {
			id := familyOf(c)
			slots[id] = append(slots[id], i)
		}
	}
	of = make([]family, len(pl.classes))
	for id, s := range slots {
		if len(s) == 0 {
			continue
		}
		f, err := familyKinds[id].make(pl, s)
		if err != nil {
			return nil, nil, err
		}
		fams = append(fams, f)
		for _, i := range s {
			of[i] = f
		}
	}
	return fams, of, nil
}

// hostReadsAdj reports whether preparing v reads the oriented lists on the
// host: work-keyed lists (the work of an edge needs d+ of its head),
// target items (grouped by the edge's head) and the families that say so.
// Out-degree keys and the pivot's device-built items need the offsets alone.
func hostReadsAdj(v gen.Variant) bool {
	for _, c := range v.Classes {
		if !c.Skip && (c.Key != ir.KeyOutDegree || c.Target || familyKinds[familyOf(c)].readsAdj) {
			return true
		}
	}
	return false
}

// noStats is embedded by the families that report nothing of their own.
type noStats struct{}

func (noStats) stats(*prepClass, *ClassResult) {}
