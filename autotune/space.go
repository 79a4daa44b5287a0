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
	// Output is what every plan of the space counts (ir.Plan.Output; the
	// total when left out): a space with output vertex or edge tunes the
	// local variants, and culls the pairs that cannot count it. One value,
	// not an axis: a plan tuned for the total says nothing of its variant.
	Output ir.Output `yaml:"output,omitempty"`
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
		if err := ir.PairError(st.Iterator, st.Intersection); err != nil {
			return fmt.Errorf("strategies[%d] (%s): %w", i, st.Name, err)
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
