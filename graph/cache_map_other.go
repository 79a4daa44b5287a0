//go:build !linux

package graph

// mapCSR is not available here: the caller reads the file.
func mapCSR(path string, deferAdj bool) (g *Graph, meta CacheMeta, ok bool, err error) {
	return nil, meta, false, nil
}

// lazyWords returns count zero words (Finish unpacks a packed section into them).
func lazyWords(count uint64) []uint32 { return make([]uint32, count) }
