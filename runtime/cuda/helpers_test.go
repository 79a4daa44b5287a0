package cuda

import (
	"testing"

	"github.com/tcgen/tcgen/tests/gputest"
)

// testOptions lets a run point at a particular NVRTC (TCGEN_NVRTC=path).
func testOptions() Options { return Options{NVRTCPath: gputest.NVRTCPath()} }

// newTestCompiler loads NVRTC or skips; under CI=true (which installs NVRTC)
// and on the GPU machine (TCGEN_REQUIRE_GPU=1) a missing NVRTC is a failure.
func newTestCompiler(t *testing.T) *Compiler {
	t.Helper()
	c := gputest.Compiler(t, func() (*Compiler, error) { return NewCompiler(testOptions()) }, ErrNoNVRTC)
	t.Logf("NVRTC %d.%d from %s", c.major, c.minor, c.Path())
	return c
}

// openGPU opens device 0, closed when the test ends, or skips; with
// TCGEN_REQUIRE_GPU=1 (the GPU machine) a missing GPU fails the test
// instead. An error other than no driver or no device always fails it.
func openGPU(t *testing.T) *Device {
	t.Helper()
	return gputest.Open(t, func() (*Device, error) { return Open(0, testOptions()) }, ErrNoDriver, ErrNoDevice)
}
