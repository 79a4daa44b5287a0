//go:build !linux

package cuda

// threadID has no portable form outside Linux: Capture refuses there.
func threadID() int64 { return 0 }

// threadIDs says threadID tells threads apart.
const threadIDs = false
