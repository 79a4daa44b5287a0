package graph

import (
	"strings"
	"testing"
)

func TestFingerprint(t *testing.T) {
	a, _, err := Read(strings.NewReader("0 1\n1 2\n2 0\n"), "a.txt", ReadOptions{Format: "text"})
	if err != nil {
		t.Fatal(err)
	}
	// The same graph in another order and with duplicates: same content.
	b, _, err := Read(strings.NewReader("2 1\n0 2\n1 0\n0 1\n"), "b.txt", ReadOptions{Format: "text"})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := Read(strings.NewReader("0 1\n1 2\n"), "c.txt", ReadOptions{Format: "text"})
	if err != nil {
		t.Fatal(err)
	}
	fa, fb, fc := Fingerprint(&a.CSR), Fingerprint(&b.CSR), Fingerprint(&c.CSR)
	if fa != fb {
		t.Errorf("same graph, fingerprints %s and %s", fa, fb)
	}
	if fa == fc {
		t.Errorf("different graphs, same fingerprint %s", fa)
	}
	if len(fa) != 24 {
		t.Errorf("fingerprint %q: want 24 hex digits", fa)
	}
	if Fingerprint(&CSR{}) == fa {
		t.Error("the empty graph has a triangle's fingerprint")
	}
}
