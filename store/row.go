// Package store is tcgen's tuning store: every verified, timed measurement
// of a plan on a graph on a GPU, kept in one SQLite file (pure Go driver, no
// cgo) that ordinary tools can query. tune and sweep write it; count reads
// the best plan for a graph from it; the model for unseen graphs is trained
// from it.
package store

import (
	"time"

	"github.com/tcgen/tcgen/graph"
)

// Status says how a measurement ended. Only StatusOK rows carry a time; the
// others are recorded with their reason so they are never chosen (nor tried
// again by a resumed tune).
type Status string

const (
	StatusOK       Status = "ok"        // count equal to the reference, then timed
	StatusWrong    Status = "wrong"     // count differs from the reference: never timed
	StatusCompile  Status = "compile"   // generation or NVRTC failed
	StatusLaunch   Status = "launch"    // load, launch or a CUDA error while running
	StatusInvalid  Status = "invalid"   // rejected by the IR's or the target's restrictions
	StatusTooLarge Status = "too-large" // the plan's buffers do not fit in GPU memory
)

// Row is one measurement: one plan on one graph on one GPU with one tcgen
// version. (Graph, GPU, Version, Plan, Code, Flushed) is its key: a later
// measurement of the same key is added after the earlier one, which stays
// as history (see latestRows).
type Row struct {
	// Graph is the graph's fingerprint (graph.Fingerprint): the same graph
	// read from any format has the same one.
	Graph     string         `json:"graph"`
	GraphName string         `json:"graph_name"` // file base name or generator label, for people
	Features  graph.Features `json:"features"`

	// GPU is the GPU key: name, compute capability, SMs, driver and NVRTC
	// version (tune.GPUKey); the fields after it spell it out.
	GPU     string `json:"gpu"`
	GPUName string `json:"gpu_name"`
	CC      string `json:"cc"` // "9.0"
	SMs     int    `json:"sms"`
	Driver  int    `json:"driver"` // cuDriverGetVersion, e.g. 13000
	NVRTC   string `json:"nvrtc"`  // "13.0"
	// The GPU's facts the model measures it by (autotune.GPUFacts); 0 in
	// rows of schema 4 and older, which did not record them.
	L2Bytes      int     `json:"l2_bytes,omitempty"`
	SharedPerSM  int     `json:"shared_per_sm,omitempty"`
	BandwidthGBs float64 `json:"bandwidth_gbs,omitempty"` // nominal DRAM bandwidth (gpu.DeviceFacts.BandwidthGBs)

	Version string `json:"version"` // tcgen's version (module version and VCS revision)
	// Code is the hash of what the compiler got for the plan (gen.CodeHash:
	// sources, headers, options, arch). A row is reused only while this
	// build generates the same code for its plan; "" (rows of schema 1)
	// never matches.
	Code string `json:"code,omitempty"`
	Plan string `json:"plan"` // ir.Plan.Name(): prefix and hash of the canonical plan
	// Spec is the plan as canonical JSON (ir.Plan), so a row can be rebuilt
	// into a runnable plan without the space it came from.
	Spec   string `json:"spec"`
	Space  string `json:"space,omitempty"`  // space or sweep name the point came from
	Point  string `json:"point,omitempty"`  // the point's key within that space
	Source string `json:"source,omitempty"` // "tune", "sweep", ...

	Status    Status `json:"status"`
	Reason    string `json:"reason,omitempty"`
	Triangles uint64 `json:"triangles"`
	Reference uint64 `json:"reference"` // the count it was checked against

	// The timing routine's output (runtime.Result.GPUMs, the one `count
	// --repeat` prints): every timed pass in ms, their median, min and max.
	Warmup int `json:"warmup"`
	// Flushed: the L2 was flushed before each timed pass (tcgen's
	// --flush-l2). Part of the key: flushed and unflushed measurements of a
	// plan are kept apart and never rivals in Best.
	Flushed  bool      `json:"flushed_l2,omitempty"`
	Runs     int       `json:"runs"`
	Samples  []float64 `json:"samples_ms,omitempty"`
	MedianMs float64   `json:"median_ms"`
	MinMs    float64   `json:"min_ms"`
	MaxMs    float64   `json:"max_ms"`
	// KernelMs is the median of the class kernels' summed event times.
	KernelMs  float64 `json:"kernel_ms"`
	CompileMs float64 `json:"compile_ms"` // 0 on a kernel-cache hit
	PrepareMs float64 `json:"prepare_ms"`

	// NVML, read with each measurement (0 when unavailable).
	ClockSMMHz  int `json:"clock_sm_mhz"`
	ClockMemMHz int `json:"clock_mem_mhz"`
	TempC       int `json:"temperature_c"`

	Time time.Time `json:"time"`
}
