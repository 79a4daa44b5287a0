package tests

import (
	"encoding/json"
	"fmt"
	"path/filepath"
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
// with the notice) by the tiled edge merge, as the default plan counts
// graphs of their size, exactly the manifest's count; RMAT-18 (3.8 M
// edges, 54 wedges an edge), which the default counts with the pivot, is
// counted in partitions by the pivot, exactly the CPU oracle's count.
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
			countPartitioned(t, base, d.Path, capB, "--expect", fmt.Sprint(d.Triangles)).want(t, d.Triangles, "merge", 3, capB)
		})
	}
	t.Run("rmat18", func(t *testing.T) {
		rmat := filepath.Join(t.TempDir(), "rmat18.tcsr")
		if code, _, errs := tcgen(t, "-q", "graph", "rmat", "--scale", "18", "-o", rmat); code != exitOK {
			t.Fatalf("tcgen graph rmat: exit %d: %s", code, errs)
		}
		// 174 221 vertices, 3 805 565 edges (tcgen stats): the offsets,
		// the core's matrix (4096 ids: 2 MiB) and 3 bytes an edge; the
		// default needs 12 bytes an edge and more, its fallbacks 8 and
		// more.
		const n, m = 174221, 3805565
		capB := uint64(8*(n+1) + 2<<20 + 3*m)
		r := countPartitioned(t, base, rmat, capB, "--check")
		r.want(t, r.Triangles, "pivot", 2, capB)
	})
}

// partitioned is what a count in partitions reports.
type partitioned struct {
	Triangles  uint64 `json:"triangles"`
	PlanSource string `json:"plan_source"`
	Plan       string `json:"plan"`
	GPU        struct {
		DeviceBytes uint64 `json:"device_bytes"`
		Partition   *struct {
			Blocks int    `json:"blocks"`
			Pairs  int    `json:"pairs"`
			Family string `json:"family"`
		} `json:"partition"`
	} `json:"gpu"`
	errs string
}

// countPartitioned counts path on the GPU under a cap of capB bytes with
// the further arguments more, and returns its JSON result and stderr.
func countPartitioned(t *testing.T, base []string, path string, capB uint64, more ...string) partitioned {
	t.Helper()
	args := append(append([]string{}, base...), "count", path, "--backend", "gpu", "--json", "--device-memory", fmt.Sprint(capB))
	args = append(args, more...)
	if p := gputest.NVRTCPath(); p != "" {
		args = append(args, "--nvrtc", p)
	}
	code, out, errs := tcgen(t, args...)
	if code != exitOK {
		t.Fatalf("tcgen %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	var r partitioned
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r.errs = errs
	return r
}

// want checks a count in partitions of want triangles by family in blocks
// or more within capB bytes, with its notice naming the partition plan.
func (r partitioned) want(t *testing.T, want uint64, family string, blocks int, capB uint64) {
	t.Helper()
	p := r.GPU.Partition
	if r.Triangles != want || r.PlanSource != "partition" || p == nil || p.Family != family || p.Blocks < blocks || r.GPU.DeviceBytes > capB ||
		!strings.HasPrefix(r.Plan, "partition_") || !strings.Contains(r.errs, "counting in partitions with "+r.Plan+" (examples/partition.yaml, ") {
		t.Errorf("%+v (partition %+v), want %d triangles by the %s in %d blocks or more within %d bytes; stderr:\n%s", r, p, want, family, blocks, capB, r.errs)
	}
}
