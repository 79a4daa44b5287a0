package executor

import "github.com/tcgen/tcgen/gen"

// The fields of gen.Class that tell the families apart and that only one
// family reads, read here alone: when the manifest names a class's family
// directly, these helpers are what changes.

// familyOf returns the family that runs class c (family.go).
func familyOf(c gen.Class) familyID {
	switch {
	case c.Bitwise != nil:
		return famBitwise
	case c.Pivot:
		return famPivot
	case len(c.Phases) > 0:
		return famWedgeRadix
	case c.Rows != nil:
		return famEdgeBitmap
	}
	return famSingle
}

// isPivot reports whether c is a pivot class (its items built on the
// device).
func isPivot(c gen.Class) bool { return c.Pivot }

// pivotSpillWords is the u32 words of global table per group of a
// spill-global pivot class (0 otherwise).
func pivotSpillWords(c gen.Class) int { return c.SpillWords }

// radixPhases are the kernels of a wedge/radix class, one per phase.
func radixPhases(c gen.Class) []gen.Helper { return c.Phases }

// bitwiseSet is the index in gen.Manifest.Slices of the slice set a bitwise
// class reads.
func bitwiseSet(c gen.Class) int { return c.Bitwise.Set }

// denseRows is the kernel writing a dense class's rows.
func denseRows(c gen.Class) *gen.Helper { return c.Rows }
