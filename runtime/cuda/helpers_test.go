package cuda

import (
	"errors"
	"os"
	"testing"
)

// requireGPU: the GPU machine sets TCGEN_REQUIRE_GPU=1 so a missing GPU or
// NVRTC fails instead of skipping.
func requireGPU() bool { return os.Getenv("TCGEN_REQUIRE_GPU") == "1" }

// testOptions lets a run point at a particular NVRTC (TCGEN_NVRTC=path).
func testOptions() Options { return Options{NVRTCPath: os.Getenv("TCGEN_NVRTC")} }

// newTestCompiler loads NVRTC or skips; under CI=true (which installs NVRTC)
// and on the GPU machine a missing NVRTC is a failure.
func newTestCompiler(t *testing.T) *Compiler {
	t.Helper()
	c, err := NewCompiler(testOptions())
	if err != nil {
		if errors.Is(err, ErrNoNVRTC) && os.Getenv("CI") != "true" && !requireGPU() {
			t.Skipf("no NVRTC here (install libnvrtc11.2 or set TCGEN_NVRTC): %v", err)
		}
		t.Fatal(err)
	}
	t.Logf("NVRTC %d.%d from %s", c.major, c.minor, c.Path())
	return c
}
