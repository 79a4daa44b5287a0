//go:build unix

package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// rlimitBounds offers the address-space and data rlimits (ulimit -v, -d),
// less what the process has mapped already (VmSize, VmData in
// /proc/self/status where there is one): past them an allocation fails,
// and the Go runtime dies of it with a stack dump.
func rlimitBounds(consider func(uint64, string)) {
	status := procStatus("/proc/self/status")
	for _, r := range []struct {
		res  int
		used string
		from string
	}{{syscall.RLIMIT_AS, "VmSize", "the address-space rlimit (ulimit -v) less what is mapped"},
		{syscall.RLIMIT_DATA, "VmData", "the data rlimit (ulimit -d) less what is used"}} {
		var lim syscall.Rlimit
		if syscall.Getrlimit(r.res, &lim) != nil || lim.Cur >= cgroupNoLimit { // infinity too
			continue
		}
		used := status[r.used]
		if used >= lim.Cur {
			consider(1, r.from) // nothing left: every estimate is refused
			continue
		}
		consider(lim.Cur-used, r.from)
	}
}

// procStatus reads the "Name: N kB" lines of a /proc status file, in bytes.
func procStatus(path string) map[string]uint64 {
	m := map[string]uint64{}
	f, err := os.Open(path)
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		num, isKB := strings.CutSuffix(strings.TrimSpace(rest), " kB")
		if !ok || !isKB {
			continue
		}
		if kb, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64); err == nil {
			m[name] = kb << 10
		}
	}
	return m
}
