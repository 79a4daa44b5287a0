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
	// CoreLocalBytes is the dynamic shared memory a core kernel takes per
	// core id (its block's counters under output vertex): a kernel of a
	// core of k ids launches with k * CoreLocalBytes bytes; 0: none.
	CoreLocalBytes int `json:"core_local_bytes,omitempty"`
	Block          int // threads per block of each
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

// PivotLocalArgs follow PivotArgs in a pivot class kernel of a plan with a
// local output: src (output vertex: u of the in-edge at e is src[e]; null
// under output edge) and the local counters (LocalArg). A core kernel of
// such a plan takes LocalArg after its own arguments.
var PivotLocalArgs = []string{"src u32*", LocalArg}

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
	if cd.Local != "" {
		lowerPivotLocal(cd, mc)
	}
}

// pivotLocalTop is the most of the highest ids whose per-vertex credits a
// pivot block sums in shared memory (4 KiB of u32 counters): on degree-
// relabelled RMAT-20 and -22, 82% and 72% of the pivot's closing vertices
// are among the 1024 highest ids, whose global counters would otherwise
// take most of the atomics, contended.
const pivotLocalTop = 1024

// lowerPivotLocal sets the local variant of a pivot class: its kernel
// (iter_pivot_local), the src array that names an in-edge's u (output
// vertex), and the block's counters of the highest ids, as many as keep the
// block within the static shared limit (at least a warp's worth, else none).
func lowerPivotLocal(cd *classData, mc *Class) {
	cd.iterPartial = "pivot_local"
	if cd.Local != string(ir.OutputVertex) {
		return
	}
	mc.NeedsSrc = true
	groups := (cd.Groups*cd.GroupWords + 1) / 2 * 8 // bytes of the groups' parts (layoutGroups)
	top := pivotLocalTop
	for top >= 32 && groups+top*4+8 > ir.SharedLimit-ir.ReduceSharedBytes {
		top /= 2
	}
	if top >= 32 {
		cd.Pivot.LocalTop = top
		cd.LocalWords = top/2 + 1 // u32 counters, then the block's pending credits (u64)
	}
}

// pivotHelpers returns the preparation kernels of a plan with local output
// local ("" for the total), nil when it has no pivot class.
func pivotHelpers(name string, variants []Variant, local ir.Output) *PivotHelpers {
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
		if local == ir.OutputVertex {
			h.CoreLocalBytes = 4 // a u32 counter per core id
		}
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

// CoreShared is the dynamic shared memory of the core kernel of k ids.
func (h *PivotHelpers) CoreShared(k int) int { return h.CoreLocalBytes * k }

func renderPivot(tp *template.Template, b *bytes.Buffer, h *PivotHelpers, local ir.Output) error {
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
		Local                 string // the plan's local output, "" for the total
	}{h, pivotPerThread, pivotHubs, maxCore, string(local)}
	b.WriteByte('\n')
	if err := tp.ExecuteTemplate(b, "pivot_prep", d); err != nil {
		return err
	}
	if local == "" || len(h.Cores) == 0 {
		return nil
	}
	// The core kernels of a local plan (pivot_prep leaves them out).
	b.WriteByte('\n')
	if err := tp.ExecuteTemplate(b, "pivot_core_local_head", d); err != nil {
		return err
	}
	for _, k := range h.Cores {
		b.WriteByte('\n')
		kd := struct {
			Local, Name string
			K, Block    int
		}{string(local), h.CoreKernel(k), k, h.Block}
		if err := tp.ExecuteTemplate(b, "pivot_core_local", kd); err != nil {
			return err
		}
	}
	return nil
}
