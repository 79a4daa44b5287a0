package gen

import (
	"bytes"
	"slices"
	"strconv"
	"text/template"

	"github.com/tcgen/tcgen/ir"
)

// The pivot iterator with its hash table (ir/params_pivot_hash.go): a class
// kernel per pivot class, and five preparation kernels, shared by the plan's
// pivot classes, that group the in-edges by pivot and bin the pivots into the
// classes' item lists on the device (templates/pivot_prep.cu.tmpl).
// runtime/executor/pivot.go launches them.

// PivotHelpers names the preparation kernels of a plan with pivot classes.
type PivotHelpers struct {
	Count, Sums, Scan, Bin, Scatter string
	// Cores lists the distinct cores (Variant.Core, from the IR's class
	// lists) of the plan's variants with pivot classes, ascending, none zero. A variant's core (VariantCore) is the
	// highest ids whose triangles as middle vertex the core kernel of that
	// size (CoreKernel) counts with a core x core bit matrix that Count
	// zeroes and Scatter fills. A kernel per size: its row is then a
	// compile-time array (one kernel sized at run time took more
	// instructions and ran longer, docs/performance.md).
	Cores []int `json:"cores,omitempty"`
	// CoreCount prefixes the core kernels' names; empty without a core.
	CoreCount string `json:"core_count,omitempty"`
	Block     int    // threads per block of each
	// Tile is the vertices one block of Sums and Bin covers: the host
	// launches ceil(n / Tile) blocks of each and one of Scan.
	Tile int
	// Classes lists, in order, the pivot classes of every variant: the
	// index in this list is the class's item list and nitems entry.
	Classes []PivotClass `json:"classes"`
}

// PivotClass is one pivot class as the preparation kernels see it.
type PivotClass struct {
	Variant int   `json:"variant"`
	Slot    int   `json:"slot"` // the class's index in its variant
	Lo      int64 `json:"lo"`
	Hi      int64 `json:"hi,omitempty"`
	// ItemWork is the class's item_work: tail entries per item.
	ItemWork int64 `json:"item_work"`
	// BuildRatio is the class's build_ratio: an item holds at least
	// build_ratio * d+(v) probes.
	BuildRatio int64 `json:"build_ratio"`
	// Core is the core of the class's variant (Variant.Core), repeated
	// here so the executor finds it with the class's item list.
	Core int `json:"core,omitempty"`
}

// PivotArgs are the arguments of a pivot class kernel. items and nitems
// point at the class's own list and counter (PivotHelpers.Classes order).
var PivotArgs = []string{
	"off u64*", "adj u32*", "inoff u64*", "csz u32*", "tails u64*", "items u64*", "nitems u64*", "counts u64*", "spill u32*", "n u32",
	"queue u64*",
}

// pivotBlock is the block of the preparation kernels: 256 threads, and 8
// vertices per thread in the tiled ones (a tile of 2048 keeps the one-block
// scan of the tile sums short: 4400 tiles on a 9-million-vertex graph).
//
// pivotHubs is how many of the highest ids the count and scatter kernels
// count per block in shared memory (24 KiB of it): after relabelling by
// degree they are the highest-degree vertices, whose in-edges serialised on
// global atomics (docs/performance.md).
const (
	pivotBlock     = 256
	pivotPerThread = 8
	pivotHubs      = 2048
)

// lowerPivot fills the pivot class's data (iterator pivot, intersection
// hash: the table of N+(v)).
func lowerPivot(cd *classData, mc *Class, s ir.Strategy, _ Target) {
	tb := ir.Get(s, ir.ParamTable) // a power of two
	cd.isectPartial, cd.iterPartial = "pivot_table", "pivot"
	cd.Pivot.Table = int(tb)
	cd.Pivot.Unroll = int(ir.Get(s, ir.ParamUnroll))
	cd.Pivot.Spill = ir.Get(s, ir.ParamSpill) == ir.SpillGlobal
	cd.GroupWords = cd.Pivot.Table + cd.Pivot.Table/4 // the table and its filter (8 bits per slot)
	spill := 0
	if cd.Pivot.Spill {
		cd.GroupWords = cd.Pivot.Table / 4 // the filter; the table is in global memory
		spill = cd.Pivot.Table
	}
	cd.Pivot.HubBits = int(ir.Get(s, ir.ParamHubBits))
	cd.Pivot.Queue = int(ir.Get(s, ir.ParamQueue))
	cd.GroupWords += cd.Pivot.HubBits / 32
	// Persistent blocks: as many as an SM may hold by threads; the kernel
	// reads its item count on the device.
	cd.BlocksPerSM = max(1, 2048/cd.Block)
	mc.Items, mc.Kind, mc.Pivot = ItemsVertices, KindPivot, &PivotLaunch{SpillWords: spill}
}

// pivotHelpers returns the preparation kernels of a plan, nil when it has
// no pivot class.
func pivotHelpers(name string, variants []Variant) *PivotHelpers {
	var cls []PivotClass
	var cores []int
	for vi, v := range variants {
		for _, c := range v.Classes {
			if c.Kind == KindPivot {
				k := v.Core
				cls = append(cls, PivotClass{Variant: vi, Slot: c.Slot, Lo: c.Lo, Hi: c.Hi, ItemWork: c.Params[ir.ParamItemWork], BuildRatio: c.Params[ir.ParamBuildRatio], Core: k})
				if k > 0 && !slices.Contains(cores, k) {
					cores = append(cores, k)
				}
			}
		}
	}
	slices.Sort(cores)
	if len(cls) == 0 {
		return nil
	}
	p := "tc_" + name + "_pv_"
	h := &PivotHelpers{
		Count: p + "count", Sums: p + "sums", Scan: p + "scan", Bin: p + "bin", Scatter: p + "scatter",
		Block: pivotBlock, Tile: pivotBlock * pivotPerThread, Classes: cls, Cores: cores,
	}
	if len(cores) > 0 {
		h.CoreCount = p + "core"
	}
	return h
}

// CoreKernel names the core kernel for a core of k ids.
func (h *PivotHelpers) CoreKernel(k int) string { return h.CoreCount + strconv.Itoa(k) }

// Kernels names the preparation kernels in launch order, then the core
// kernels (one per core size; a pass runs its variant's).
func (h *PivotHelpers) Kernels() []string {
	ks := []string{h.Count, h.Sums, h.Scan, h.Bin, h.Scatter}
	for _, k := range h.Cores {
		ks = append(ks, h.CoreKernel(k))
	}
	return ks
}

// VariantCore returns variant vi's core (0: none, or no pivot class).
func (h *PivotHelpers) VariantCore(vi int) int {
	if h == nil {
		return 0
	}
	for _, c := range h.Classes {
		if c.Variant == vi {
			return c.Core
		}
	}
	return 0
}

// CoreMatrixBytes is the device memory of variant vi's core bit matrix: a
// row of core bits for each of the core highest ids.
func (h *PivotHelpers) CoreMatrixBytes(vi int) uint64 {
	k := uint64(h.VariantCore(vi))
	return k * k / 8
}

// Index returns the position of variant vi's class slot in Classes, or -1.
func (h *PivotHelpers) Index(vi, slot int) int {
	for i, c := range h.Classes {
		if c.Variant == vi && c.Slot == slot {
			return i
		}
	}
	return -1
}

func renderPivot(tp *template.Template, b *bytes.Buffer, h *PivotHelpers) error {
	if h == nil {
		return nil
	}
	maxCore := 0
	if n := len(h.Cores); n > 0 {
		maxCore = h.Cores[n-1]
	}
	d := struct {
		*PivotHelpers
		PerThread, Hubs, Core int
	}{h, pivotPerThread, pivotHubs, maxCore}
	b.WriteByte('\n')
	return tp.ExecuteTemplate(b, "pivot_prep", d)
}
