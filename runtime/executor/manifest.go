package executor

import "github.com/tcgen/tcgen/gen"

// The manifest names each class's family (gen.Class.Kind) and carries the
// part only that family reads; these helpers are the executor's one reading
// of them.

// familyOf returns the family that runs class c (family.go).
func familyOf(c gen.Class) familyID {
	switch c.Kind {
	case gen.KindBitwise:
		return famBitwise
	case gen.KindPivot:
		return famPivot
	case gen.KindRadix:
		return famWedgeRadix
	case gen.KindWedge:
		return famWedgeSearch
	case gen.KindDense:
		return famEdgeBitmap
	case gen.KindAligned:
		return famAligned
	}
	return famSingle
}

// isPivot reports whether c is a pivot class (its items built on the
// device).
func isPivot(c gen.Class) bool { return c.Kind == gen.KindPivot }

// pivotSpillWords is the u32 words of global table per group of a
// spill-global pivot class (0 otherwise).
func pivotSpillWords(c gen.Class) int {
	if c.Pivot == nil {
		return 0
	}
	return c.Pivot.SpillWords
}

// radixPhases are the kernels of a wedge/radix class, one per phase.
func radixPhases(c gen.Class) []gen.Helper {
	if c.Radix == nil {
		return nil
	}
	return c.Radix.Phases
}

// bitwiseSet is the index in gen.Manifest.Slices of the slice set a bitwise
// class reads.
func bitwiseSet(c gen.Class) int { return c.Bitwise.Set }

// denseRows is the kernel writing a dense class's rows.
func denseRows(c gen.Class) *gen.Helper {
	if c.Dense == nil {
		return nil
	}
	return &c.Dense.Rows
}
