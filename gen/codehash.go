package gen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
)

// codeHashLen is how many hex digits of the SHA-256 CodeHash keeps: 64 bits
// tell apart every source a store will ever hold, and rows stay readable.
const codeHashLen = 16

// CodeHash identifies what the compiler gets for a plan: the full generated
// source (for a guarded plan it holds every variant's classes, so it changes
// whenever any variant's source does), every header by name, the compile
// options and arch. A measurement stored with it is reused only while the
// current generator produces the same hash for the same plan and target.
func CodeHash(out *Output, arch string) string {
	h := sha256.New()
	// Each part is length-prefixed so no two different inputs concatenate
	// to the same bytes.
	part := func(s string) { fmt.Fprintf(h, "%d:%s;", len(s), s) }
	part(arch)
	part(out.Source)
	names := make([]string, 0, len(out.Headers))
	for name := range out.Headers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		part(name)
		part(out.Headers[name])
	}
	for _, o := range out.Manifest.Options {
		part(o)
	}
	return hex.EncodeToString(h.Sum(nil))[:codeHashLen]
}
