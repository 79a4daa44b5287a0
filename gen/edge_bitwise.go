package gen

import (
	"bytes"
	"fmt"
	"math/bits"
	"slices"
	"text/template"

	"github.com/tcgen/tcgen/ir"
)

// TCBW's bit-wise intersection (Lin et al., WISA 2023,
// shared/seeds/tcbw-bitwise.txt §3.3, Algorithm 1): every out-neighbour list
// N+(x) is held as bit slices, pairs (slice index id / m, mask of the ids of
// the list in that slice) sorted by the index, m = slice_bits. An edge
// (u, v) merges the slices of N+(u) and N+(v) on the index and sums the
// popcount of the AND of equal-index masks: each common neighbour is one set
// bit of one such AND (templates/tcbw_isect_bitwise.cu.tmpl).
//
// The slices of every list are built on the device before the class kernels
// by the slice helpers (templates/tcbw_slices.cu.tmpl), once per distinct
// slice_bits of the variant that runs:
//
//  1. count: soff[x+1] = the slices of N+(x) (entries whose slice index
//     differs from the entry before), a warp per vertex; soff[0] = 0;
//  2. scan (up, top, down): soff becomes its inclusive prefix sum, so the
//     slices of N+(x) are [soff[x], soff[x+1]); the host reads soff[n], the
//     total, to size the pairs;
//  3. fill: sidx[k] = the k-th slice index, smask[k] its mask, a warp per
//     vertex, masks ORed within a warp by a segmented shuffle reduction.
//
// TCBW §3.2 splits the CSR into P1 x P2 blocks, P1 ranges of sources
// (rows) by P2 ranges of destinations (columns), and counts block by block.
// The class kernel takes a row range as a range of its work items and a
// column range as a range of slice indices [klo, khi); the executor
// (runtime/executor/bitwise.go) launches it once per (row, column) block and the counts
// of the blocks add up: a common neighbour w of an edge (u, v) lies in
// exactly one column range, and (u, v) in exactly one row range. The paper's
// edge-list blocks (i, j), j the row range of v, need no pass of their own
// here: with the whole CSR resident every j is served by the same launch.
// P1 = P2 = 1 is one launch over everything.
type bitwiseData struct {
	Bits     int    // SLICE_BITS (slice_bits)
	Shift    int    // log2(Bits)
	MaskType string // u64 for 64-bit slices, else u32
	Popc     string // the popcount of MaskType
}

// Bitwise is the launch of a bitwise class kernel (a Class field): it takes
// BitwiseArgs rather than KernelArgs, and reads the slices of set Set of
// Manifest.Slices.
type Bitwise struct {
	Set  int      `json:"set"`
	Args []string `json:"args"`
}

// BitwiseArgs are the arguments of a bitwise class kernel: the edge of item
// i is (src[e], adj[e]), e = items[i] (or i without a list); its lists are
// the slices soff/sidx/smask of its set; it counts items [ibeg, iend) (the
// row block) within slice indices [klo, khi) (the column block) into
// counts[slot].
var BitwiseArgs = []string{
	"adj u32*", "src u32*", "items u64*", "counts u64*",
	"soff u64*", "sidx u32*", "smask u32*|u64*", "ibeg u64", "iend u64", "klo u32", "khi u32",
}

// BitwiseLocalArgs follow BitwiseArgs in the bitwise kernels of a plan with
// a local output: the offsets (the credits find a common neighbour's adj
// positions in N+(u) and N+(v)) and the local counters.
var BitwiseLocalArgs = []string{"off u64*", LocalArg}

// SliceHelpers are the kernels that build the bit slices (a Manifest field,
// nil when no class is bitwise). Every helper runs with Block threads per
// block.
type SliceHelpers struct {
	Block int `json:"block"`
	// ScanUp, ScanTop and ScanDown turn soff[0, len) into its inclusive
	// prefix sum: ScanUp (ScanArgs, grid ScanBlocks(len)) writes each
	// block's sum of its range into bsum; ScanTop (ScanTopArgs, one block)
	// scans bsum exclusively in place; ScanDown (ScanArgs, the same grid)
	// scans each block's range from its bsum.
	ScanUp   string `json:"scan_up"`
	ScanTop  string `json:"scan_top"`
	ScanDown string `json:"scan_down"`
	// ScanMaxBlocks caps the scan grid; bsum holds that many u64.
	ScanMaxBlocks int        `json:"scan_max_blocks"`
	Sets          []SliceSet `json:"sets"`
}

// SliceSet builds the slices of one slice size.
type SliceSet struct {
	Bits      int `json:"bits"`       // slice_bits
	MaskBytes int `json:"mask_bytes"` // bytes of one mask (4 or 8)
	// Count (CountArgs) and Fill (FillArgs) take a warp per vertex: grid
	// Grid.Blocks(n).
	Count string `json:"count"`
	Fill  string `json:"fill"`
	Grid  Grid   `json:"grid"`
}

// Arguments of the slice helpers.
var (
	CountArgs   = []string{"off u64*", "adj u32*", "n u32", "soff u64*"}
	ScanArgs    = []string{"data u64*", "len u64", "bsum u64*"}
	ScanTopArgs = []string{"bsum u64*", "nb u32"}
	FillArgs    = []string{"off u64*", "adj u32*", "n u32", "soff u64*", "sidx u32*", "smask u32*|u64*"}
)

// sliceBlock is the helpers' block size: the default block keeps several
// blocks resident per SM, as for the src kernel.
const sliceBlock = ir.DefaultBlock

// scanMaxBlocks caps the scan's grid: 1024 blocks of 256 threads are more
// than the GPUs tcgen targets hold resident at once, and the block sums then
// take 8 KiB. Any grid is correct: each block scans a contiguous range
// of ceil(len / grid) entries.
const scanMaxBlocks = 1024

// ScanBlocks is the grid of ScanUp and ScanDown for len entries: one block
// per Block entries, at most ScanMaxBlocks (0 for no entries).
func (h *SliceHelpers) ScanBlocks(len uint64) uint32 {
	if len == 0 {
		return 0
	}
	per := uint64(h.Block)
	return uint32(min((len+per-1)/per, uint64(h.ScanMaxBlocks)))
}

// SetOf returns the set of slice size bits, or nil.
func (h *SliceHelpers) SetOf(bits int) *SliceSet {
	if h == nil {
		return nil
	}
	for i := range h.Sets {
		if h.Sets[i].Bits == bits {
			return &h.Sets[i]
		}
	}
	return nil
}

// lowerBitwise fills the class's bitwise part: the slice constants and the
// kernel's own arguments. The set index is assigned by sliceHelpers once
// every class is lowered.
func lowerBitwise(cd *classData, mc *Class, s ir.Strategy, _ Target) {
	b := ir.Get(s, ir.ParamSliceBits) // a power of two in 4..64
	bd := &bitwiseData{Bits: int(b), Shift: bits.TrailingZeros64(uint64(b)), MaskType: "u32", Popc: "__popc"}
	if b > 32 {
		bd.MaskType, bd.Popc = "u64", "__popcll"
	}
	cd.Bitwise = bd
	cd.isectPartial, cd.iterPartial = "bitwise", "edge_bitwise"
	mc.Kind, mc.Bitwise = KindBitwise, &Bitwise{Args: BitwiseArgs}
}

// sliceHelpers returns the slice helpers the plan's bitwise classes need,
// one set per distinct slice_bits in increasing order, and points each
// class at its set; nil without bitwise classes.
func sliceHelpers(name string, variants []Variant, t Target) *SliceHelpers {
	var sizes []int
	for _, v := range variants {
		for _, c := range v.Classes {
			if c.Bitwise != nil {
				sizes = append(sizes, int(c.Params[ir.ParamSliceBits]))
			}
		}
	}
	if len(sizes) == 0 {
		return nil
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	h := &SliceHelpers{
		Block:         sliceBlock,
		ScanUp:        "tc_" + name + "_scan_up",
		ScanTop:       "tc_" + name + "_scan_top",
		ScanDown:      "tc_" + name + "_scan_down",
		ScanMaxBlocks: scanMaxBlocks,
	}
	for _, b := range sizes {
		mb := 4
		if b > 32 {
			mb = 8
		}
		h.Sets = append(h.Sets, SliceSet{
			Bits: b, MaskBytes: mb,
			Count: fmt.Sprintf("tc_%s_slices%d_count", name, b),
			Fill:  fmt.Sprintf("tc_%s_slices%d_fill", name, b),
			Grid:  Grid{ItemsPerBlock: sliceBlock / t.WarpSize},
		})
	}
	for _, v := range variants {
		for _, c := range v.Classes {
			if c.Bitwise != nil {
				c.Bitwise.Set = slices.Index(sizes, int(c.Params[ir.ParamSliceBits]))
			}
		}
	}
	return h
}

// Kernels lists every helper kernel's symbol.
func (h *SliceHelpers) Kernels() []string {
	if h == nil {
		return nil
	}
	ks := []string{h.ScanUp, h.ScanTop, h.ScanDown}
	for _, s := range h.Sets {
		ks = append(ks, s.Count, s.Fill)
	}
	return ks
}

// sliceSetData feeds one set of the helpers' template.
type sliceSetData struct {
	bitwiseData
	Count, Fill, NS string
}

// renderSlices appends the slice helpers' source (nothing when h is nil).
func renderSlices(tp *template.Template, b *bytes.Buffer, h *SliceHelpers) error {
	if h == nil {
		return nil
	}
	d := struct {
		*SliceHelpers
		Warps   int
		SetData []sliceSetData
	}{SliceHelpers: h, Warps: h.Block / warpSize}
	for _, s := range h.Sets {
		bd := bitwiseData{Bits: s.Bits, Shift: bits.TrailingZeros64(uint64(s.Bits)), MaskType: "u32", Popc: "__popc"}
		if s.MaskBytes == 8 {
			bd.MaskType, bd.Popc = "u64", "__popcll"
		}
		d.SetData = append(d.SetData, sliceSetData{bitwiseData: bd, Count: s.Count, Fill: s.Fill, NS: fmt.Sprintf("slices%d", s.Bits)})
	}
	b.WriteByte('\n')
	return tp.ExecuteTemplate(b, "tcbw_slices", d)
}
