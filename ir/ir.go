// Package ir describes a triangle-counting kernel as a point in a design
// space: how work is iterated, how two neighbour lists are intersected, how
// many threads share an item, and the thresholds in between. A Plan is
// generated into CUDA by package gen; presets are named Plans, spec files are
// Plans a user wrote (YAML or JSON).
//
// The IR imports nothing of tcgen.
package ir

// Iterator is the unit of work a class hands to its threads.
type Iterator string

const (
	// IterVertex: a vertex u; N+(u) is intersected with N+(v) for each v in
	// N+(u), and a structure built from N+(u) (hash, bitmap) is reused.
	IterVertex Iterator = "vertex"
	// IterEdge: one oriented edge (u,v); N+(u) is intersected with N+(v).
	IterEdge Iterator = "edge"
	// IterEdgeChunk: n consecutive oriented edges handled by one block
	// (GroupTC).
	IterEdgeChunk Iterator = "edge-chunk"
	// IterWedge: a pair v,w in N+(u), closed if (v,w) is an edge.
	IterWedge Iterator = "wedge"
	// IterPivot: a vertex v as the middle vertex of its triangles u < v < w.
	// N+(v) goes into a table; for each in-edge (u,v), the part of N+(u)
	// after v probes it (ir/params_pivot_hash.go). The lists built on the
	// device group in-edges by v, so the probes are exactly the wedges.
	IterPivot Iterator = "pivot"
)

// Intersection is how two sorted neighbour lists are intersected.
type Intersection string

const (
	Merge        Intersection = "merge"
	MergePath    Intersection = "merge-path"
	BinarySearch Intersection = "binary-search"
	Hash         Intersection = "hash"
	Bitmap       Intersection = "bitmap"
	Bitwise      Intersection = "bitwise"
	Radix        Intersection = "radix"
)

// Orientation is the total order that keeps each undirected edge once.
type Orientation string

const (
	OrientDegree Orientation = "degree" // by (degree, id)
	OrientID     Orientation = "id"     // by id
	OrientTCBW   Orientation = "tcbw"   // TCBW's balancing: non-center before center, then id
)

// Key is what a class selector ranges over.
type Key string

const (
	// KeyOutDegree: d+ of the item's first vertex (u for vertex and edge
	// items).
	KeyOutDegree Key = "outdeg"
	// KeyWork: estimated work of an edge item: merge d+u + d+v; search or
	// hash min * ceil(log2(max+1)) (Fox).
	KeyWork Key = "work"
)

// Selector is the half-open range [Lo, Hi) of Key that a class takes.
// Hi == 0 means unbounded.
type Selector struct {
	Key Key   `yaml:"key" json:"key"`
	Lo  int64 `yaml:"lo" json:"lo" range:"0.."`
	Hi  int64 `yaml:"hi,omitempty" json:"hi,omitempty" range:"1.."`
}

// Strategy is how one class's items are processed.
type Strategy struct {
	Iterator     Iterator     `yaml:"iterator,omitempty" json:"iterator,omitempty"`
	Intersection Intersection `yaml:"intersection,omitempty" json:"intersection,omitempty"`
	// Width is the number of threads that share one item: 1, 2, 4, ..., 32
	// (a group within a warp), or equal to Block (a whole block per item).
	// 0 (left out of a spec) means DefaultWidth.
	Width int `yaml:"width,omitempty" json:"width,omitempty" range:"1..1024"`
	// Block is the number of threads per CUDA block; 0 means DefaultBlock.
	Block int `yaml:"block,omitempty" json:"block,omitempty" range:"32..1024"`
	// Params holds the strategy's tunables by name (buckets, slots, levels,
	// chunk, ...). Which names apply, their ranges and defaults are declared
	// in the pair table (pairs.go); missing ones take their default.
	Params map[string]int64 `yaml:"params,omitempty" json:"params,omitempty"`
}

// Class is a selector and a strategy. Classes are matched in order.
type Class struct {
	Name   string   `yaml:"name,omitempty" json:"name,omitempty"`
	Select Selector `yaml:"select" json:"select"`
	// Skip marks items that provably hold no triangle (vertex items with
	// d+(u) < 2); no kernel is generated for them.
	Skip     bool `yaml:"skip,omitempty" json:"skip,omitempty"`
	Strategy `yaml:",inline"`
}

// Variant is one alternative class list of a Guard, taken when the guard's
// feature lies in [Lo, Hi) (Hi == 0: unbounded) and every condition of When
// holds. Variants are tried in order: one with conditions shares its range
// with the variants after it, the last of which has none and takes the rest.
type Variant struct {
	Lo   float64 `yaml:"lo" json:"lo"`
	Hi   float64 `yaml:"hi,omitempty" json:"hi,omitempty"`
	When []Cond  `yaml:"when,omitempty" json:"when,omitempty"`
	// Core is the variant's core, as Plan.Core is a plan's (CoreSpec).
	Core int `yaml:"core,omitempty" json:"core,omitempty"`
	// Orientation orients the graphs this variant takes, in place of the
	// plan's (TCBW's order keeps the input ids' locality that its bit
	// slices need, where the degree order scatters it); empty: the plan's.
	// Only a relabelling plan may set it: its kernels take ids in whatever
	// order the graph was oriented by.
	Orientation Orientation `yaml:"orientation,omitempty" json:"orientation,omitempty"`
	Classes     []Class     `yaml:"classes" json:"classes"`
}

// Cond is a further condition of a guard variant: the graph feature lies in
// [Lo, Hi) (Hi == 0: unbounded).
type Cond struct {
	Feature string  `yaml:"feature" json:"feature"`
	Lo      float64 `yaml:"lo,omitempty" json:"lo,omitempty"`
	Hi      float64 `yaml:"hi,omitempty" json:"hi,omitempty"`
}

// Holds reports whether x lies in the condition's range.
func (c Cond) Holds(x float64) bool { return x >= c.Lo && (c.Hi == 0 || x < c.Hi) }

// Guard chooses between class lists by a graph-level feature (Bisson picks
// thread, warp or block per vertex by the average out-degree).
type Guard struct {
	Feature  string    `yaml:"feature" json:"feature"`
	Variants []Variant `yaml:"variants" json:"variants"`
}

// Plan is one point of the design space.
type Plan struct {
	// Prefix is the readable part of Name(), e.g. "polak".
	Prefix string `yaml:"prefix" json:"prefix"`
	// Doc says what the plan is and where it comes from; not hashed.
	Doc string `yaml:"doc,omitempty" json:"doc,omitempty"`
	// Orientation orders the vertices; empty means DefaultOrientation.
	Orientation Orientation `yaml:"orientation" json:"orientation"`
	// Relabel renumbers vertices by the orientation's order, for locality.
	Relabel bool `yaml:"relabel,omitempty" json:"relabel,omitempty"`
	// Core belongs to the class list (Classes) when Guard is nil: the core
	// highest ids, whose triangles as middle vertex a bit matrix counts
	// instead of the list's pivot classes (CoreSpec, ir/params_pivot_hash.go).
	// One preparation pass serves all pivot classes of a list, so a list
	// has one core; 0 = none; only a list with a pivot class takes one.
	Core int `yaml:"core,omitempty" json:"core,omitempty"`
	// Classes is the class list when Guard is nil.
	Classes []Class `yaml:"classes,omitempty" json:"classes,omitempty"`
	Guard   *Guard  `yaml:"guard,omitempty" json:"guard,omitempty"`
	// Output is what the kernels count (ir/output.go): total (the default,
	// left out), or also the local counts per vertex or per edge.
	Output Output `yaml:"output,omitempty" json:"output,omitempty"`
}
