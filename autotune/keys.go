package autotune

import (
	"fmt"
	"sync"

	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"github.com/tcgen/tcgen/store"
)

// GPUKey is the tuning store's key for a GPU and its software: what changes
// a timing (the chip, its SM count and its memory clock, the driver, the
// NVRTC that compiled the kernels) and nothing that does not (its UUID, the
// clocks of the day). The memory clock is the driver's nominal one (facts
// as cuda.Device.Facts reads them, before NVML's live clocks are applied):
// it tells boards of one chip apart, such as an H100's PCIe and SXM parts.
func GPUKey(f gpu.DeviceFacts, nvrtcMajor, nvrtcMinor int) string {
	return fmt.Sprintf("%s|cc%d.%d|sm%d|mem%d|drv%d|nvrtc%d.%d", f.Name, f.Major, f.Minor, f.SMs, f.MemClockMHz, f.Driver, nvrtcMajor, nvrtcMinor)
}

// CodeMatcher reports whether a stored row measured the code this build
// generates for its plan on the device: its code hash equals
// executor.CodeHash of its Spec. A row whose Spec no longer parses or
// generates is not current either. It remembers each plan's hash, so a
// caller may ask about many rows of one plan. Safe for concurrent use.
func CodeMatcher(facts gpu.DeviceFacts) func(store.Row) bool {
	var (
		mu     sync.Mutex
		hashes = map[string]string{} // plan name -> its code hash ("" if it does not generate)
	)
	return func(r store.Row) bool {
		if r.Code == "" {
			return false
		}
		mu.Lock()
		h, ok := hashes[r.Plan]
		mu.Unlock()
		if !ok {
			h = specCode(facts, r.Spec)
			mu.Lock()
			hashes[r.Plan] = h
			mu.Unlock()
		}
		return h != "" && h == r.Code
	}
}

// specCode is the code hash of a row's plan as this build generates it; ""
// when the spec does not parse or generate.
func specCode(facts gpu.DeviceFacts, spec string) string {
	p, err := ir.Parse([]byte(spec), "a stored plan")
	if err != nil {
		return ""
	}
	h, err := executor.CodeHash(facts, p, "")
	if err != nil {
		return ""
	}
	return h
}

// MaxSharedOptin is the most dynamic shared memory per block any GPU tcgen
// targets lets a block opt into (227 KiB on compute 9.0): replay expands a
// space with it, so no plan a recording holds is culled by a smaller target.
const MaxSharedOptin = 227 << 10
