package cuda

import (
	"errors"
	"testing"

	"github.com/tcgen/tcgen/tests/gputest"
)

// Where there is no GPU, Open and Devices fail with a typed error the
// command maps to "no usable GPU", never a crash.
func TestOpenWithoutGPU(t *testing.T) {
	d, err := Open(0, testOptions())
	if err == nil {
		d.Close()
		t.Skip("a GPU opened here; gpu_test.go covers it")
	}
	if !errors.Is(err, ErrNoDriver) && !errors.Is(err, ErrNoDevice) {
		t.Fatalf("Open: %v, want ErrNoDriver or ErrNoDevice", err)
	}
	if gputest.Required() {
		t.Fatalf("TCGEN_REQUIRE_GPU=1 but no GPU: %v", err)
	}
	if _, derr := Devices(); !errors.Is(derr, ErrNoDriver) && !errors.Is(derr, ErrNoDevice) {
		t.Errorf("Devices: %v", derr)
	}
	t.Logf("no GPU here, as expected on CI: %v", err)
}

func TestFormatUUID(t *testing.T) {
	var u [16]byte
	for i := range u {
		u[i] = byte(i * 17)
	}
	if got, want := formatUUID(u), "GPU-00112233-4455-6677-8899-aabbccddeeff"; got != want {
		t.Errorf("formatUUID = %s, want %s", got, want)
	}
}
