package cuda

import "testing"

func TestEffectiveArch(t *testing.T) {
	known := []int{75, 80, 86, 89, 90}
	for _, c := range []struct {
		arch string
		sup  []int
		want string
	}{
		{"sm_90", known, "sm_90"},
		{"sm_100", known, "compute_90"}, // a GPU newer than NVRTC: PTX the driver compiles
		{"sm_87", known, "compute_86"},
		{"sm_70", known, "sm_70"}, // nothing older: NVRTC reports it
		{"compute_90", known, "compute_90"},
		{"sm_90", nil, "sm_90"}, // NVRTC cannot say: as asked
	} {
		if got := effectiveArch(c.arch, c.sup); got != c.want {
			t.Errorf("effectiveArch(%q, %v) = %q, want %q", c.arch, c.sup, got, c.want)
		}
	}
}
