package ir

// wedgeSearchProblem says why a wedge/binary-search strategy's parameters
// do not go together, or "": the upper-triangle layout is a layout of the
// bit matrix, so it needs one.
func wedgeSearchProblem(s Strategy) string {
	if s.Iterator != IterWedge || s.Intersection != BinarySearch {
		return ""
	}
	if Get(s, ParamMatrixUpper) == 1 && Get(s, ParamMatrix) == 0 {
		return "matrix_upper lays out the bit matrix, and matrix is 0 (no matrix); set matrix or drop matrix_upper"
	}
	return ""
}
