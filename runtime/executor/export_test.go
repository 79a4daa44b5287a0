package executor

// SetRadixMaxBatch caps the candidates per batch of the wedge/radix classes
// (0: no cap) for the tests, which force many batches with it; it returns
// the previous cap.
func SetRadixMaxBatch(n uint64) uint64 {
	old := radixMaxBatch
	radixMaxBatch = n
	return old
}

// AdjBytes is the adjacency buffer's padded size (adjBytes), which the fake
// device checks its launches against.
func AdjBytes(m uint64) uint64 { return adjBytes(m) }

// CheckListsKernel and CheckListsFile name the GPU list check
// (upload.go), which the fake device emulates.
const (
	CheckListsKernel = checkListsKernel
	DegreesKernel    = degreesKernel
	UnpackKernel     = unpackKernel
	CheckListsFile   = checkListsFile
)
