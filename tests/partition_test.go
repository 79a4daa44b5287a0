package tests

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/runtime/cuda"
	"github.com/tcgen/tcgen/tests/gputest"
)

// TestCountPartitionFlags: --device-memory and --partition-chunk values
// that are not byte counts, or that come with --gpus or --backend cpu, are
// refused before any work with exit code 2 and one line naming the value.
func TestCountPartitionFlags(t *testing.T) {
	good := writeFile(t, t.TempDir(), "k4.txt", k4)
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"not bytes", []string{"--device-memory", "lots"}, "count: --device-memory lots: want a number of bytes such as 8G or 512M"},
		{"negative", []string{"--device-memory", "-5"}, "count: --device-memory -5: want a number of bytes such as 8G or 512M"},
		{"zero", []string{"--device-memory", "0"}, "count: --device-memory 0: want at least 1 byte and less than 16 EiB (or none)"},
		{"bad unit", []string{"--device-memory", "2X"}, `count: --device-memory 2X: unknown unit "X" (want bytes, or K, M, G, T or P)`},
		{"gpus", []string{"--device-memory", "1G", "--gpus", "all"}, "count: --device-memory is not implemented with --gpus yet"},
		{"cpu", []string{"--partition-chunk", "1M", "--backend", "cpu"}, "count: --partition-chunk sizes the chunks of a count in partitions on the GPU; --backend cpu counts on the CPU"},
		{"rebalance", []string{"--rebalance", "-1"}, "count: --rebalance -1: a number of rebalances is 0 or more"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := tcgen(t, append([]string{"--no-cache", "-q", "count", good}, c.args...)...)
			first, _, _ := strings.Cut(errs, "\n")
			if code != exitUsage || out != "" || first != "tcgen: "+c.msg {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d and %q", code, out, errs, exitUsage, c.msg)
			}
		})
	}
}

// TestCountPartitionedGPU: on the GPU machine, every shared dataset
// counted under a --device-memory cap that leaves its rows room for about
// a fifth of them at a time is counted in partitions (3 blocks or more,
// with the notice), exactly the manifest's count.
func TestCountPartitionedGPU(t *testing.T) {
	opts := cuda.Options{NVRTCPath: gputest.NVRTCPath()}
	dev := gputest.Open(t, func() (*cuda.Device, error) { return cuda.Open(0, opts) }, cuda.ErrNoDriver, cuda.ErrNoDevice)
	dev.Close()
	base := []string{"--cache-dir", t.TempDir(), "--no-store"}
	for _, d := range gputest.Manifest(t) {
		t.Run(d.Name, func(t *testing.T) {
			if d.EdgesUndirected < 1000 {
				// The whole plan (karate: 936 bytes) fits under the
				// 1 KiB the cap leaves for the counters.
				t.Skipf("%d edges: too small to need partitions under this cap", d.EdgesUndirected)
			}
			// The offsets, the counters, and 3 bytes a edge for the rows:
			// blocks of 8 to 16 bytes an entry (their rows and src, and
			// their longest list) hold a fifth to three eighths of them.
			capB := 8*(d.Vertices+1) + 1024 + 3*d.EdgesUndirected
			args := append(append([]string{}, base...), "count", d.Path, "--backend", "gpu", "--json",
				"--device-memory", fmt.Sprint(capB), "--expect", fmt.Sprint(d.Triangles))
			if p := gputest.NVRTCPath(); p != "" {
				args = append(args, "--nvrtc", p)
			}
			code, out, errs := tcgen(t, args...)
			if code != exitOK {
				t.Fatalf("tcgen %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
			}
			var r struct {
				Triangles  uint64 `json:"triangles"`
				PlanSource string `json:"plan_source"`
				GPU        struct {
					DeviceBytes uint64 `json:"device_bytes"`
					Partition   *struct {
						Blocks int `json:"blocks"`
						Pairs  int `json:"pairs"`
					} `json:"partition"`
				} `json:"gpu"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			p := r.GPU.Partition
			if r.Triangles != d.Triangles || r.PlanSource != "partition" || p == nil || p.Blocks < 3 || r.GPU.DeviceBytes > capB ||
				!strings.Contains(errs, "counting in partitions with small_") {
				t.Errorf("%+v (partition %+v), want %d triangles in 3 blocks or more within %d bytes; stderr:\n%s", r, p, d.Triangles, capB, errs)
			}
		})
	}
}
