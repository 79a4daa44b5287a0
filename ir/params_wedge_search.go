package ir

import "fmt"

// squareMatrixMax is the most ids a square bit matrix holds: 32 MiB, what
// the host builds and uploads for every count.
const squareMatrixMax = 16384

// wedgeSearchProblem says why a wedge/binary-search strategy's parameters
// do not go together, or "": the upper-triangle layout is a layout of the
// bit matrix, so it needs one, and a matrix above squareMatrixMax ids needs
// it.
func wedgeSearchProblem(s Strategy) string {
	if s.Iterator != IterWedge || s.Intersection != BinarySearch {
		return ""
	}
	m, upper := Get(s, ParamMatrix), Get(s, ParamMatrixUpper) == 1
	switch {
	case upper && m == 0:
		return "matrix_upper lays out the bit matrix, and matrix is 0 (no matrix); set matrix or drop matrix_upper"
	case !upper && m > squareMatrixMax:
		return fmt.Sprintf("a square matrix of %d ids takes %d MiB; above %d ids the matrix needs matrix_upper (about half of it)", m, m*m/8>>20, squareMatrixMax)
	}
	return ""
}
