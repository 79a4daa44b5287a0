package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/tcgen/tcgen/graph"
)

// memory returns the bound on host memory a command may allocate, found
// once: --memory-limit, else what the machine offers now
// (systemMemoryLimit). The Go runtime's soft limit is set to it too, so the
// collector works harder near it rather than let garbage push the process
// past it.
func (g *Globals) memory() (graph.MemoryLimit, error) {
	g.memOnce.Do(func() {
		if g.MemoryLimit != "" {
			b, err := parseBytes(g.MemoryLimit)
			if err != nil {
				g.memErr = errorf(exitUsage, "--memory-limit %s: %v", g.MemoryLimit, err)
				return
			}
			g.mem = graph.MemoryLimit{Bytes: b, From: "--memory-limit"}
		} else {
			g.mem = systemMemoryLimit()
		}
		if g.mem.Bytes > 0 && g.mem.Bytes <= math.MaxInt64 {
			debug.SetMemoryLimit(int64(g.mem.Bytes))
		}
	})
	return g.mem, g.memErr
}

// parseBytes reads a byte count: digits with an optional suffix K, M, G,
// T or P (powers of 1024, as GOMEMLIMIT and ulimit count; "KiB", "KB"
// and "k" mean the same), or "none" for no limit (0).
func parseBytes(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "none") {
		return 0, nil
	}
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToUpper(strings.TrimSpace(t[i:]))
	if num == "" {
		return 0, fmt.Errorf("want a number of bytes such as 8G or 512M")
	}
	unit = strings.TrimSuffix(strings.TrimSuffix(unit, "B"), "I")
	shift := strings.Index("KMGTP", unit) + 1
	if len(unit) > 1 || unit != "" && shift == 0 {
		return 0, fmt.Errorf("unknown unit %q (want bytes, or K, M, G, T or P)", t[i:])
	}
	if unit == "" {
		shift = 0
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("want a number of bytes such as 8G or 512M")
	}
	b := x * math.Pow(1024, float64(shift))
	if b < 1 || b >= math.MaxUint64 {
		return 0, fmt.Errorf("want at least 1 byte and less than 16 EiB (or none)")
	}
	return uint64(b), nil
}

// systemMemoryLimit is the smallest of what bounds this process now: the
// kernel's MemAvailable (free memory and reclaimable caches), the memory
// cgroup's limit (memory.max, v1's memory.limit_in_bytes) and, on Unix,
// the address-space and data rlimits less what the process has mapped
// already. No bound found: zero, no limit.
func systemMemoryLimit() graph.MemoryLimit {
	var best graph.MemoryLimit
	consider := func(b uint64, from string) {
		if b > 0 && (best.Bytes == 0 || b < best.Bytes) {
			best = graph.MemoryLimit{Bytes: b, From: from}
		}
	}
	if b, ok := memAvailable("/proc/meminfo"); ok {
		consider(b, "MemAvailable in /proc/meminfo")
	}
	if b, from, ok := cgroupLimit("/proc/self/cgroup", "/sys/fs/cgroup"); ok {
		consider(b, from)
	}
	rlimitBounds(consider)
	if best.Bytes > 0 {
		best.From += "; --memory-limit sets another"
	}
	return best
}

// memAvailable reads MemAvailable (kB) from a meminfo file.
func memAvailable(path string) (uint64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		return kb << 10, err == nil
	}
	return 0, false
}

// cgroupLimit finds the memory limit of this process's cgroup, or of the
// nearest ancestor that sets one (the smallest applies), under root: v2
// (a "0::/path" line, memory.max) or v1 (a "memory" controller line,
// memory.limit_in_bytes; values near 2^63 mean no limit).
func cgroupLimit(procCgroup, root string) (uint64, string, bool) {
	data, err := os.ReadFile(procCgroup)
	if err != nil {
		return 0, "", false
	}
	var best uint64
	from := ""
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dir, file string
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir, file = root, "memory.max"
		case strings.Contains(","+parts[1]+",", ",memory,"):
			dir, file = filepath.Join(root, "memory"), "memory.limit_in_bytes"
		default:
			continue
		}
		// From the process's own cgroup up to the root: every level's
		// limit applies.
		for p := filepath.Clean("/" + parts[2]); ; p = filepath.Dir(p) {
			path := filepath.Join(dir, p, file)
			if b, ok := readLimitFile(path); ok && (best == 0 || b < best) {
				best, from = b, path
			}
			if p == "/" {
				break
			}
		}
	}
	return best, from, best > 0
}

// cgroupNoLimit: cgroup v1 reports "no limit" as the largest page-aligned
// int64; anything from 2^62 on is no real bound.
const cgroupNoLimit = 1 << 62

func readLimitFile(path string) (uint64, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	b, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64) // "max" fails: no limit
	return b, err == nil && b > 0 && b < cgroupNoLimit
}
