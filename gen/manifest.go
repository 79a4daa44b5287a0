package gen

import "github.com/tcgen/tcgen/ir"

// Manifest says how to launch what Generate produced: the kernels of every
// class, their launch shapes as formulas of the graph's sizes, and which work
// list each reads. It is JSON-encoded next to the CUDA source in generated/.
type Manifest struct {
	Plan        string         `json:"plan"` // ir.Plan.Name()
	Prefix      string         `json:"prefix"`
	Orientation ir.Orientation `json:"orientation"`
	Relabel     bool           `json:"relabel"`
	// IDOrdered: the kernels assume that vertex ids follow the orientation's
	// order (orientation id, or relabel), and trim N+(u) to the part after v.
	IDOrdered bool     `json:"id_ordered"`
	Source    string   `json:"source"`  // file name of the CUDA source
	Options   []string `json:"options"` // NVRTC options the source needs besides the arch
	Target    Target   `json:"target"`
	// Args names the arguments every class kernel takes, in order.
	Args []string `json:"args"`
	// Src is the kernel that fills src[] (first vertex of each edge); nil
	// when no class iterates over edges.
	Src *Helper `json:"src,omitempty"`
	// Feature is the graph feature the guard tests; empty without a guard.
	Feature string `json:"feature,omitempty"`
	// Variants holds the guard's alternatives in order; a plan without a
	// guard has one variant covering every graph.
	Variants []Variant `json:"variants"`
}

// Helper is an auxiliary kernel (the src filler).
type Helper struct {
	Kernel string   `json:"kernel"`
	Block  int      `json:"block"`
	Grid   Grid     `json:"grid"` // items are vertices
	Args   []string `json:"args"`
}

// Variant is one class list, taken when Lo <= feature < Hi (Hi == 0:
// unbounded).
type Variant struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi,omitempty"`
	// Work is the estimate a work-keyed list ranges over (ir.WorkModelOf):
	// "merge" = d+u + d+v, "search" = min * ceil(log2(max+1)). Empty when
	// the list is keyed by out-degree.
	Work    ir.WorkModel `json:"work,omitempty"`
	Classes []Class      `json:"classes"`
}

// Item domains of a class's work list.
const (
	ItemsVertices = "vertices" // list of u32 vertex ids
	ItemsEdges    = "edges"    // list of u64 edge ids (index into adj)
)

// Class describes one class's kernel and its work.
type Class struct {
	// Slot is the class's entry in the counts array (its index in the
	// variant); a variant needs len(Classes) counters.
	Slot int    `json:"slot"`
	Name string `json:"name"`
	// Key, Lo, Hi: items whose key lies in [Lo, Hi) (Hi == 0: unbounded).
	Key  ir.Key `json:"key"`
	Lo   int64  `json:"lo"`
	Hi   int64  `json:"hi,omitempty"`
	Skip bool   `json:"skip,omitempty"` // no kernel: the items hold no triangle

	Iterator     ir.Iterator      `json:"iterator,omitempty"`
	Intersection ir.Intersection  `json:"intersection,omitempty"`
	Width        int              `json:"width,omitempty"`
	Params       map[string]int64 `json:"params,omitempty"` // every applicable parameter, defaults resolved

	Kernel string `json:"kernel,omitempty"`
	Block  int    `json:"block,omitempty"`
	Grid   Grid   `json:"grid"`
	// StaticSharedBytes is declared in the kernel; DynamicSharedBytes must
	// be passed at launch (and the kernel's limit raised above 48 KiB).
	StaticSharedBytes  int `json:"static_shared_bytes,omitempty"`
	DynamicSharedBytes int `json:"dynamic_shared_bytes,omitempty"`
	// Items is what the class's work list holds: ItemsVertices (u32 ids)
	// or ItemsEdges (u64 ids). A class that takes every item of its domain
	// reads no list (null pointer: item i is vertex or edge i).
	Items string `json:"items"`
	// NeedsSrc: the kernel reads src[] (edge and edge-chunk iterators).
	NeedsSrc bool `json:"needs_src,omitempty"`
}

// Grid is a launch-size formula. With ItemsPerBlock set, the grid is
// ceil(items / ItemsPerBlock) blocks; with BlocksPerSM set, it is SMs *
// BlocksPerSM. Kernels stride over their items by the grid, so any grid
// (capped by MaxGridX) is correct; the formula only sets the parallelism.
type Grid struct {
	ItemsPerBlock int `json:"items_per_block,omitempty"`
	BlocksPerSM   int `json:"blocks_per_sm,omitempty"`
}

// MaxGridX is the largest gridDim.x CUDA allows (2^31 - 1).
const MaxGridX = 1<<31 - 1

// Blocks returns the number of blocks to launch for items work items on a
// GPU with sms multiprocessors; 0 when there is nothing to do.
func (g Grid) Blocks(items uint64, sms int) uint32 {
	if items == 0 {
		return 0
	}
	var b uint64
	switch {
	case g.ItemsPerBlock > 0:
		per := uint64(g.ItemsPerBlock)
		b = (items + per - 1) / per
	case g.BlocksPerSM > 0:
		b = uint64(max(sms, 1)) * uint64(g.BlocksPerSM)
	default:
		b = 1
	}
	return uint32(min(b, MaxGridX))
}

// KernelArgs are the arguments of every class kernel, in order (see the
// comment at the top of each generated source).
var KernelArgs = []string{
	"off u64*", "adj u32*", "src u32*", "n u32", "m u64", "items u32*|u64*", "nitems u64", "counts u64*",
}

// SrcArgs are the arguments of the src kernel.
var SrcArgs = []string{"off u64*", "n u32", "src u32*"}
