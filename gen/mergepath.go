package gen

import "github.com/tcgen/tcgen/ir"

// Green's merge path (comparative study §III-B): the group of WIDTH lanes of
// an item cuts the merge of the two lists at equally spaced diagonals and
// each lane merges its own stretch (templates/isect_mergepath.cu.tmpl). The
// partition needs no shared memory and no synchronisation: every lane finds
// its stretch by a binary search of its own, so any width (1..32 or a whole
// block) and both the edge and the vertex iterator are generated.
func lowerMergePath(cd *classData, _ *Class, _ ir.Strategy, _ Target) {
	cd.isectPartial = "mergepath"
}
