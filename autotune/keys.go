package autotune

import (
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// GPUKey is the tuning store's key for a GPU and its software: what changes
// a timing (the chip and its SM count, the driver, the NVRTC that compiled
// the kernels) and nothing that does not (its UUID, the clocks of the day).
func GPUKey(f gpu.DeviceFacts, nvrtcMajor, nvrtcMinor int) string {
	return fmt.Sprintf("%s|cc%d.%d|sm%d|drv%d|nvrtc%d.%d", f.Name, f.Major, f.Minor, f.SMs, f.Driver, nvrtcMajor, nvrtcMinor)
}

// MaxSharedOptin is the most dynamic shared memory per block any GPU tcgen
// targets lets a block opt into (227 KiB on compute 9.0): replay expands a
// space with it, so no plan a recording holds is culled by a smaller target.
const MaxSharedOptin = 227 << 10
