// Package nvml reads GPU facts (name, driver, clocks, temperature, power)
// through NVML. NVML needs cgo: with cgo on Linux it uses go-nvml, which
// loads libnvidia-ml.so.1 at run time; elsewhere a stub answers
// ErrUnavailable. A missing library or driver is ErrUnavailable too, never a
// crash, so callers treat NVML facts as optional extras.
package nvml

import (
	"errors"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// ErrUnavailable: no NVML facts (built without cgo, no libnvidia-ml, no
// driver, or no such GPU).
var ErrUnavailable = errors.New("nvml: no NVML facts")

// Facts is what NVML tells about one GPU. A query the GPU does not support
// leaves its field zero.
type Facts struct {
	Name           string  `json:"name"`
	UUID           string  `json:"uuid"`
	Driver         string  `json:"driver"` // e.g. "580.65.06"
	MemoryBytes    uint64  `json:"memory_bytes"`
	SMClockMHz     int     `json:"sm_clock_mhz"`      // current
	MemClockMHz    int     `json:"mem_clock_mhz"`     // current
	MaxSMClockMHz  int     `json:"max_sm_clock_mhz"`  // boost limit
	MaxMemClockMHz int     `json:"max_mem_clock_mhz"` // boost limit
	TemperatureC   int     `json:"temperature_c"`
	PowerW         float64 `json:"power_w"`
	PowerLimitW    float64 `json:"power_limit_w"`
}

// Apply copies the live clocks and temperature into driver-API facts (the
// driver's clock attributes are nominal and deprecated in CUDA 13).
func (f Facts) Apply(d *gpu.DeviceFacts) {
	if f.SMClockMHz > 0 {
		d.ClockMHz = f.SMClockMHz
	}
	if f.MemClockMHz > 0 {
		d.MemClockMHz = f.MemClockMHz
	}
	if f.TemperatureC > 0 {
		d.TemperatureC = f.TemperatureC
	}
}
