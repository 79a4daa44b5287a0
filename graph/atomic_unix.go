//go:build unix

package graph

import (
	"errors"
	"syscall"
)

// processGone reports whether no process has the given pid (signal 0
// probes without sending anything; EPERM means one exists, owned by
// someone else).
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
