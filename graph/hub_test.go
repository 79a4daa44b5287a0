package graph

import "testing"

func TestHub(t *testing.T) {
	g, _, err := Generate(Hub{Leaves: 5000, Extra: 3000, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if d := g.Degree(0); d != 5000 {
		t.Errorf("hub degree %d, want 5000", d)
	}
	// Every leaf edge closes one triangle with the hub, plus the leaf
	// graph's own triangles.
	leaf, _, _ := Generate(ErdosRenyi{N: 5000, M: 3000, Seed: 7})
	if got, want := Oracle(g), 3000+Oracle(leaf); got != want {
		t.Errorf("hub: %d triangles, want %d", got, want)
	}
	if _, err := (Hub{}).EdgeList(); err == nil {
		t.Error("a hub without leaves was accepted")
	}
}
