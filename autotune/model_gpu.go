package autotune

import (
	"math"

	"github.com/tcgen/tcgen/runtime/gpu"
	"github.com/tcgen/tcgen/store"
)

// GPUFacts are what the model measures a GPU by: its SMs, L2, shared memory
// per SM and DRAM bandwidth, with its tuning-store key (GPUKey).
type GPUFacts struct {
	Key          string
	SMs          int
	L2Bytes      int
	SharedPerSM  int
	BandwidthGBs float64
}

// RowGPU is the GPU a stored measurement ran on.
func RowGPU(r store.Row) GPUFacts {
	return GPUFacts{Key: r.GPU, SMs: r.SMs, L2Bytes: r.L2Bytes, SharedPerSM: r.SharedPerSM, BandwidthGBs: r.BandwidthGBs}
}

// DeviceGPU is a device's GPU facts under its tuning-store key.
func DeviceGPU(f gpu.DeviceFacts, key string) GPUFacts {
	return GPUFacts{Key: key, SMs: f.SMs, L2Bytes: f.L2Bytes, SharedPerSM: f.SharedPerSM, BandwidthGBs: f.BandwidthGBs()}
}

// Known reports whether every fact is recorded (rows of store schema 4 and
// older have none but the SMs).
func (g GPUFacts) Known() bool {
	return g.SMs > 0 && g.L2Bytes > 0 && g.SharedPerSM > 0 && g.BandwidthGBs > 0
}

// vector is the GPU's coordinates in the model's distance: log2 of each
// fact, so a factor of two in any of them is one unit, as far as one
// feature spread of the graph features. (The GPUs a store holds are too
// few, and too alike, for their spread to be a scale: an H100 80GB HBM3
// and an H200 differ in L2, 50 and 60 MiB, and bandwidth, 3352 and 4814
// GB/s, 0.585 apart; an A100 lies about one unit from an H100.)
func (g GPUFacts) vector() []float64 {
	return []float64{math.Log2(float64(g.SMs)), math.Log2(float64(g.L2Bytes)), math.Log2(float64(g.SharedPerSM)), math.Log2(g.BandwidthGBs)}
}

// gpuDistance is the squared distance between two GPUs' vectors, and
// whether a measurement on b may stand for one on a at all: on another GPU
// only when both GPUs' facts are known.
func gpuDistance(a, b GPUFacts) (float64, bool) {
	if a.Key == b.Key {
		return 0, true
	}
	if !a.Known() || !b.Known() {
		return 0, false
	}
	var d float64
	av, bv := a.vector(), b.vector()
	for j := range av {
		d += (av[j] - bv[j]) * (av[j] - bv[j])
	}
	return d, true
}
