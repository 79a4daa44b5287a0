package cuda

import "syscall"

// threadID is the calling OS thread's id: a capture belongs to the thread
// that began it (graph.go).
func threadID() int64 { return int64(syscall.Gettid()) }

// threadIDs says threadID tells threads apart.
const threadIDs = true
