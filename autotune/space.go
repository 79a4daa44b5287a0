package autotune

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
)

// SpaceFile declares a part of the design space to search: every
// combination of its lists that passes the IR's and the target's
// restrictions is a candidate. Lists of numbers are ordered axes (the tuner
// line-searches and bisects them); the rest are categories.
//
//	name: small
//	classes: [1, 2]            # how many classes a plan has
//	cuts: [8, 16, 32, 64]      # class boundaries on key: k classes take k-1 increasing cuts
//	strategies:                # what each class may run
//	  - iterator: edge
//	    intersection: merge
//	    width: [1]
//	    block: [128, 256]
//	  - iterator: vertex
//	    intersection: hash
//	    width: [32, block]
//	    block: [256]
//	    params: {buckets: [32, 64, 128]}
//	core: [0, 4096]            # the class list's core (ir.CoreSpec): plans with a pivot class
//	plans: [preset:polak, spec:../hybrid.yaml]   # fixed plans, tried as they are
type SpaceFile struct {
	Name string `yaml:"name"`
	Doc  string `yaml:"doc,omitempty"`
	// Orientation and Relabel default to [degree] and [true]: the order
	// every fast plan uses (docs/performance.md).
	Orientation []ir.Orientation `yaml:"orientation,omitempty"`
	Relabel     []bool           `yaml:"relabel,omitempty"`
	// Core lists the cores of a generated plan's class list (ir.Plan.Core,
	// default [0]); a core needs a pivot class, so points with a core and
	// none are culled. A space file written when the core was a pivot
	// parameter (a strategy's params: {core: [...]}) has that list lifted
	// here.
	Core []int `yaml:"core,omitempty"`
	// Classes is how many classes a generated plan may have (default [1]).
	Classes []int `yaml:"classes,omitempty"`
	// Key is what the cuts are on (default outdeg).
	Key  ir.Key  `yaml:"key,omitempty"`
	Cuts []int64 `yaml:"cuts,omitempty"`
	// Strategies are the choices for every class.
	Strategies []StrategySpace `yaml:"strategies,omitempty"`
	// Plans are fixed plans: "preset:NAME" or "spec:FILE" (a path relative
	// to the space file).
	Plans []string `yaml:"plans,omitempty"`

	// Where "spec:FILE" paths resolve: the space file's directory, in fsys
	// when it is set (a space embedded in the binary), else on disk.
	fsys fs.FS
	dir  string
}

// StrategySpace is one strategy with the values its width, block and
// parameters may take. Width "block" means a whole block per item.
type StrategySpace struct {
	Name         string             `yaml:"name,omitempty"`
	Iterator     ir.Iterator        `yaml:"iterator"`
	Intersection ir.Intersection    `yaml:"intersection"`
	Width        []string           `yaml:"width,omitempty"`
	Block        []int              `yaml:"block,omitempty"`
	Params       map[string][]int64 `yaml:"params,omitempty"`
}

// maxRawPoints bounds the combinations a space file may declare before its
// restrictions are applied: each one is generated to check the target's
// limits, and the tuner's spaces are hundreds to a few thousand points.
const maxRawPoints = 200000

// LoadSpace reads a space file (YAML).
func LoadSpace(path string) (*SpaceFile, error) { return LoadSpaceFS(nil, path) }

// LoadSpaceFS reads a space file from fsys (the embedded examples; nil: the
// disk); its spec paths resolve in the same place.
func LoadSpaceFS(fsys fs.FS, name string) (*SpaceFile, error) {
	s, dir, err := ir.LoadYAML(fsys, name, (*SpaceFile).check)
	if err != nil {
		return nil, err
	}
	s.fsys, s.dir = fsys, dir
	return s, nil
}

// ParseSpace parses a space file's bytes; name is used in errors.
func ParseSpace(data []byte, name string) (*SpaceFile, error) {
	s, err := ir.ParseYAML(data, name, (*SpaceFile).check)
	if err != nil {
		return nil, err
	}
	s.dir = "."
	return s, nil
}

func (s *SpaceFile) check() error {
	if !nameRE.MatchString(s.Name) {
		return fmt.Errorf("name: %q: a space needs a name of a-z, 0-9 and _ starting with a letter (it prefixes its plans' names, CUDA symbols and files)", s.Name)
	}
	if len(s.Orientation) == 0 {
		s.Orientation = []ir.Orientation{ir.OrientDegree}
	}
	if len(s.Relabel) == 0 {
		s.Relabel = []bool{true}
	}
	if err := s.liftCore(); err != nil {
		return err
	}
	if len(s.Core) == 0 {
		s.Core = []int{0}
	}
	if !strictlyIncreasing(s.Core) {
		return fmt.Errorf("core: %v: strictly increasing values", s.Core)
	}
	if len(s.Classes) == 0 {
		s.Classes = []int{1}
	}
	if s.Key == "" {
		s.Key = ir.KeyOutDegree
	}
	if !strictlyIncreasing(s.Classes) || s.Classes[0] < 1 || s.Classes[len(s.Classes)-1] > 8 {
		return fmt.Errorf("classes: %v: strictly increasing counts in 1..8", s.Classes)
	}
	if !strictlyIncreasing(s.Cuts) || len(s.Cuts) > 0 && s.Cuts[0] <= 0 || len(s.Cuts) > maxCuts {
		return fmt.Errorf("cuts: %v: at most %d strictly increasing positive values", s.Cuts, maxCuts)
	}
	if k := s.Classes[len(s.Classes)-1]; k-1 > len(s.Cuts) {
		return fmt.Errorf("classes: %d classes need %d cuts, the space has %d", k, k-1, len(s.Cuts))
	}
	if len(s.Strategies) == 0 && len(s.Plans) == 0 {
		return errors.New("a space needs strategies or plans")
	}
	for i := range s.Strategies {
		st := &s.Strategies[i]
		if st.Name == "" {
			st.Name = fmt.Sprintf("%s/%s", st.Iterator, st.Intersection)
		}
		if len(st.Width) == 0 {
			st.Width = []string{strconv.Itoa(ir.DefaultWidth)}
		}
		if len(st.Block) == 0 {
			st.Block = []int{ir.DefaultBlock}
		}
		for j, w := range st.Width {
			n, err := widthValue(w, 32)
			if err != nil {
				return fmt.Errorf("strategies[%d] (%s): width %q: %w", i, st.Name, w, err)
			}
			if w != "block" {
				st.Width[j] = strconv.Itoa(n) // "032" and "32" are one axis value
			}
		}
		for name, vs := range st.Params {
			if len(vs) == 0 {
				return fmt.Errorf("strategies[%d] (%s): params.%s: an empty list", i, st.Name, name)
			}
		}
	}
	for _, p := range s.Plans {
		if !strings.HasPrefix(p, "preset:") && !strings.HasPrefix(p, "spec:") {
			return fmt.Errorf("plans: %q: want preset:NAME or spec:FILE", p)
		}
	}
	return nil
}

// liftCore moves the core of old space files, a parameter of pivot
// strategies, to the space's Core axis: the union of the strategies' lists,
// unless Core is given too.
func (s *SpaceFile) liftCore() error {
	var lifted []int
	for i := range s.Strategies {
		st := &s.Strategies[i]
		vs, ok := st.Params[ir.ParamCore]
		if !ok || st.Iterator != ir.IterPivot {
			continue
		}
		if len(s.Core) > 0 {
			return fmt.Errorf("strategies[%d] (%s): params.core: the core is set once, at the space's core (it is a field of the class list)", i, st.Name)
		}
		delete(st.Params, ir.ParamCore)
		for _, v := range vs {
			if !slices.Contains(lifted, int(v)) {
				lifted = append(lifted, int(v))
			}
		}
	}
	slices.Sort(lifted)
	if len(lifted) > 0 {
		s.Core = lifted
	}
	return nil
}

// nameRE is the IR's rule for plan prefixes (ir/validate.go), which a
// space's name becomes.
var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// maxCuts bounds the cut list: the number of cut choices is a binomial
// coefficient of its length.
const maxCuts = 64

func strictlyIncreasing[T int | int64](xs []T) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] <= xs[i-1] {
			return false
		}
	}
	return true
}

// widthValue reads a width label: a number, or "block" for the block size.
func widthValue(w string, block int) (int, error) {
	if w == "block" {
		return block, nil
	}
	n, err := strconv.Atoi(w)
	if err != nil || n < 1 {
		return 0, errors.New(`a positive number or "block"`)
	}
	return n, nil
}

// FixedPlan resolves a "preset:NAME" or "spec:FILE" reference (spec paths
// relative to dir, in fsys when it is not nil).
func FixedPlan(ref string, fsys fs.FS, dir string) (ir.Plan, error) {
	if name, ok := strings.CutPrefix(ref, "preset:"); ok {
		p, ok := ir.Preset(name)
		if !ok {
			return ir.Plan{}, fmt.Errorf("%s: unknown preset (presets: %s)", ref, strings.Join(ir.PresetNames(), ", "))
		}
		return p, nil
	}
	if file, ok := strings.CutPrefix(ref, "spec:"); ok {
		if fsys != nil {
			name := path.Join(dir, file)
			data, err := fs.ReadFile(fsys, name)
			if err != nil {
				return ir.Plan{}, err
			}
			return ir.Parse(data, name)
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		return ir.Load(file)
	}
	return ir.Plan{}, fmt.Errorf("%q: want preset:NAME or spec:FILE", ref)
}

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
							plan := ir.Plan{Prefix: s.Name, Orientation: or, Relabel: rl, Core: core}
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
	seen := map[string]int{}
	for _, r := range raws {
		label := sp.label(r.pt)
		err := r.err
		if err == nil {
			err = Restrict(r.plan, target)
		}
		if err != nil {
			sp.Cands.Culled = append(sp.Cands.Culled, Culled{Point: r.pt, Label: label, Reason: ir.OneLine(err)})
			continue
		}
		name := r.plan.Name()
		if j, ok := seen[name]; ok {
			sp.Cands.Culled = append(sp.Cands.Culled, Culled{Point: r.pt, Label: label, Reason: "the same plan as " + sp.Labels[j]})
			continue
		}
		seen[name] = len(sp.Plans)
		sp.Cands.Points = append(sp.Cands.Points, r.pt)
		sp.Cands.Plans = append(sp.Cands.Plans, name)
		sp.Plans = append(sp.Plans, r.plan)
		sp.Labels = append(sp.Labels, label)
	}
	return sp, nil
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
	lay.orient = add(Dim{Name: "orientation", Values: ors})
	lay.relabel = add(Dim{Name: "relabel", Values: rs})
	var cs []string
	for _, c := range s.Core {
		cs = append(cs, strconv.Itoa(c))
	}
	lay.core = add(Dim{Name: "core", Values: cs, Ordered: true})
	lay.classes = add(Dim{Name: "classes", Values: ks, Ordered: true})
	var cuts []string
	for _, c := range s.Cuts {
		cuts = append(cuts, strconv.FormatInt(c, 10))
	}
	kmax := s.Classes[len(s.Classes)-1]
	for i := range kmax - 1 {
		lay.cuts = append(lay.cuts, add(Dim{Name: fmt.Sprintf("cut%d", i+1), Values: cuts, Ordered: true}))
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
		c := fmt.Sprintf("c%d.", j)
		lay.strat = append(lay.strat, add(Dim{Name: c + "strategy", Values: strats}))
		lay.width = append(lay.width, add(Dim{Name: c + "width", Values: lay.widths, Ordered: true}))
		lay.block = append(lay.block, add(Dim{Name: c + "block", Values: lay.blocks, Ordered: true}))
		pm := map[string]int{}
		for _, n := range lay.paramNames {
			var vs []string
			for _, v := range lay.paramVals[n] {
				vs = append(vs, strconv.FormatInt(v, 10))
			}
			pm[n] = add(Dim{Name: c + n, Values: vs, Ordered: true})
		}
		lay.params = append(lay.params, pm)
	}
	return lay
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

// Checked validates a space declared inside another file (a sweep's
// space_inline), fills its defaults and resolves its spec paths against dir.
func (s *SpaceFile) Checked(fsys fs.FS, dir string) (*SpaceFile, error) {
	c := *s
	if err := c.check(); err != nil {
		return nil, err
	}
	c.fsys, c.dir = fsys, dir
	return &c, nil
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
