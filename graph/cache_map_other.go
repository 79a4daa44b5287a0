//go:build !linux

package graph

// mapCSR is not available here: the caller reads the file.
func mapCSR(path string, deferAdj bool) (g *Graph, meta CacheMeta, ok bool, err error) {
	return nil, meta, false, nil
}

// lazyWords returns count zero words (Finish unpacks a packed section into
// them); never a mapping here.
func lazyWords(count uint64) ([]uint32, bool) { return make([]uint32, count), false }

// freeWords has nothing to unmap here.
func freeWords([]uint32) {}
