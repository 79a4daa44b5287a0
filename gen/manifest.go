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
	// Output is the plan's local output (ir.OutputVertex, ir.OutputEdge):
	// its class kernels take LocalArg after KernelArgs. Empty for the total.
	Output ir.Output `json:"output,omitempty"`
	// Src is the kernel that fills src[] (first vertex of each edge); nil
	// when no class iterates over edges.
	Src *Helper `json:"src,omitempty"`
	// Slices builds the bit slices bitwise classes read (gen/edge_bitwise.go); nil
	// without bitwise classes.
	Slices *SliceHelpers `json:"slices,omitempty"`
	// Pivot builds the in-edge lists and item lists of pivot classes
	// (gen/pivot_hash.go); nil without them.
	Pivot *PivotHelpers `json:"pivot,omitempty"`
	// Feature is the graph feature the guard tests; empty without a guard.
	Feature string `json:"feature,omitempty"`
	// Variants holds the guard's alternatives in order; a plan without a
	// guard has one variant covering every graph.
	Variants []Variant `json:"variants"`
}

// Helper is an auxiliary kernel (the src filler).
type Helper struct {
	// Phase names the helper's role among a radix class's Phases
	// (gen.PhaseGenerate, ...); empty for the src kernel.
	Phase  string   `json:"phase,omitempty"`
	Kernel string   `json:"kernel"`
	Block  int      `json:"block"`
	Grid   Grid     `json:"grid"` // items are vertices (src); a phase's items are said in gen/wedge_radix.go
	Args   []string `json:"args"`
	// Tile is the elements one block takes at a time in a tiled phase; the
	// host needs it to count tiles and scan partials.
	Tile int `json:"tile,omitempty"`
}

// Variant is one class list, taken when Lo <= feature < Hi (Hi == 0:
// unbounded) and every condition of When holds.
type Variant struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi,omitempty"`
	// When holds the variant's further conditions (ir.Variant.When): the
	// first variant whose range and conditions all hold is taken.
	When []ir.Cond `json:"when,omitempty"`
	// Work is the estimate a work-keyed list ranges over (ir.WorkModelOf):
	// "merge" = d+u + d+v, "search" = min * ceil(log2(max+1)). Empty when
	// the list is keyed by out-degree.
	Work ir.WorkModel `json:"work,omitempty"`
	// Core is the list's core (ir.Plan.Core, ir.Variant.Core): the highest
	// ids its pivot classes leave to the core kernel (Pivot.CoreKernel);
	// 0 = none.
	Core int `json:"core,omitempty"`
	// Orientation orients the graphs this variant takes (ir.Variant.
	// Orientation); empty: the plan's (Manifest.Orientation).
	Orientation ir.Orientation `json:"orientation,omitempty"`
	Classes     []Class        `json:"classes"`
}

// VariantOrientation is the orientation the graphs variant vi takes are
// oriented by.
func (m *Manifest) VariantOrientation(vi int) ir.Orientation {
	if o := m.Variants[vi].Orientation; o != "" {
		return o
	}
	return m.Orientation
}

// Item domains of a class's work list.
const (
	ItemsVertices = "vertices" // list of u32 vertex ids
	ItemsEdges    = "edges"    // list of u64 edge ids (index into adj)
)

// Kind says how the executor launches a class's kernel, and so which of
// Class's family parts is set: the one named like the kind, none for
// KindSingle.
type Kind string

const (
	// KindSingle: one launch of Kernel with KernelArgs per pass (edge,
	// vertex and edge-chunk iterators with merge, merge path, binary
	// search, hash or the vertex bitmap).
	KindSingle Kind = "single"
	// KindPivot: the items are built on the device first (Class.Pivot).
	KindPivot Kind = "pivot"
	// KindRadix: kernels launched level by level (Class.Radix).
	KindRadix Kind = "radix"
	// KindBitwise: a launch per block of slices (Class.Bitwise).
	KindBitwise Kind = "bitwise"
	// KindDense: the rows kernel, then the class kernel (Class.Dense).
	KindDense Kind = "dense"
	// KindWedge: one launch with WedgeArgs over the class's wedges
	// (Class.Wedge).
	KindWedge Kind = "wedge"
	// KindAligned: one launch with KernelArgs, the aligned copy of the
	// lists as its scratch (Class.Aligned).
	KindAligned Kind = "aligned"
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
	// Kind is how the kernel is launched; empty for a Skip class.
	Kind Kind `json:"kind,omitempty"`

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
	// SelfReset: the kernel leaves its count in counts[Slot] and resets its
	// accumulator and block ticket itself (tc::finish_count), so a pass
	// needs no memset when every launched class has it. The counts buffer
	// holds CountsWords(classes) u64 words: outputs, accumulators, tickets.
	SelfReset bool `json:"self_reset,omitempty"`
	// NeedsSrc: the kernel reads src[] (edge and edge-chunk iterators).
	NeedsSrc bool `json:"needs_src,omitempty"`
	// Target: the class's list holds its edges grouped by their target v,
	// each item e << TargetLenBits | the length of N+(u) after v (edge/merge
	// with target; runtime/executor's targetItems builds it). The list is
	// never left out.
	Target bool `json:"target,omitempty"`
	// TargetBand: with Target, the items in bands of 2^TargetBand CSR
	// positions (e >> TargetBand), in order, each grouped by v; 0 = one band.
	TargetBand int `json:"target_band,omitempty"`
	// Scratch is the global memory the kernel needs per group; nil: none
	// (the kernel gets a null scratch pointer).
	Scratch *Scratch `json:"scratch,omitempty"`
	// The part of the class's family (Kind); nil for the other kinds.
	Pivot   *PivotLaunch   `json:"pivot,omitempty"`
	Radix   *RadixLaunch   `json:"radix,omitempty"`
	Bitwise *Bitwise       `json:"bitwise,omitempty"` // gen/edge_bitwise.go
	Dense   *DenseLaunch   `json:"dense,omitempty"`
	Wedge   *WedgeLaunch   `json:"wedge,omitempty"` // gen/wedge_search.go
	Aligned *AlignedLaunch `json:"aligned,omitempty"`
}

// TargetLenBits is the low bits of a target item: the length of N+(u)
// after v, below 2^24 as every out-degree the aligned copy takes.
const TargetLenBits = 24

// AlignedLaunch is the part of a merge class with align on: its kernel
// reads N+(v) from a copy of the out-lists passed as its scratch: n u64
// words start << AlignDegreeBits | d+(v) (the start in entries of the
// lists part), then the lists as u32 from word AlignListsWord(n) on, each
// spanning as few tiles as its length allows. The executor writes the
// words on the host and Copy, a warp per vertex, copies the lists once
// before the passes; the classes of a variant share one copy, laid out for
// all their tiles (runtime/executor/aligned.go).
type AlignedLaunch struct {
	Tile int    `json:"tile"`
	Copy Helper `json:"copy"`
	// Carry, with carry on, writes the class's items of 16 bytes (each
	// target item and N+(v)'s word) once before the passes; the class then
	// takes them as its list (CarryArgs).
	Carry *Helper `json:"carry,omitempty"`
}

// CarryArgs are the arguments of an AlignedLaunch.Carry kernel: the
// lists, the buffer of the class's items (16 bytes an item, its 8-byte
// items in the second half, written over in place), their number, the
// aligned copy (its words written) and the items [lo, hi) of one launch
// (CarryRounds).
var CarryArgs = []string{"adj u32*", "wide u64*", "nitems u64", "aligned u64*", "lo u64", "hi u64"}

// CarryRounds are the launches of a carry kernel over n items, as
// [lo, hi) pairs: each writes only words of items read by an earlier
// launch, or of the thread's own item. Item i reads word n+i and writes
// words 2i and 2i+1, so a launch from lo may take up to half of what is
// left; about log2(n)+1 launches.
func CarryRounds(n uint64) [][2]uint64 {
	var r [][2]uint64
	for lo := uint64(0); lo < n; {
		hi := lo + max(1, (n-lo)/2)
		r = append(r, [2]uint64{lo, hi})
		lo = hi
	}
	return r
}

// CarryOverwrite says whether a carry launch over items [lo, hi) of n
// has an item i write over item j != i not read before the launch (item i
// reads word n+i, writes words 2i and 2i+1; every item below lo is read),
// and which: the hazard CarryRounds avoids.
func CarryOverwrite(n, lo, hi uint64) (i, j uint64, bad bool) {
	for i = lo; i < hi; i++ {
		for _, w := range []uint64{2 * i, 2*i + 1} {
			if j = w - n; w >= n && j >= lo && j != i {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

// AlignDegreeBits are the low bits of an aligned copy's word that hold
// d+(v): out-degrees below 2^24 (a degree-ordered graph has
// d+ < sqrt(2m)), starts below 2^40 entries.
const AlignDegreeBits = 24

// AlignListsWord is the u64 word of an aligned copy where the lists
// start: after the n words, rounded to 16 bytes for the tiles' vector
// loads.
func AlignListsWord(n uint64) uint64 { return (n + 1) &^ 1 }

// AlignArgs are the arguments of an AlignedLaunch.Copy kernel: the graph
// and the copy, its words already written.
var AlignArgs = []string{"off u64*", "adj u32*", "n u32", "aligned u64*"}

// PivotLaunch is a pivot class's part: the kernel takes PivotArgs and its
// items are built on the device by Manifest.Pivot's kernels
// (gen/pivot_hash.go, runtime/executor/pivot.go).
type PivotLaunch struct {
	// SpillWords: with spill global, the u32 words of global memory each
	// group needs (grid * BLOCK / Width groups); 0 otherwise.
	SpillWords int `json:"spill_words,omitempty"`
}

// RadixLaunch is a wedge/radix class's part (gen/wedge_radix.go): its
// kernels, run level by level by the executor (runtime/executor/wedge_radix.go)
// instead of one launch with KernelArgs. Class.Kernel is the first phase;
// each phase has its own Args.
type RadixLaunch struct {
	Phases []Helper `json:"phases"`
}

// DenseLaunch is an edge/bitmap class's part (gen/edge_bitmap.go): Rows
// writes the dense rows into the class's scratch, launched in every pass
// just before the class kernel, with RowsArgs.
type DenseLaunch struct {
	Rows Helper `json:"rows"`
}

// RowsArgs are the arguments of a DenseLaunch.Rows kernel: the graph and the
// scratch buffer, and the u64 words of a row.
var RowsArgs = []string{"off u64*", "adj u32*", "n u32", "rows u64*", "row_words u64"}

// Scratch is per-group global memory a class kernel needs besides the graph
// (Bisson's bitmaps; any design may use it). The executor allocates
// grid * Groups * Words(n) u64 words and passes the buffer and Words(n) as
// the kernel arguments scratch and scratch_words; the group of global index
// g = blockIdx.x * Groups + (its index in the block) owns
// scratch[g * scratch_words, (g+1) * scratch_words). Because the memory is
// per resident group, the executor caps the grid so that the scratch fits
// the device (kernels stride over their items by the grid, so any grid is
// correct). The classes of a variant share one buffer: they run one after
// the other.
type Scratch struct {
	// Groups is the number of groups per block that each own a slice.
	Groups int `json:"groups"`
	// Words and BitsPerVertex make Words(n) = Words + ceil(n * BitsPerVertex / 64)
	// u64 words per group (at least 1).
	Words         uint64 `json:"words,omitempty"`
	BitsPerVertex uint64 `json:"bits_per_vertex,omitempty"`
	// BitsPerOutDeg adds ceil(D * BitsPerOutDeg / 64) words, D the largest
	// out-degree of the first vertex of the class's items (Skiff's tries,
	// gen/hash.go): see WordsFor.
	BitsPerOutDeg uint64 `json:"bits_per_outdeg,omitempty"`
	// Zeroed: the kernel needs its slice zeroed at launch and leaves it
	// zeroed when it returns. The executor zeroes the buffer once after
	// allocating it, and again before such a kernel only when a class
	// without this promise shares the buffer.
	Zeroed bool `json:"zeroed,omitempty"`
	// Square: one n x n bit matrix for the whole grid instead of slices per
	// group (the dense rows of gen/edge_bitmap.go): n rows of SquareWords(n) u64
	// words, then a u64 per vertex (its row's span), scratch_words being a
	// row's words; the grid is not capped. The executor allocates it apart
	// from the per-group scratch and shares it among a plan's dense classes.
	Square bool `json:"square,omitempty"`
}

// SquareWords returns a Square scratch's u64 words per row on a graph of n
// vertices: n bits rounded up to 128, so that every row is 16-byte aligned
// for vector loads.
func SquareWords(n uint64) uint64 { return max(2, (n+127)/128*2) }

// SquareBytes returns a Square scratch's size on a graph of n vertices.
func SquareBytes(n uint64) uint64 { return (n*SquareWords(n) + n) * 8 }

// WordsPerGroup returns the u64 words one group owns on a graph of n
// vertices.
func (s Scratch) WordsPerGroup(n uint64) uint64 {
	return max(1, s.Words+(n*s.BitsPerVertex+63)/64)
}

// WordsFor returns the u64 words one group owns on a graph of n vertices
// when the first vertices of the class's items have out-degree at most
// maxOutDeg (the executor folds this term into Words: runtime/executor/scratch.go).
func (s Scratch) WordsFor(n, maxOutDeg uint64) uint64 {
	return s.WordsPerGroup(n) + (maxOutDeg*s.BitsPerOutDeg+63)/64
}

// Grid is a launch-size formula. With ItemsPerBlock set, the grid is
// ceil(items / ItemsPerBlock) blocks; with BlocksPerSM set, it is SMs *
// BlocksPerSM; with both, the smaller of the two (persistent blocks that
// stride over many items, e.g. to bound per-group scratch). Kernels stride over their items by the grid, so any grid
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
		if g.BlocksPerSM > 0 {
			b = min(b, uint64(max(sms, 1))*uint64(g.BlocksPerSM))
		}
	case g.BlocksPerSM > 0:
		b = uint64(max(sms, 1)) * uint64(g.BlocksPerSM)
	default:
		b = 1
	}
	return uint32(min(b, MaxGridX))
}

// KernelArgs are the arguments of every class kernel, in order (see the
// comment at the top of each generated source).
// The last two, scratch and scratch_words, are the class's Scratch (null
// and 0 without one); every kernel declares them, used or not.
var KernelArgs = []string{
	"off u64*", "adj u32*", "src u32*", "n u32", "m u64", "items u32*|u64*", "nitems u64", "counts u64*",
	"scratch u64*", "scratch_words u64",
}

// LocalArg is the last argument of the class kernels of a plan with a
// local output: the counters, n (vertex) or m (edge) u64 words, zeroed
// before each pass.
const LocalArg = "local u64*"

// LocalWords is the size in u64 words of the local counters of output o
// for a graph of n vertices and m oriented edges (0 for the total).
func LocalWords(o ir.Output, n, m uint64) uint64 {
	switch o {
	case ir.OutputVertex:
		return n
	case ir.OutputEdge:
		return m
	}
	return 0
}

// SrcArgs are the arguments of the src kernel.
var SrcArgs = []string{"off u64*", "n u32", "src u32*"}

// CountsWords is the size in u64 words of the counts buffer of a variant
// with classes classes: an output slot, an accumulator and a block ticket
// (a u32 in its own word) per class (templates/reduce.cu.tmpl finish_count).
func CountsWords(classes int) int { return 3 * classes }
