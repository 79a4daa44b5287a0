package graph

import "fmt"

// Hub is a graph with one vertex of very high degree: hub 0 joined to
// Leaves leaves, plus Extra random edges among the leaves (each closing a
// triangle with the hub). It exercises the paths of kernels meant for lists
// longer than shared memory (the fuzzer wants a hub above 4096).
// Deterministic per Seed: the leaf edges are ErdosRenyi{Leaves, Extra, Seed}
// shifted by one.
type Hub struct {
	Leaves, Extra uint64
	Seed          uint64
}

// EdgeList returns the hub's spokes, then the leaf edges.
func (p Hub) EdgeList() (*EdgeList, error) {
	if p.Leaves == 0 {
		return nil, fmt.Errorf("hub: at least one leaf")
	}
	leaf, err := ErdosRenyi{N: p.Leaves, M: p.Extra, Seed: p.Seed}.EdgeList()
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	el := &EdgeList{}
	for i := uint64(1); i <= p.Leaves; i++ {
		el.Add(0, i)
	}
	for i := range leaf.Len() {
		u, v := leaf.At(i)
		el.Add(u+1, v+1)
	}
	return el, nil
}
