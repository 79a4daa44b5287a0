package autotune

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
)

// axis indices of a space's dimensions.
type layout struct {
	plan, orient, relabel, core, classes int
	cuts                                 []int // cut i separates class i and i+1
	strat, width, block                  []int // per class slot
	params                               []map[string]int
	widths, blocks                       []string // union labels, ordered
	paramVals                            map[string][]int64
	paramNames                           []string
}

// Space is a space file expanded: its dimensions and, for every valid point,
// its plan.
type Space struct {
	File  *SpaceFile
	Cands Candidates
	Plans []ir.Plan // Plans[i] is Cands.Points[i]'s plan
	// Labels say what each point is, for people (progress, --dry-run).
	Labels []string
	lay    layout
}

// Expand enumerates the space's points, culls those the IR or the target
// refuses (each with its reason) and those that repeat an earlier point's
// plan, and returns the rest with their plans.
func (s *SpaceFile) Expand(target gen.Target) (*Space, error) {
	sp := &Space{File: s}
	sp.Cands.Name = s.Name
	lay := s.layout(&sp.Cands.Dims)
	sp.lay = lay
	nd := len(sp.Cands.Dims)
	blank := func() Point {
		p := make(Point, nd)
		for i := range p {
			p[i] = -1
		}
		return p
	}
	type raw struct {
		pt   Point
		plan ir.Plan
		err  error
	}
	var raws []raw
	for i, ref := range s.Plans {
		p, err := FixedPlan(ref, s.fsys, s.dir)
		if err != nil {
			return nil, fmt.Errorf("space %s: %w", s.Name, err)
		}
		pt := blank()
		pt[lay.plan] = i
		if s.Output != "" {
			p.Output = s.Output
		}
		raws = append(raws, raw{pt: pt, plan: p})
	}
	if total := s.rawCount(); total > maxRawPoints {
		return nil, fmt.Errorf("space %s: %d combinations before restrictions; at most %d (shorten the lists)", s.Name, total, maxRawPoints)
	}
	for oi, or := range s.Orientation {
		for ri, rl := range s.Relabel {
			for ci, core := range s.Core {
				for ki, k := range s.Classes {
					for _, cuts := range increasing(len(s.Cuts), k-1) {
						s.classPoints(lay, k, 0, nil, func(cls []classChoice) {
							pt := blank()
							if lay.plan >= 0 {
								pt[lay.plan] = -1
							}
							pt[lay.orient], pt[lay.relabel], pt[lay.core], pt[lay.classes] = oi, ri, ci, ki
							for i, c := range cuts {
								pt[lay.cuts[i]] = c
							}
							plan := ir.Plan{Prefix: s.Name, Orientation: or, Relabel: rl, Core: core, Output: s.Output}
							for j, c := range cls {
								pt[lay.strat[j]] = c.strat
								pt[lay.width[j]] = c.width
								pt[lay.block[j]] = c.block
								for name, v := range c.params {
									pt[lay.params[j][name]] = v
								}
								sel := ir.Selector{Key: s.Key}
								if j > 0 {
									sel.Lo = s.Cuts[cuts[j-1]]
								}
								if j < k-1 {
									sel.Hi = s.Cuts[cuts[j]]
								}
								plan.Classes = append(plan.Classes, ir.Class{Name: fmt.Sprintf("c%d", j), Select: sel, Strategy: c.s})
							}
							raws = append(raws, raw{pt: pt, plan: plan, err: c0err(cls)})
						})
					}
				}
			}
		}
	}
	names := make([]string, len(raws))
	plans := make([]ir.Plan, len(raws))
	for k, r := range raws {
		names[k], plans[k] = r.plan.Name(), r.plan
	}
	errs := restrictAll(plans, names, target)
	seen := map[string]int{}
	for k, r := range raws {
		err := r.err
		if err == nil {
			err = errs[k]
		}
		sp.admit(r.pt, r.plan, names[k], err, seen)
	}
	return sp, nil
}

// Refused says why a space has no point left: every point refused, the
// first for its reason; "" while points remain. (sweep --dry-run lists
// every reason.)
func (sp *Space) Refused() string {
	if len(sp.Plans) > 0 {
		return ""
	}
	if len(sp.Cands.Culled) == 0 {
		return fmt.Sprintf("space %s: no point", sp.Cands.Name)
	}
	c := sp.Cands.Culled[0]
	return fmt.Sprintf("space %s: every point is refused, the first (%s) because %s", sp.Cands.Name, c.Label, c.Reason)
}

// admit adds point pt (plan p, named name) to the space, or culls it with
// err or as a repeat of an earlier point's plan (seen: the plans admitted,
// by name).
func (sp *Space) admit(pt Point, p ir.Plan, name string, err error, seen map[string]int) {
	label := sp.label(pt)
	if err != nil {
		sp.Cands.Culled = append(sp.Cands.Culled, Culled{Point: pt, Label: label, Reason: ir.OneLine(err)})
		return
	}
	if j, ok := seen[name]; ok {
		sp.Cands.Culled = append(sp.Cands.Culled, Culled{Point: pt, Label: label, Reason: "the same plan as " + sp.Labels[j]})
		return
	}
	seen[name] = len(sp.Plans)
	sp.Cands.Points = append(sp.Cands.Points, pt)
	sp.Cands.Plans = append(sp.Cands.Plans, name)
	sp.Plans = append(sp.Plans, p)
	sp.Labels = append(sp.Labels, label)
}

// restrictAll is Restrict of every plan, on all cores (generating each
// plan dominates the expansion of a space of thousands of points); a plan
// whose name repeats an earlier one's is not generated again and shares its
// answer.
func restrictAll(plans []ir.Plan, names []string, target gen.Target) []error {
	errs := make([]error, len(plans))
	first := make(map[string]int, len(plans))
	var todo []int
	for k, n := range names {
		if _, ok := first[n]; !ok {
			first[n] = k
			todo = append(todo, k)
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := int(next.Add(1)) - 1; t < len(todo); t = int(next.Add(1)) - 1 {
				errs[todo[t]] = Restrict(plans[todo[t]], target)
			}
		}()
	}
	wg.Wait()
	for k, n := range names {
		errs[k] = errs[first[n]]
	}
	return errs
}

// Restrict is what a point must pass before anything is compiled: the IR's
// rules, a generator for every pair, and the target's limits (shared memory
// per block, block sizes), which generation checks. count checks a stored
// or predicted plan with it too (it may come from another tcgen version).
func Restrict(p ir.Plan, target gen.Target) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if err := p.CheckGeneratable(); err != nil {
		return err
	}
	_, err := gen.Generate(p, target)
	return err
}

// classChoice is one class slot's strategy and value indices.
type classChoice struct {
	s                   ir.Strategy
	strat, width, block int
	params              map[string]int
	err                 error
}

func c0err(cls []classChoice) error {
	for _, c := range cls {
		if c.err != nil {
			return c.err
		}
	}
	return nil
}

// classPoints calls emit with every choice of strategy, width, block and
// parameters for class slots j..k-1 (prefix holds slots 0..j-1).
func (s *SpaceFile) classPoints(lay layout, k, j int, prefix []classChoice, emit func([]classChoice)) {
	if j == k {
		emit(prefix)
		return
	}
	for si, st := range s.Strategies {
		for _, w := range st.Width {
			for _, b := range st.Block {
				names := slices.Sorted(func(yield func(string) bool) {
					for n := range st.Params {
						if !yield(n) {
							return
						}
					}
				})
				var rec func(pi int, params map[string]int64)
				rec = func(pi int, params map[string]int64) {
					if pi == len(names) {
						wv, err := widthValue(w, b)
						c := classChoice{
							s: ir.Strategy{Iterator: st.Iterator, Intersection: st.Intersection, Width: wv, Block: b,
								Params: mapsClone(params)},
							strat: si, width: slices.Index(lay.widths, w), block: slices.Index(lay.blocks, strconv.Itoa(b)),
							params: map[string]int{}, err: err,
						}
						for n, v := range params {
							c.params[n] = slices.Index(lay.paramVals[n], v)
						}
						s.classPoints(lay, k, j+1, append(slices.Clone(prefix), c), emit)
						return
					}
					for _, v := range st.Params[names[pi]] {
						params[names[pi]] = v
						rec(pi+1, params)
					}
					delete(params, names[pi])
				}
				rec(0, map[string]int64{})
			}
		}
	}
}

func mapsClone(m map[string]int64) map[string]int64 {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// rawCount is the number of combinations before restrictions.
func (s *SpaceFile) rawCount() int {
	per := 0
	for _, st := range s.Strategies {
		n := len(st.Width) * len(st.Block)
		for _, vs := range st.Params {
			n *= len(vs)
		}
		per += n
	}
	total := len(s.Plans)
	for _, k := range s.Classes {
		n := binom(len(s.Cuts), k-1)
		for range k {
			n *= per
			if n > maxRawPoints {
				return maxRawPoints + 1
			}
		}
		total += n * len(s.Orientation) * len(s.Relabel) * len(s.Core)
	}
	return total
}

func binom(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	r := 1
	for i := range k {
		r = r * (n - i) / (i + 1)
		if r > maxRawPoints { // enough to refuse the space; no overflow
			return maxRawPoints + 1
		}
	}
	return r
}

// increasing returns every strictly increasing choice of k indices in 0..n-1.
func increasing(n, k int) [][]int {
	var out [][]int
	var rec func(start int, cur []int)
	rec = func(start int, cur []int) {
		if len(cur) == k {
			out = append(out, slices.Clone(cur))
			return
		}
		for i := start; i < n; i++ {
			rec(i+1, append(cur, i))
		}
	}
	rec(0, nil)
	return out
}

// layout builds the dimensions: fixed plan, orientation, relabel, core,
// class count, cuts, then per class slot its strategy, width, block and every
// parameter any strategy declares (ordered by value).
func (s *SpaceFile) layout(dims *[]Dim) layout {
	add := func(d Dim) int { *dims = append(*dims, d); return len(*dims) - 1 }
	lay := layout{plan: -1, paramVals: map[string][]int64{}}
	if len(s.Plans) > 0 {
		lay.plan = add(Dim{Name: "plan", Values: slices.Clone(s.Plans)})
	}
	var ors, rs, ks []string
	for _, o := range s.Orientation {
		ors = append(ors, string(o))
	}
	for _, r := range s.Relabel {
		rs = append(rs, strconv.FormatBool(r))
	}
	for _, k := range s.Classes {
		ks = append(ks, strconv.Itoa(k))
	}
	// A generated plan's axes hang under the plan axis (-1 there) when the
	// space has fixed plans too.
	root := ""
	if lay.plan >= 0 {
		root = "plan"
	}
	lay.orient = add(Dim{Name: "orientation", Values: ors, Parent: root})
	lay.relabel = add(Dim{Name: "relabel", Values: rs, Parent: root})
	var cs []string
	for _, c := range s.Core {
		cs = append(cs, strconv.Itoa(c))
	}
	lay.core = add(Dim{Name: "core", Values: cs, Ordered: true, Parent: root})
	lay.classes = add(Dim{Name: "classes", Values: ks, Ordered: true, Parent: root})
	var cuts []string
	for _, c := range s.Cuts {
		cuts = append(cuts, strconv.FormatInt(c, 10))
	}
	kmax := s.Classes[len(s.Classes)-1]
	for i := range kmax - 1 {
		lay.cuts = append(lay.cuts, add(Dim{Name: fmt.Sprintf("cut%d", i+1), Values: cuts, Ordered: true, Parent: "classes"}))
	}
	var widths []int
	wBlock := false
	var blocks []int
	for _, st := range s.Strategies {
		for _, w := range st.Width {
			if w == "block" {
				wBlock = true
			} else if n, err := strconv.Atoi(w); err == nil && !slices.Contains(widths, n) {
				widths = append(widths, n)
			}
		}
		for _, b := range st.Block {
			if !slices.Contains(blocks, b) {
				blocks = append(blocks, b)
			}
		}
		for n, vs := range st.Params {
			for _, v := range vs {
				if !slices.Contains(lay.paramVals[n], v) {
					lay.paramVals[n] = append(lay.paramVals[n], v)
				}
			}
		}
	}
	slices.Sort(widths)
	slices.Sort(blocks)
	for _, w := range widths {
		lay.widths = append(lay.widths, strconv.Itoa(w))
	}
	if wBlock {
		lay.widths = append(lay.widths, "block")
	}
	for _, b := range blocks {
		lay.blocks = append(lay.blocks, strconv.Itoa(b))
	}
	for n := range lay.paramVals {
		slices.Sort(lay.paramVals[n])
		lay.paramNames = append(lay.paramNames, n)
	}
	slices.Sort(lay.paramNames)
	var strats []string
	for _, st := range s.Strategies {
		strats = append(strats, st.Name)
	}
	if len(strats) == 0 {
		return lay
	}
	for j := range kmax {
		lay.slotDims(j, strats, add)
	}
	return lay
}

// slotDims adds class slot j's axes. A slot's strategy depends on how many
// classes there are (the first slot of one class takes every item, of two
// the light ones); its width, block and parameters on its strategy.
func (lay *layout) slotDims(j int, strats []string, add func(Dim) int) {
	c := fmt.Sprintf("c%d.", j)
	lay.strat = append(lay.strat, add(Dim{Name: c + "strategy", Values: strats, Parent: "classes"}))
	lay.width = append(lay.width, add(Dim{Name: c + "width", Values: lay.widths, Ordered: true, Parent: c + "strategy"}))
	lay.block = append(lay.block, add(Dim{Name: c + "block", Values: lay.blocks, Ordered: true, Parent: c + "strategy"}))
	pm := map[string]int{}
	for _, n := range lay.paramNames {
		var vs []string
		for _, v := range lay.paramVals[n] {
			vs = append(vs, strconv.FormatInt(v, 10))
		}
		pm[n] = add(Dim{Name: c + n, Values: vs, Ordered: true, Parent: c + "strategy"})
	}
	lay.params = append(lay.params, pm)
}

// label describes a point for people: "polak" for a fixed plan, else
// "2 classes, cut 16: edge/merge w1 b256 | vertex/hash w32 b256 buckets=64".
func (sp *Space) label(pt Point) string {
	lay, dims := sp.lay, sp.Cands.Dims
	if lay.plan >= 0 && pt[lay.plan] >= 0 {
		return dims[lay.plan].Values[pt[lay.plan]]
	}
	val := func(d int) string {
		if pt[d] < 0 {
			return "-"
		}
		return dims[d].Values[pt[d]]
	}
	var b strings.Builder
	if len(sp.File.Orientation) > 1 || len(sp.File.Relabel) > 1 {
		fmt.Fprintf(&b, "%s relabel=%s ", val(lay.orient), val(lay.relabel))
	}
	k, _ := strconv.Atoi(val(lay.classes))
	if k > 1 {
		var cs []string
		for i := range k - 1 {
			cs = append(cs, val(lay.cuts[i]))
		}
		fmt.Fprintf(&b, "cuts %s: ", strings.Join(cs, ","))
	}
	for j := range k {
		if j > 0 {
			b.WriteString(" | ")
		}
		fmt.Fprintf(&b, "%s w%s b%s", val(lay.strat[j]), val(lay.width[j]), val(lay.block[j]))
		for _, n := range lay.paramNames {
			if d := lay.params[j][n]; pt[d] >= 0 {
				fmt.Fprintf(&b, " %s=%s", n, dims[d].Values[pt[d]])
			}
		}
	}
	if c := val(lay.core); c != "0" { // as when core was a pivot parameter; none keeps the labels of spaces without it
		fmt.Fprintf(&b, " core=%s", c)
	}
	return b.String()
}

// Subset keeps the points keep accepts (replay keeps those a recording
// covers), in order.
func (sp *Space) Subset(keep func(i int) bool) *Space {
	out := &Space{File: sp.File, lay: sp.lay}
	out.Cands = Candidates{Name: sp.Cands.Name, Dims: sp.Cands.Dims, Culled: sp.Cands.Culled}
	for i := range sp.Plans {
		if keep(i) {
			out.Cands.Points = append(out.Cands.Points, sp.Cands.Points[i])
			out.Cands.Plans = append(out.Cands.Plans, sp.Cands.Plans[i])
			out.Plans = append(out.Plans, sp.Plans[i])
			out.Labels = append(out.Labels, sp.Labels[i])
		}
	}
	return out
}

// PlansSpace is a space of given plans (the tuned plans bench adds), one
// point each, culled against target like any space's points.
func PlansSpace(name string, plans []ir.Plan, labels []string, target gen.Target) *Space {
	sp := &Space{File: &SpaceFile{Name: name}}
	sp.Cands = Candidates{Name: name, Dims: []Dim{{Name: "plan", Values: labels}}}
	sp.lay = layout{plan: 0}
	seen := map[string]bool{}
	for i, p := range plans {
		pt := Point{i}
		if err := Restrict(p, target); err != nil {
			sp.Cands.Culled = append(sp.Cands.Culled, Culled{Point: pt, Label: labels[i], Reason: ir.OneLine(err)})
			continue
		}
		if seen[p.Name()] {
			continue
		}
		seen[p.Name()] = true
		sp.Cands.Points = append(sp.Cands.Points, pt)
		sp.Cands.Plans = append(sp.Cands.Plans, p.Name())
		sp.Plans = append(sp.Plans, p)
		sp.Labels = append(sp.Labels, labels[i])
	}
	return sp
}

// With is sp with plans added as fixed points on its plan axis (made when
// sp has none), each culled against target like any point; a plan already
// in sp is not repeated. at[k] is the index of plans[k] in the result, -1
// when culled. A tune adds the plans count would otherwise run this way
// (Options.Baseline), so they are measured and compete like the others.
func (sp *Space) With(plans []ir.Plan, labels []string, target gen.Target) (out *Space, at []int) {
	out = &Space{File: sp.File, lay: sp.lay, Plans: slices.Clone(sp.Plans), Labels: slices.Clone(sp.Labels)}
	out.Cands = Candidates{Name: sp.Cands.Name, Dims: slices.Clone(sp.Cands.Dims), Plans: slices.Clone(sp.Cands.Plans),
		Points: slices.Clone(sp.Cands.Points), Culled: sp.Cands.Culled}
	index := make(map[string]int, len(out.Plans))
	for i, name := range out.Cands.Plans {
		index[name] = i
	}
	for k, p := range plans {
		at = append(at, -1)
		if i, ok := index[p.Name()]; ok {
			at[k] = i
			continue
		}
		if Restrict(p, target) != nil {
			continue
		}
		if out.lay.plan < 0 { // a space of generated points only: a plan axis, -1 on the points so far
			out.lay.plan = len(out.Cands.Dims)
			for d := range out.Cands.Dims {
				if out.Cands.Dims[d].Parent == "" { // the old roots now hang under it
					out.Cands.Dims[d].Parent = "plan"
				}
			}
			out.Cands.Dims = append(out.Cands.Dims, Dim{Name: "plan"})
			for i, pt := range out.Cands.Points {
				out.Cands.Points[i] = append(slices.Clone(pt), -1)
			}
		}
		d := &out.Cands.Dims[out.lay.plan]
		d.Values = append(slices.Clone(d.Values), labels[k])
		pt := make(Point, len(out.Cands.Dims))
		for i := range pt {
			pt[i] = -1
		}
		pt[out.lay.plan] = len(d.Values) - 1
		at[k] = len(out.Plans)
		index[p.Name()] = at[k]
		out.Cands.Points = append(out.Cands.Points, pt)
		out.Cands.Plans = append(out.Cands.Plans, p.Name())
		out.Plans = append(out.Plans, p)
		out.Labels = append(out.Labels, labels[k])
	}
	return out, at
}
