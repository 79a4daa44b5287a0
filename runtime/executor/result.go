package executor

import (
	"slices"
	"time"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// Timing summarises the milliseconds of repeated runs.
type Timing struct {
	Median float64 `json:"median_ms"`
	Min    float64 `json:"min_ms"`
	Max    float64 `json:"max_ms"`
}

func summarize(ms []float64) Timing {
	if len(ms) == 0 {
		return Timing{}
	}
	s := slices.Clone(ms)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Timing{Median: med, Min: s[0], Max: s[len(s)-1]}
}

// ClassResult is what one class did.
type ClassResult struct {
	Slot         int             `json:"slot"`
	Name         string          `json:"name"`
	Skip         bool            `json:"skip,omitempty"`
	Kernel       string          `json:"kernel,omitempty"`
	Iterator     ir.Iterator     `json:"iterator,omitempty"`
	Intersection ir.Intersection `json:"intersection,omitempty"`
	Width        int             `json:"width,omitempty"`
	Block        int             `json:"block,omitempty"`
	Grid         uint32          `json:"grid,omitempty"`
	SharedBytes  int             `json:"shared_bytes,omitempty"`
	Items        uint64          `json:"items"`
	ItemKind     string          `json:"item_kind"`
	List         bool            `json:"list"` // a work list was uploaded (false: every item, or skipped)
	Triangles    uint64          `json:"triangles"`
	Ms           Timing          `json:"kernel_ms"`

	// Radix: a wedge/radix class's batches (wedge_radix.go); nil otherwise.
	Radix *RadixStats `json:"radix,omitempty"`
}

// Result is one execution of a plan on a graph.
type Result struct {
	Plan    string          `json:"plan"`
	Device  gpu.DeviceFacts `json:"device"`
	Arch    string          `json:"arch"`
	NVRTC   [2]int          `json:"nvrtc"`
	Variant int             `json:"variant"`
	// Orientation is the one the graph was counted under: the variant's
	// (ir.Variant.Orientation) or the plan's.
	Orientation  ir.Orientation `json:"orientation"`
	Feature      string         `json:"feature,omitempty"`
	FeatureValue float64        `json:"feature_value,omitempty"`
	// Features holds every feature the guard measured to pick the variant.
	Features  map[string]float64 `json:"features,omitempty"`
	Vertices  uint64             `json:"vertices"`
	Edges     uint64             `json:"edges"`
	Triangles uint64             `json:"triangles"`
	// PerClass lists the chosen variant's classes in order.
	PerClass []ClassResult `json:"classes"`
	// CopyMs is the event-timed upload of the graph and the work lists
	// (the graph's events also span what the planning queued beside it:
	// memsets of counters).
	CopyMs float64 `json:"copy_ms"`
	// SrcMs is the event-timed src kernel (0 without edge classes).
	SrcMs float64 `json:"src_ms"`
	// SlicesMs is the event-timed building of the bit slices of bitwise
	// classes (bitwise.go; 0 without them).
	SlicesMs float64 `json:"slices_ms,omitempty"`
	// KernelMs summarises, over the timed runs, the sum of the class
	// kernels' event times.
	KernelMs Timing `json:"kernel_ms"`
	// GPUMs summarises, over the timed runs, one event pair around a whole
	// pass: zeroing the counters, the device-side preparation of pivot
	// classes, every class kernel and the reduction. Lists built on the host
	// and uploaded by Prepare (the other iterators) are outside it.
	GPUMs Timing `json:"gpu_ms"`
	// GPUSamples are the timed passes behind GPUMs, in order (the tuner
	// keeps them: a shorter measurement's median is that of the first few).
	GPUSamples []float64 `json:"gpu_samples_ms,omitempty"`
	// Pass is the measurement of the same passes (GPUMs and GPUSamples
	// with the median's confidence interval, the warm-ups and whether L2
	// was flushed before each pass): what every command reports.
	Pass Measurement `json:"pass"`
	// Graph says the timed passes replayed the first pass's launches as
	// one CUDA graph (RunOptions.NoGraph); GraphError says why they did
	// not where the device could have.
	Graph      bool   `json:"graph,omitempty"`
	GraphError string `json:"graph_error,omitempty"`
	// PrepMs summarises the device-side preparation of pivot classes
	// (in-edge and item lists, pivot.go), part of GPUMs.
	PrepMs Timing `json:"prep_ms"`
	// PrepKernels times each preparation kernel (count, sums, scan, bin,
	// scatter); nil without pivot classes.
	PrepKernels map[string]Timing `json:"prep_kernels_ms,omitempty"`
	Runs        int               `json:"runs"`
	// DeviceBytes is the device memory the run allocated.
	DeviceBytes uint64 `json:"device_bytes"`
	// Host-side wall times.
	OrientMs   float64 `json:"orient_ms"`
	ListsMs    float64 `json:"lists_ms"`
	GenerateMs float64 `json:"generate_ms"`
	CompileMs  float64 `json:"compile_ms"`
	// Phases splits Prepare's wall time, in order (end-to-end analysis:
	// scripts/e2e.py prints them). UploadWallMs is the graph's upload, in
	// the background from the "memory plan" phase on (graphUpload).
	Phases       []Phase `json:"phases,omitempty"`
	UploadWallMs float64 `json:"upload_wall_ms,omitempty"`
	// Devices lists each device's part of a run on several devices
	// (PrepareMulti); the times above are then, pass by pass, the slowest
	// device's, and SlowestShare is the modelled work's fraction of the
	// device slowest in median. Nil for a run on one device by Prepare.
	Devices      []DeviceRun `json:"devices,omitempty"`
	SlowestShare float64     `json:"slowest_device_share,omitempty"`
	// Partition is what a count in partitions (PreparePartitioned) did in
	// a pass; nil for a count with the whole graph on the device.
	Partition *PartitionStats `json:"partition,omitempty"`
	// Rebalance lists the measured rebalances before this run's passes
	// (MultiPrepared.Rebalance).
	Rebalance []RebalanceRound `json:"rebalance,omitempty"`

	// Output is the plan's local output (empty for the total alone).
	// Local holds the local counts of the last pass, indexed by the ids of
	// Oriented (vertex) or by positions in Oriented.Adj (edge); they sum
	// to 3 x Triangles. LocalDownloadMs is their copy to the host, apart
	// from every kernel time.
	Output          ir.Output       `json:"output,omitempty"`
	Local           []uint64        `json:"-"`
	Oriented        *graph.Oriented `json:"-"`
	LocalDownloadMs float64         `json:"local_download_ms,omitempty"`
}

// Phase is one step of Prepare and its wall time.
type Phase struct {
	Name string  `json:"name"`
	Ms   float64 `json:"ms"`
}

// phaseClock records the wall time between its marks.
type phaseClock struct {
	last   time.Time
	phases []Phase
}

func newPhaseClock() *phaseClock { return &phaseClock{last: time.Now()} }

// mark ends the phase name: the time since the previous mark.
func (c *phaseClock) mark(name string) {
	now := time.Now()
	c.phases = append(c.phases, Phase{Name: name, Ms: float64(now.Sub(c.last).Microseconds()) / 1e3})
	c.last = now
}

// skip starts the next phase now: the time since the last mark (the wait
// for the device's context, HostPrepared.OnDevice) belongs to no phase.
func (c *phaseClock) skip() { c.last = time.Now() }

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1e3 }
