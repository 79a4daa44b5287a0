package runtime

// SetRadixMaxBatch caps the candidates per batch of the wedge/radix classes
// (0: no cap) for the tests, which force many batches with it; it returns
// the previous cap.
func SetRadixMaxBatch(n uint64) uint64 {
	old := radixMaxBatch
	radixMaxBatch = n
	return old
}
