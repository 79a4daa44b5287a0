package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		bad  bool
	}{
		{in: "123", want: 123}, {in: "8G", want: 8 << 30}, {in: "8g", want: 8 << 30}, {in: "512M", want: 512 << 20},
		{in: "512MiB", want: 512 << 20}, {in: "512MB", want: 512 << 20}, {in: "1.5K", want: 1536}, {in: "2T", want: 2 << 40},
		{in: " 4 G ", want: 4 << 30}, {in: "none", want: 0}, {in: "1P", want: 1 << 50},
		{in: "", bad: true}, {in: "G", bad: true}, {in: "8X", bad: true}, {in: "8GG", bad: true}, {in: "-1", bad: true},
		{in: "0", bad: true}, {in: "99999999E", bad: true}, {in: "1.2.3", bad: true},
	} {
		got, err := parseBytes(c.in)
		if c.bad != (err != nil) || !c.bad && got != c.want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d (error %v)", c.in, got, err, c.want, c.bad)
		}
	}
}

func TestMemAvailable(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "meminfo")
	os.WriteFile(p, []byte("MemTotal:       32768000 kB\nMemFree:         1000 kB\nMemAvailable:   16384000 kB\n"), 0o644)
	if b, ok := memAvailable(p); !ok || b != 16384000<<10 {
		t.Errorf("got %d, %v", b, ok)
	}
	os.WriteFile(p, []byte("MemTotal: 1 kB\n"), 0o644)
	if _, ok := memAvailable(p); ok {
		t.Error("no MemAvailable line: found one")
	}
}

// TestCgroupLimit: v2 takes the smallest memory.max from the process's
// cgroup up to the root ("max" is no limit); v1 reads the memory
// controller's limit_in_bytes, where a huge value is no limit.
func TestCgroupLimit(t *testing.T) {
	root := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
	}
	proc := filepath.Join(root, "proc-cgroup")
	write("proc-cgroup", "0::/user.slice/job\n")
	write("user.slice/job/memory.max", "max\n")
	write("user.slice/memory.max", "4294967296\n")
	write("memory.max", "8589934592\n")
	b, from, ok := cgroupLimit(proc, root)
	if !ok || b != 4<<30 || from != filepath.Join(root, "user.slice/memory.max") {
		t.Errorf("v2: %d from %s (%v)", b, from, ok)
	}
	write("proc-cgroup", "12:cpu,cpuacct:/x\n5:memory:/docker/abc\n")
	write("memory/docker/abc/memory.limit_in_bytes", "1073741824\n")
	write("memory/memory.limit_in_bytes", "9223372036854771712\n")
	if b, _, ok := cgroupLimit(proc, root); !ok || b != 1<<30 {
		t.Errorf("v1: %d (%v)", b, ok)
	}
	write("proc-cgroup", "0::/\n")
	write("memory.max", "max\n")
	if _, _, ok := cgroupLimit(proc, root); ok {
		t.Error("no limit anywhere: found one")
	}
}
