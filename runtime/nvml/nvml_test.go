package nvml

import (
	"errors"
	"testing"

	"github.com/tcgen/tcgen/runtime/gpu"
	"github.com/tcgen/tcgen/tests/gputest"
)

// On a machine without NVML (CI) Read must fail with ErrUnavailable, not
// crash; on a GPU machine with a cgo build it must succeed.
func TestReadHere(t *testing.T) {
	f, err := Read("")
	if err != nil {
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Read: %v, want ErrUnavailable", err)
		}
		if haveNVML && gputest.Required() {
			t.Fatalf("TCGEN_REQUIRE_GPU=1 but NVML gave no facts: %v", err)
		}
		t.Logf("no NVML facts here (expected without a GPU): %v", err)
		return
	}
	t.Logf("NVML: %+v", f)
	if f.Name == "" || f.UUID == "" || f.Driver == "" {
		t.Errorf("facts lack name, UUID or driver: %+v", f)
	}
	if f.MaxSMClockMHz <= 0 {
		t.Errorf("no max SM clock: %+v", f)
	}
	// The same GPU by its UUID.
	g, err := Read(f.UUID)
	if err != nil || g.UUID != f.UUID {
		t.Errorf("Read(%q) = %+v, %v", f.UUID, g, err)
	}
}

func TestApply(t *testing.T) {
	d := gpu.DeviceFacts{Name: "x", ClockMHz: 1000, MemClockMHz: 2000}
	Facts{SMClockMHz: 1980, TemperatureC: 41}.Apply(&d)
	if d.ClockMHz != 1980 || d.MemClockMHz != 2000 || d.TemperatureC != 41 || d.Name != "x" {
		t.Fatalf("Apply gave %+v", d)
	}
}
