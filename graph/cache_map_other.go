//go:build !linux

package graph

// mapCSR is not available here: the caller reads the file.
func mapCSR(path string, deferAdj bool) (g *Graph, meta CacheMeta, ok bool, err error) {
	return nil, meta, false, nil
}
