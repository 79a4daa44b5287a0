package gen

import "github.com/tcgen/tcgen/ir"

// The wedge iterator with the radix intersection (radix-binning.txt) is a
// multi-phase class: its kernel generates candidate closing edges E' into a
// key buffer (Algorithm 1), and further kernels bucket them by MSD radix
// digits and intersect the small buckets with E directly (Algorithm 2). The
// host runs the phases level by level (runtime/executor/wedge_radix.go); the manifest lists
// them in Class.Radix.Phases. The phase names below are how the runtime finds them.
const (
	PhaseGenerate = "generate"  // candidates of a batch of wedges -> key buffer
	PhaseHist     = "histogram" // per tile of a bucket: candidates per digit
	PhaseScanUp   = "scan-up"   // exclusive scan, 1/3: per scan tile sums
	PhaseScanMid  = "scan-mid"  // exclusive scan, 2/3: one block scans the sums
	PhaseScanDown = "scan-down" // exclusive scan, 3/3: tiles scanned from their sums
	PhaseClassify = "classify"  // per child bucket: empty, leaf or bucketed further
	PhaseEmit     = "emit"      // child buckets written at their scanned positions
	PhaseScatter  = "scatter"   // stable move of each tile's candidates into the children
	PhaseLeaf     = "leaf"      // direct intersection of the leaf buckets with E
)

// RadixBucketBytes is the size of one bucket record (struct Bucket in
// templates/isect_radix.cu.tmpl): start, len, key, e0, e1, tile0 (u64 each).
const RadixBucketBytes = 6 * 8

// radixData feeds templates/isect_radix.cu.tmpl and iter_wedge.cu.tmpl.
// Every number is final.
type radixData struct {
	Bits, Digits int
	Threshold    int64
	Warps        int
	// Per candidates per thread make a tile of Tile = Block * Per; see
	// lowerRadix for why.
	Per, Tile         int
	ScanPer, ScanTile int
	// ScatterShared is the scatter kernel's static shared memory.
	ScatterShared int
	BucketBytes   int // RadixBucketBytes, checked by a static_assert
	// Kernel names, by phase.
	Gen, Hist, ScanUp, ScanMid, ScanDown, Classify, Emit, Scatter, Leaf string
}

// radixScanPer is the elements a thread sums per scan tile. The middle pass
// runs on one block over n / (radixScanPer * block) tile sums; 8 keeps it a
// small share of a scan (at most 1/8 of the elements of the other passes
// divided by the block) while a scan tile stays a few KiB.
const radixScanPer = 8

// radixCandidatesPerCounter is the fewest candidates a tile has per digit
// counter: a tile's DIGITS u64 counters then cost at most 8/32 = 1/4 byte
// per candidate, beside the 16 bytes of its two key copies, whatever
// radix_bits is.
const radixCandidatesPerCounter = 32

// lowerRadix fills the class's constants and its phase kernels. Validate
// keeps width 1, radix_bits in 1..8 and the scatter's shared memory (the
// strategy's SharedBytes) within ir.SharedLimit; a block is whole warps.
func lowerRadix(cd *classData, mc *Class, s ir.Strategy, t Target) {
	mc.Items, cd.iterPartial = ItemsVertices, "wedge"
	bits := int(ir.Get(s, ir.ParamRadixBits))
	r := &radixData{
		Bits: bits, Digits: 1 << bits,
		Threshold: ir.Get(s, ir.ParamThreshold),
		Warps:     cd.Block / t.WarpSize,
		ScanPer:   radixScanPer,
		ScanTile:  cd.Block * radixScanPer,

		BucketBytes: RadixBucketBytes,
	}
	r.Per = max(1, (radixCandidatesPerCounter*r.Digits+cd.Block-1)/cd.Block)
	r.Tile = cd.Block * r.Per
	// (WARPS + 1) x DIGITS u32 rank counters and DIGITS u64 write cursors.
	r.ScatterShared = (r.Warps+1)*r.Digits*4 + r.Digits*8
	k := mc.Kernel
	r.Gen, r.Hist, r.ScanUp, r.ScanMid, r.ScanDown = k, k+"_hist", k+"_scan_up", k+"_scan_mid", k+"_scan_down"
	r.Classify, r.Emit, r.Scatter, r.Leaf = k+"_classify", k+"_emit", k+"_scatter", k+"_leaf"
	cd.Radix = r
	cd.isectPartial = "radix"

	blk := cd.Block
	bucketArgs := []string{"bk Bucket*", "nseg u64"}
	graphE := []string{"offE u64*", "adjE u32*", "n u32", "m u64", "idbits u32"}
	level := []string{"lo u32", "bits u32"}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	// Grids count: candidates (generate), tiles (histogram, scatter, leaf:
	// a block per tile), scan elements (scan-up, scan-down: a block per
	// scan tile), one block (scan-mid), child buckets (classify, emit).
	mc.Kind = KindRadix
	mc.Radix = &RadixLaunch{Phases: []Helper{
		{Phase: PhaseGenerate, Kernel: r.Gen, Block: blk, Grid: Grid{ItemsPerBlock: blk},
			Args: []string{"off u64*", "adj u32*", "items u32*", "wpre u64*", "nitems u64", "q0 u64", "cnt u64", "idbits u32", "keys u64*"}},
		{Phase: PhaseHist, Kernel: r.Hist, Block: blk, Grid: Grid{ItemsPerBlock: 1}, Tile: r.Tile,
			Args: cat([]string{"keys u64*"}, bucketArgs, []string{"ntile u64"}, level, []string{"hist u64*"})},
		{Phase: PhaseScanUp, Kernel: r.ScanUp, Block: blk, Grid: Grid{ItemsPerBlock: r.ScanTile}, Tile: r.ScanTile,
			Args: []string{"data u64*", "n u64", "part u64*"}},
		{Phase: PhaseScanMid, Kernel: r.ScanMid, Block: blk, Grid: Grid{}, Tile: r.ScanTile,
			Args: []string{"part u64*", "nb u64", "data u64*", "n u64"}},
		{Phase: PhaseScanDown, Kernel: r.ScanDown, Block: blk, Grid: Grid{ItemsPerBlock: r.ScanTile}, Tile: r.ScanTile,
			Args: []string{"data u64*", "n u64", "part u64*"}},
		{Phase: PhaseClassify, Kernel: r.Classify, Block: blk, Grid: Grid{ItemsPerBlock: blk},
			Args: cat(bucketArgs, []string{"hist u64*"}, level, graphE, []string{"flags u64*"})},
		{Phase: PhaseEmit, Kernel: r.Emit, Block: blk, Grid: Grid{ItemsPerBlock: blk},
			Args: cat(bucketArgs, []string{"hist u64*"}, level, graphE, []string{"flags u64*", "next Bucket*", "stat u64*"})},
		{Phase: PhaseScatter, Kernel: r.Scatter, Block: blk, Grid: Grid{ItemsPerBlock: 1}, Tile: r.Tile,
			Args: cat([]string{"keys u64*"}, bucketArgs, []string{"ntile u64"}, level, []string{"hist u64*", "out u64*"})},
		{Phase: PhaseLeaf, Kernel: r.Leaf, Block: blk, Grid: Grid{ItemsPerBlock: 1}, Tile: r.Tile,
			Args: []string{"keys u64*", "bk Bucket*", "b0 u64", "b1 u64", "t0 u64", "t1 u64", "offE u64*", "adjE u32*", "idbits u32", "counts u64*"}},
	}}
	if cd.Local != "" {
		radixLocalArgs(mc.Radix.Phases)
	}
}

// radixLocalArgs adds the arguments of the local variant's phases: each
// candidate carries its wedge's index q (generate writes it beside the key,
// scatter moves it with the key), from which the leaf recovers the wedge's
// origin u and its positions in N+(u), as generate found them, to credit
// the triangles it closes.
func radixLocalArgs(phases []Helper) {
	for i := range phases {
		h := &phases[i]
		switch h.Phase {
		case PhaseGenerate:
			h.Args = append(h.Args, "idx u64*")
		case PhaseScatter:
			h.Args = append(h.Args, "idx u64*", "idx_out u64*")
		case PhaseLeaf:
			h.Args = append(h.Args, "idx u64*", "off u64*", "adj u32*", "items u32*", "wpre u64*", "nitems u64", LocalArg)
		}
	}
}
