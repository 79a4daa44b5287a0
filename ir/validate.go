package ir

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Graph-level features a Guard may test. They are measured on the cleaned,
// oriented graph (out-degrees after orientation).
const (
	FeatureAvgOutDeg = "avg_outdeg" // oriented edges / vertices (Bisson)
	FeatureAvgDegree = "avg_degree" // 2 * edges / vertices
	FeatureMaxDegree = "max_degree"
	FeatureMaxOutDeg = "max_outdeg"
	FeatureVertices  = "vertices"
	FeatureEdges     = "edges"
	FeatureDegreeCV  = "degree_cv"           // stddev / mean of the undirected degree
	FeatureWedges    = "wedges_per_edge"     // sum C(d+(u), 2) / edges, oriented
	FeatureWords     = "words_per_neighbour" // 32-id words of the input's lists / 2 edges
	FeatureDRAM      = "dram_gbps"           // the GPU's DRAM bandwidth, GB/s (0: unknown)
)

// Features lists the guard features with what each measures.
var Features = []struct{ Name, Doc string }{
	{FeatureAvgOutDeg, "average out-degree after orientation: edges / vertices (Bisson's switch, comparative study §III-C)"},
	{FeatureAvgDegree, "average undirected degree: 2 * edges / vertices"},
	{FeatureMaxDegree, "largest undirected degree"},
	{FeatureMaxOutDeg, "largest out-degree after orientation"},
	{FeatureVertices, "vertices of the cleaned graph"},
	{FeatureEdges, "undirected edges of the cleaned graph"},
	{FeatureWedges, "oriented wedges per edge, sum of C(d+(u), 2) over the vertices / edges: a merge's work per edge grows with it; Graph500 RMAT has 50 and more, uniform, mesh and preferential-attachment graphs a few"},
	{FeatureWords, "locality of the input's ids, before any orientation: the 32-id words (id / 32) the neighbour lists touch, over 2 * edges; 1/32 for runs of consecutive ids (grids, geometric and small-world graphs in generation order), near 1 for random ids. Bit-wise intersections (TCBW) pay per word"},
	{FeatureDegreeCV, "coefficient of variation of the undirected degree, stddev / mean: near 0 for even lists (grids, meshes, uniform random graphs), 1 and above for power-law graphs"},
	{FeatureDRAM, "the GPU's nominal DRAM bandwidth in GB/s, memory clock x bus width (3352 on an H100 SXM, 4814 on an H200), not the graph's: a design that trades more, shorter loads for occupancy wins where bandwidth is ample; 0 where the GPU reports no memory clock, which so takes the variants of the slowest GPUs; tcgen stats, which runs no GPU, uses its --dram-tbps (4270 by default)"},
}

func knownFeature(f string) bool {
	for _, x := range Features {
		if x.Name == f {
			return true
		}
	}
	return false
}

// WorkModel is how the work key estimates an edge item's cost.
type WorkModel string

const (
	// WorkMerge: d+u + d+v (a linear pass over both lists).
	WorkMerge WorkModel = "merge"
	// WorkSearch: min(d+u, d+v) * ceil(log2(max(d+u, d+v)+1)) (Fox).
	WorkSearch WorkModel = "search"
)

// WorkOf returns the work model of an intersection: merge-like passes
// (merge, merge-path, bitwise) cost the sum of the lengths, probes of an
// index (binary search, hash, bitmap, radix) cost min * log(max).
func WorkOf(is Intersection) WorkModel {
	switch is {
	case Merge, MergePath, Bitwise:
		return WorkMerge
	}
	return WorkSearch
}

// WorkModelOf returns the work model of a class list keyed by work: that of
// its first non-skip class (Validate makes them agree). Empty when the list
// is not keyed by work.
func WorkModelOf(classes []Class) WorkModel {
	for _, c := range classes {
		if c.Select.Key != KeyWork {
			return ""
		}
		if !c.Skip {
			return WorkOf(c.Intersection)
		}
	}
	return ""
}

var prefixRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Validate checks the plan and returns every problem found, joined
// (errors.Join); each message names the class and says what is allowed.
func (p Plan) Validate() error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if !prefixRE.MatchString(p.Prefix) {
		add("prefix %q must start with a lowercase letter and hold only a-z, 0-9 and _ (it names files and CUDA symbols)", p.Prefix)
	}
	if !utf8.ValidString(p.Doc) {
		add("doc is not valid UTF-8")
	}
	if p.Orientation != "" && !slices.Contains(Orientations, p.Orientation) {
		add("orientation %q unknown; known: %s", p.Orientation, joinEnum(Orientations))
	}

	switch {
	case p.Guard != nil && len(p.Classes) > 0:
		add("plan has both classes and a guard; put the classes under the guard's variants")
	case p.Guard == nil && len(p.Classes) == 0:
		add("plan has no classes (and no guard)")
	case p.Guard != nil:
		errs = append(errs, p.Guard.validate()...)
		errs = append(errs, p.variantOrientationProblems()...)
		if p.Core != 0 {
			add("plan has a guard and a core; a core belongs to a class list: set it on the guard's variants")
		}
	default:
		errs = append(errs, validateClasses(p.Classes, "")...)
		errs = append(errs, coreProblems(p.Core, p.Classes, "")...) // ir/params_pivot_hash.go
	}
	if p.HasPivot() && p.Orientation != OrientID && !p.Relabel {
		// The tail of N+(u) after v is found by position: lists sorted by id
		// must be sorted in the orientation's order too.
		add("pivot classes need ids in the orientation's order: set relabel: true (or orientation id)")
	}
	errs = append(errs, p.outputProblems()...) // ir/output.go
	return errors.Join(errs...)
}

// variantOrientationProblems checks the guard variants' own orientations:
// known ones, and only in a relabelling plan, whose kernels take ids in the
// order of whichever orientation the graph was oriented by (an id-ordered
// plan's kernels assume the id order).
func (p Plan) variantOrientationProblems() []error {
	var errs []error
	c := p.Canonical()
	for i, v := range p.Guard.Variants {
		switch {
		case v.Orientation == "" || v.Orientation == c.Orientation:
		case !slices.Contains(Orientations, v.Orientation):
			errs = append(errs, fmt.Errorf("guard variant %d: orientation %q unknown; known: %s", i, v.Orientation, joinEnum(Orientations)))
		case c.Orientation == OrientID:
			errs = append(errs, fmt.Errorf("guard variant %d: an orientation of its own (%s) needs a relabelling plan; a plan oriented by id takes ids as they are (relabel changes nothing there)", i, v.Orientation))
		case !c.Relabel:
			errs = append(errs, fmt.Errorf("guard variant %d: an orientation of its own (%s) needs relabel: true on the plan (its kernels then take ids in the variant's order)", i, v.Orientation))
		}
	}
	return errs
}

func (g *Guard) validate() []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if !knownFeature(g.Feature) {
		add("guard feature %q unknown; known: %s", g.Feature, featureNames())
	}
	if len(g.Variants) == 0 {
		add("guard has no variants")
		return errs
	}
	for i, v := range g.Variants {
		where := fmt.Sprintf("guard variant %d [%s)", i, floatRange(v.Lo, v.Hi))
		errs = append(errs, condProblems(v.When, where)...)
		if !finite(v.Lo) || !finite(v.Hi) {
			add("%s: lo and hi must be finite numbers (leave hi out for unbounded)", where)
			continue
		}
		// A variant with conditions shares its range with the next one.
		shared := i > 0 && len(g.Variants[i-1].When) > 0
		switch {
		case shared && (v.Lo != g.Variants[i-1].Lo || v.Hi != g.Variants[i-1].Hi):
			add("%s: variant %d before it has conditions (when), so this one must cover the same range [%s) and take what they leave", where, i-1, floatRange(g.Variants[i-1].Lo, g.Variants[i-1].Hi))
		case shared:
		case i == 0 && v.Lo != 0:
			add("%s: the first variant must start at 0, got %g", where, v.Lo)
		case i > 0 && g.Variants[i-1].Hi == 0:
			add("%s: variant %d before it is already unbounded; only the last variant may leave hi out", where, i-1)
		case i > 0 && v.Lo != g.Variants[i-1].Hi:
			prev := g.Variants[i-1].Hi
			if v.Lo > prev {
				add("%s: gap [%g, %g) of %s is not covered; lo must equal the previous variant's hi (%g)", where, prev, v.Lo, g.Feature, prev)
			} else {
				add("%s: overlaps the previous variant; lo must equal its hi (%g)", where, prev)
			}
		}
		if v.Hi != 0 && v.Hi <= v.Lo {
			add("%s: hi must be greater than lo (or left out for unbounded)", where)
		}
		if v.Lo < 0 {
			add("%s: lo must be >= 0", where)
		}
		if i == len(g.Variants)-1 && v.Hi != 0 {
			add("%s: the last variant must be unbounded (leave hi out) so every graph gets a class list", where)
		}
		if i == len(g.Variants)-1 && len(v.When) > 0 {
			add("%s: the last variant must have no conditions (when) so every graph gets a class list", where)
		}
		if len(v.Classes) == 0 {
			add("%s: no classes", where)
			continue
		}
		errs = append(errs, validateClasses(v.Classes, where+": ")...)
		errs = append(errs, coreProblems(v.Core, v.Classes, where+": ")...) // ir/params_pivot_hash.go
	}
	return errs
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// featureNames lists the guard features, comma-separated.
func featureNames() string {
	names := make([]string, len(Features))
	for i, f := range Features {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// residentThreads is the most threads an SM of compute 8.0 and 9.0 holds.
const residentThreads = 2048

// condProblems checks a variant's further conditions.
func condProblems(when []Cond, where string) []error {
	var errs []error
	for j, c := range when {
		at := fmt.Sprintf("%s: when[%d] %s", where, j, c.Feature)
		switch {
		case !knownFeature(c.Feature):
			errs = append(errs, fmt.Errorf("%s: unknown feature; known: %s", at, featureNames()))
		case !finite(c.Lo) || !finite(c.Hi):
			errs = append(errs, fmt.Errorf("%s: lo and hi must be finite numbers (leave hi out for unbounded)", at))
		case c.Lo < 0:
			errs = append(errs, fmt.Errorf("%s: lo must be >= 0", at))
		case c.Hi != 0 && c.Hi <= c.Lo:
			errs = append(errs, fmt.Errorf("%s: hi must be greater than lo (or left out for unbounded)", at))
		case c.Lo == 0 && c.Hi == 0:
			errs = append(errs, fmt.Errorf("%s: holds for every graph; give lo or hi", at))
		}
	}
	return errs
}

func floatRange(lo, hi float64) string {
	if hi == 0 {
		return fmt.Sprintf("%g, inf", lo)
	}
	return fmt.Sprintf("%g, %g", lo, hi)
}

func intRange(lo, hi int64) string {
	if hi == 0 {
		return fmt.Sprintf("%d, inf", lo)
	}
	return fmt.Sprintf("%d, %d", lo, hi)
}

func joinEnum[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	return strings.Join(s, ", ")
}

// className is how messages name a class: its name, or its position.
func className(c Class, i int) string {
	if c.Name != "" {
		return fmt.Sprintf("class %q", c.Name)
	}
	return fmt.Sprintf("class %d", i)
}

func validateClasses(cs []Class, ctx string) []error {
	var errs []error
	names := map[string]int{}
	for i, c := range cs {
		who := ctx + className(c, i)
		add := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf(who+": "+format, args...))
		}
		if c.Name != "" {
			if !classNameRE.MatchString(c.Name) {
				add("name must hold only a-z, 0-9 and _ (it becomes part of a CUDA symbol)")
			}
			if j, dup := names[c.Name]; dup {
				add("name already used by class %d", j)
			}
			names[c.Name] = i
		}
		sel := c.Select
		if !slices.Contains(Keys, sel.Key) {
			add("selector key %q unknown; known: %s", sel.Key, joinEnum(Keys))
		}
		if i > 0 && sel.Key != cs[0].Select.Key {
			add("selector key %q differs from the first class's %q; one list ranges over one key", sel.Key, cs[0].Select.Key)
		}
		// Coverage of [0, inf), matched in order.
		switch {
		case sel.Lo < 0:
			add("selector lo must be >= 0, got %d", sel.Lo)
		case i == 0 && sel.Lo != 0:
			add("selector [%s) must start at 0: items with %s below %d would match no class", intRange(sel.Lo, sel.Hi), sel.Key, sel.Lo)
		case i > 0 && cs[i-1].Select.Hi == 0:
			add("selector [%s) is unreachable: the class before it is already unbounded", intRange(sel.Lo, sel.Hi))
		case i > 0 && sel.Lo > cs[i-1].Select.Hi:
			add("selector [%s) leaves a gap [%d, %d) after the previous class; lo must equal its hi", intRange(sel.Lo, sel.Hi), cs[i-1].Select.Hi, sel.Lo)
		case i > 0 && sel.Lo < cs[i-1].Select.Hi:
			add("selector [%s) overlaps the previous class, which ends at %d; lo must equal its hi", intRange(sel.Lo, sel.Hi), cs[i-1].Select.Hi)
		}
		if sel.Hi != 0 && sel.Hi <= sel.Lo {
			add("selector [%s) is empty: hi must be greater than lo (or left out for unbounded)", intRange(sel.Lo, sel.Hi))
		}
		if i == len(cs)-1 && sel.Hi != 0 {
			add("selector [%s) must be unbounded (leave hi out): items with %s >= %d would match no class", intRange(sel.Lo, sel.Hi), sel.Key, sel.Hi)
		}

		if c.Skip {
			// Any triangle is counted at its lowest vertex u, which needs two
			// out-neighbours; so items keyed by d+(u) < 2 hold none.
			if sel.Key != KeyOutDegree || sel.Hi == 0 || sel.Hi > 2 {
				add("skip is allowed only on out-degree ranges ending at or below 2 (items with d+(u) < 2 hold no triangle), got %s [%s)", sel.Key, intRange(sel.Lo, sel.Hi))
			}
			st := c.Strategy
			if st.Iterator != "" || st.Intersection != "" || st.Width != 0 || st.Block != 0 || len(st.Params) > 0 {
				add("a skip class runs no kernel: remove its iterator, intersection, width, block and params")
			}
			continue
		}
		errs = append(errs, validateStrategy(c.Strategy, sel.Key, who)...)
	}
	errs = append(errs, pivotProblems(cs, ctx)...) // ir/params_pivot_hash.go
	// A work-keyed list needs one estimate for all its classes.
	if len(cs) > 0 && cs[0].Select.Key == KeyWork {
		model := WorkModelOf(cs)
		for i, c := range cs {
			if !c.Skip && c.Pair().Valid() && WorkOf(c.Intersection) != model {
				errs = append(errs, fmt.Errorf("%s%s: intersection %s estimates work as %s, but the list's first class uses %s; a work-keyed list needs one estimate",
					ctx, className(c, i), c.Intersection, WorkOf(c.Intersection), model))
			}
		}
	}
	return errs
}

var classNameRE = regexp.MustCompile(`^[a-z0-9_]+$`)

// PairError says why a strategy of iterator it and intersection is is
// refused: an unknown name, a pair the IR does not accept, or one tcgen
// does not generate yet (pairProblem); nil when it is generated.
func PairError(it Iterator, is Intersection) error {
	var msgs []string
	okIt, okIs := slices.Contains(Iterators, it), slices.Contains(Intersections, is)
	if !okIt {
		msgs = append(msgs, fmt.Sprintf("iterator %q unknown; known: %s", it, joinEnum(Iterators)))
	}
	if !okIs {
		msgs = append(msgs, fmt.Sprintf("intersection %q unknown; known: %s", is, joinEnum(Intersections)))
	}
	if okIt && okIs {
		if msg := pairProblem(Pair{it, is}); msg != "" { // pairs.go
			msgs = append(msgs, msg)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "; "))
}

func validateStrategy(s Strategy, key Key, who string) []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(who+": "+format, args...))
	}
	okIt := slices.Contains(Iterators, s.Iterator)
	okIs := slices.Contains(Intersections, s.Intersection)
	if err := PairError(s.Iterator, s.Intersection); err != nil {
		add("%v", err)
	}
	pairOK := okIt && okIs && s.Pair().Valid()
	if key == KeyWork && okIt && s.Iterator != IterEdge && s.Iterator != IterEdgeChunk {
		add("selector key work estimates the cost of an edge; the %s iterator needs key outdeg", s.Iterator)
	}

	w, b := s.EffectiveWidth(), s.EffectiveBlock()
	widthOK := true
	if s.Width < 0 || (w != b && (w > 32 || !isPow2(int64(w)))) {
		add("width must be a power of two in 1..32 or equal to block (%d), got %d", b, s.Width)
		widthOK = false
	}
	blockOK := true
	if s.Block < 0 || b < 32 || b > 1024 || b%32 != 0 {
		add("block must be a multiple of 32 in 32..1024, got %d", s.Block)
		blockOK = false
	}
	if widthOK && blockOK && b < w {
		add("block (%d) must be at least width (%d)", b, w)
	}
	if pairOK && widthOK {
		switch {
		case s.Iterator == IterEdgeChunk && w != b:
			add("the edge-chunk iterator gives a whole block to a chunk: width must equal block (%d), got %d", b, w)
		case s.Iterator == IterEdge && s.Intersection == Merge && w != 1:
			add("a merge of one edge is sequential: width must be 1, got %d (use merge-path to share an edge)", w)
		case s.Iterator == IterEdge && s.Intersection == Bitmap && w != 1:
			add("the dense rows of an edge are ANDed by one thread: width must be 1, got %d", w)
		case s.Iterator == IterWedge && s.Intersection == Radix && w != 1:
			add("the radix phases give each thread its own candidate edges: width must be 1, got %d", w)
		case s.Iterator == IterWedge && s.Intersection == BinarySearch && w != 1:
			add("a thread generates its own wedges and checks one at a time: width must be 1, got %d", w)
		case s.Iterator == IterPivot && w > 32 && Get(s, ParamQueue) > 0:
			add("queue: a group's first lane takes the items and shuffles them to its group, so width must be at most 32, got %d", w)
		}
	}

	if !pairOK {
		return errs // parameter names depend on the pair
	}
	specs := ParamsFor(s)
	known := make([]string, len(specs))
	for i, ps := range specs {
		known[i] = ps.Name
	}
	paramsOK := true
	for _, name := range sortedKeys(s.Params) {
		v := s.Params[name]
		ps, ok := Spec(s, name)
		if !ok {
			paramsOK = false
			if name == ParamCore && s.Iterator == IterPivot {
				add("core is set on the class list (the plan, or a guard variant), not on a class")
				continue
			}
			if len(known) == 0 {
				add("unknown parameter %q: %s/%s takes no parameters", name, s.Iterator, s.Intersection)
			} else {
				add("unknown parameter %q for %s/%s; known: %s", name, s.Iterator, s.Intersection, strings.Join(known, ", "))
			}
			continue
		}
		if !ps.Allowed(v) {
			paramsOK = false
			add("%s must be %s, got %d", name, ps.Range(), v)
		}
	}
	if paramsOK && widthOK && blockOK {
		if msg := ctaWidthProblem(s); msg != "" { // ir/params_vertex_hash.go
			add("%s", msg)
		}
		if msg := radixProblem(s); msg != "" { // ir/params_wedge_radix.go
			add("%s", msg)
		}
		if msg := wedgeSearchProblem(s); msg != "" { // ir/params_wedge_search.go
			add("%s", msg)
		}
		if s.Params[ParamAlign] > 0 && (s.Params[ParamTile] <= 1 || s.EffectiveWidth() != 1) {
			add("align needs tile 4 or 8 and width 1 (got tile %d, width %d): it lays the lists out for one thread's tiles", max(s.Params[ParamTile], 1), s.EffectiveWidth())
		}
		if s.Params[ParamTarget] == 1 && s.Params[ParamAlign] == 2 {
			add("target with align both: the copy's N+(u) after v needs u, which target items do not carry; use align on")
		}
		if s.Params[ParamBand] != 0 && (s.Params[ParamTarget] != 1 || s.Params[ParamBand] < 10) {
			add("band %d: bands order target items (needs target: 1) and hold 2^10 positions or more", s.Params[ParamBand])
		}
		if s.Params[ParamCarry] != 0 && (s.Params[ParamTarget] != 1 || s.Params[ParamAlign] != 1 || s.Params[ParamPrefetch] != 0) {
			add("carry %d: target items carry N+(v)'s word of the aligned copy; needs target: 1 and align: 1 and prefetch: 0, which reads the word itself (got target %d, align %d, prefetch %d)", s.Params[ParamCarry], s.Params[ParamTarget], s.Params[ParamAlign], s.Params[ParamPrefetch])
		}
		if p := s.Params[ParamPrefetch]; p != 0 && s.Iterator == IterVertex && s.Params[ParamAlign] != 0 {
			add("prefetch %d: reads the next vertices' bounds from the offsets (needs align: 0)", p)
		} else if p != 0 && s.Iterator != IterVertex && (s.Params[ParamTarget] != 1 || p == 2 && s.Params[ParamAlign] != 1) {
			add("prefetch %d: reads target items ahead (needs target: 1, and prefetch 2 the aligned copy, align: 1)", p)
		}
		if mb := s.Params[ParamMinBlocks]; mb*int64(s.EffectiveBlock()) > residentThreads {
			add("min_blocks %d of %d threads is %d threads per SM, more than the %d an SM holds (the compiler would ignore it)", mb, s.EffectiveBlock(), mb*int64(s.EffectiveBlock()), residentThreads)
		}
		if msg := sharedProblem(s); msg != "" {
			add("%s", msg)
		}
	}
	return errs
}

// sharedProblem says why the strategy's shared memory exceeds what a block
// may declare beside the count's reduction; "" when it fits.
func sharedProblem(s Strategy) string {
	sh, limit := s.SharedBytes(), int64(SharedLimit-ReduceSharedBytes)
	switch {
	case sh <= limit:
		return ""
	case s.Iterator == IterWedge && s.Intersection == BinarySearch:
		return fmt.Sprintf("block %d x spread %d wedges need %d bytes of shared memory, more than the %d a block may declare beside the count's reduction; lower the spread or the block",
			s.EffectiveBlock(), Get(s, ParamSpread), sh, limit)
	}
	return fmt.Sprintf("parameters need %d bytes of shared memory per block (%d items per block), more than the %d a block may declare beside the count's reduction; lower them or the items per block", sh, s.ItemsPerBlock(), limit)
}

func sortedKeys(m map[string]int64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
