// Package sweep declares design-space explorations: a sweep file names the
// graphs (files, shared datasets by name, generator settings) and the space
// (a space file of package tune, or one inline), with include and exclude
// filters on the plans. tcgen sweep runs every point on every graph through
// the tuner's evaluator and store, and package report writes the tables and
// plots.
package sweep

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// File is a sweep file.
//
//	name: small-graphs
//	graphs:
//	  - dataset: ca-AstroPh          # a shared dataset (MANIFEST.tsv gives its count)
//	  - file: graphs/web.txt.gz       # a file, relative to the sweep file
//	    expect: 123456
//	  - rmat: {scales: [16, 18]}      # Graph500 RMAT (seed 42, edge factor 16)
//	  - chung_lu: {vertices: 40000, degree: 12, gamma: 2.1}   # power-law degrees
//	  - rgg: {vertices: 40000, dim: 2, degree: 16}            # geometric
//	  - ws: {vertices: 100000, k: 10, p: 0.1}                 # small world
//	  - sbm: {vertices: 100000, blocks: 100, degree_in: 12, degree_out: 4}
//	  - ba: {vertices: 100000, m: 8}                          # preferential attachment
//	  - road: {rows: 300, cols: 300, delete: 0.2, links: 100} # damaged grid
//	space: ../spaces/default.yaml     # or an inline space under space_inline
//	include: ["preset:*", "*hash*"]
//	exclude: ["preset:radixbin"]
type File struct {
	Name   string  `yaml:"name"`
	Doc    string  `yaml:"doc,omitempty"`
	Graphs []Graph `yaml:"graphs"`
	// Space is a space file path (relative to the sweep file); SpaceInline
	// declares one in place.
	Space       string              `yaml:"space,omitempty"`
	SpaceInline *autotune.SpaceFile `yaml:"space_inline,omitempty"`
	// Include and Exclude filter points by their label ("preset:polak",
	// "cuts 16: merge w1 b256 | hash w32 b256 buckets=64") or plan name,
	// with * wildcards. An empty Include keeps every point.
	Include []string `yaml:"include,omitempty"`
	Exclude []string `yaml:"exclude,omitempty"`

	fsys fs.FS // set for a sweep embedded in the binary (bench)
	dir  string
}

// Graph is one entry of a sweep's graph list: exactly one of Dataset,
// Names, File and the generators (RMAT, ER, Grid, ChungLu, RGG, WS, SBM, BA,
// Road).
type Graph struct {
	Dataset string   `yaml:"dataset,omitempty"`
	File    string   `yaml:"file,omitempty"`
	RMAT    *RMAT    `yaml:"rmat,omitempty"`
	ER      *ER      `yaml:"er,omitempty"`
	Grid    *Grid    `yaml:"grid,omitempty"`
	ChungLu *ChungLu `yaml:"chung_lu,omitempty"`
	RGG     *RGG     `yaml:"rgg,omitempty"`
	WS      *WS      `yaml:"ws,omitempty"`
	SBM     *SBM     `yaml:"sbm,omitempty"`
	BA      *BA      `yaml:"ba,omitempty"`
	Road    *Road    `yaml:"road,omitempty"`
	Expect  *uint64  `yaml:"expect,omitempty"`
	Names   []string `yaml:"datasets,omitempty"` // several datasets at once
}

// RMAT generates Graph500 RMAT graphs, one per scale.
type RMAT struct {
	Scales     []int  `yaml:"scales"`
	EdgeFactor int    `yaml:"edge_factor,omitempty" range:"1.."` // default 16
	Seed       uint64 `yaml:"seed,omitempty" range:"1.."`        // default 42
	// A, B and C are the initiator probabilities (Graph500's 0.57, 0.19,
	// 0.19 when all three are 0).
	A float64 `yaml:"a,omitempty"`
	B float64 `yaml:"b,omitempty"`
	C float64 `yaml:"c,omitempty"`
}

// ER generates an Erdos-Renyi G(n, m) graph.
type ER struct {
	Vertices uint64 `yaml:"vertices"`
	Edges    uint64 `yaml:"edges"`
	Seed     uint64 `yaml:"seed,omitempty" range:"1.."` // default 42
}

// Grid generates a rows x cols grid (with diagonals: 2(r-1)(c-1) triangles).
type Grid struct {
	Rows      uint64 `yaml:"rows"`
	Cols      uint64 `yaml:"cols"`
	Diagonals bool   `yaml:"diagonals,omitempty"`
}

// ChungLu generates a Chung-Lu graph with power-law expected degrees
// (tcgen graph chung-lu).
type ChungLu struct {
	Vertices uint64  `yaml:"vertices"`
	Degree   float64 `yaml:"degree"`                     // mean expected degree
	Gamma    float64 `yaml:"gamma,omitempty"`            // exponent in [2, 3], default 2.5
	Seed     uint64  `yaml:"seed,omitempty" range:"1.."` // default 42
}

// RGG generates a random geometric graph (tcgen graph rgg): points in the
// unit square or cube joined within the radius that gives the degree; ids
// keep the points' locality.
type RGG struct {
	Vertices uint64  `yaml:"vertices"`
	Dim      int     `yaml:"dim,omitempty" range:"2..3"` // default 2
	Degree   float64 `yaml:"degree"`                     // expected mean degree
	Seed     uint64  `yaml:"seed,omitempty" range:"1.."` // default 42
}

// WS generates a Watts-Strogatz small world (tcgen graph ws): a ring
// lattice of degree K with each edge rewired with probability P.
type WS struct {
	Vertices uint64  `yaml:"vertices"`
	K        uint64  `yaml:"k"`
	P        float64 `yaml:"p"`
	Seed     uint64  `yaml:"seed,omitempty" range:"1.."` // default 42
}

// SBM generates a stochastic block model of equal blocks (tcgen graph sbm).
type SBM struct {
	Vertices  uint64  `yaml:"vertices"`
	Blocks    uint64  `yaml:"blocks"`
	DegreeIn  float64 `yaml:"degree_in"`
	DegreeOut float64 `yaml:"degree_out"`
	Seed      uint64  `yaml:"seed,omitempty" range:"1.."` // default 42
}

// BA generates a Barabasi-Albert graph (tcgen graph ba): each vertex
// attaches M edges by preferential attachment.
type BA struct {
	Vertices uint64 `yaml:"vertices"`
	M        uint64 `yaml:"m"`
	Seed     uint64 `yaml:"seed,omitempty" range:"1.."` // default 42
}

// Road generates a damaged grid with long links (tcgen graph road).
type Road struct {
	Rows      uint64  `yaml:"rows"`
	Cols      uint64  `yaml:"cols"`
	Diagonals bool    `yaml:"diagonals,omitempty"`
	Delete    float64 `yaml:"delete,omitempty"`
	Links     uint64  `yaml:"links,omitempty"`
	Seed      uint64  `yaml:"seed,omitempty" range:"1.."` // default 42
}

// seed42 is an entry's seed, 42 when not given.
func seed42(s uint64) uint64 {
	if s == 0 {
		return 42
	}
	return s
}

// generated lists the graphs a generator entry describes, defaults
// filled, with their labels; nil for a file or dataset entry.
func (g Graph) generated() (gens []graph.Generator, labels []string) {
	one := func(gen graph.Generator, label string) ([]graph.Generator, []string) {
		return []graph.Generator{gen}, []string{label}
	}
	switch {
	case g.ER != nil:
		s := seed42(g.ER.Seed)
		return one(graph.ErdosRenyi{N: g.ER.Vertices, M: g.ER.Edges, Seed: s}, fmt.Sprintf("er-n%d-m%d-s%d", g.ER.Vertices, g.ER.Edges, s))
	case g.ChungLu != nil:
		cl := graph.ChungLu{N: g.ChungLu.Vertices, Degree: g.ChungLu.Degree, Gamma: cmp.Or(g.ChungLu.Gamma, 2.5), Seed: seed42(g.ChungLu.Seed)}
		return one(cl, fmt.Sprintf("cl-n%d-d%g-g%g-s%d", cl.N, cl.Degree, cl.Gamma, cl.Seed))
	case g.RGG != nil:
		rg := graph.RandomGeometric{N: g.RGG.Vertices, Dim: cmp.Or(g.RGG.Dim, 2), Degree: g.RGG.Degree, Seed: seed42(g.RGG.Seed)}
		return one(rg, fmt.Sprintf("rgg%dd-n%d-d%g-s%d", rg.Dim, rg.N, rg.Degree, rg.Seed))
	case g.Grid != nil:
		label := fmt.Sprintf("grid%dx%d", g.Grid.Rows, g.Grid.Cols)
		if g.Grid.Diagonals {
			label += "-diag"
		}
		return one(graph.Grid{Rows: g.Grid.Rows, Cols: g.Grid.Cols, Diagonals: g.Grid.Diagonals}, label)
	case g.WS != nil:
		w := graph.WattsStrogatz{N: g.WS.Vertices, K: g.WS.K, P: g.WS.P, Seed: seed42(g.WS.Seed)}
		return one(w, fmt.Sprintf("ws-n%d-k%d-p%g-s%d", w.N, w.K, w.P, w.Seed))
	case g.SBM != nil:
		b := graph.SBM{N: g.SBM.Vertices, Blocks: g.SBM.Blocks, DegreeIn: g.SBM.DegreeIn, DegreeOut: g.SBM.DegreeOut, Seed: seed42(g.SBM.Seed)}
		return one(b, fmt.Sprintf("sbm-n%d-b%d-in%g-out%g-s%d", b.N, b.Blocks, b.DegreeIn, b.DegreeOut, b.Seed))
	case g.BA != nil:
		b := graph.BarabasiAlbert{N: g.BA.Vertices, M: g.BA.M, Seed: seed42(g.BA.Seed)}
		return one(b, fmt.Sprintf("ba-n%d-m%d-s%d", b.N, b.M, b.Seed))
	case g.Road != nil:
		r := graph.Road{Rows: g.Road.Rows, Cols: g.Road.Cols, Diagonals: g.Road.Diagonals, Delete: g.Road.Delete, Links: g.Road.Links, Seed: seed42(g.Road.Seed)}
		label := fmt.Sprintf("road%dx%d-del%g-l%d-s%d", r.Rows, r.Cols, r.Delete, r.Links, r.Seed)
		if r.Diagonals {
			label += "-diag"
		}
		return one(r, label)
	case g.RMAT != nil:
		ef, seed := g.RMAT.EdgeFactor, seed42(g.RMAT.Seed)
		if ef == 0 {
			ef = 16
		}
		a, b, c := g.RMAT.A, g.RMAT.B, g.RMAT.C // all three or none (check)
		def := a == 0 && b == 0 && c == 0
		if def {
			a, b, c = graph.DefaultRMATA, graph.DefaultRMATB, graph.DefaultRMATC
		}
		for _, s := range g.RMAT.Scales {
			label := fmt.Sprintf("rmat%d", s)
			if ef != 16 || seed != 42 {
				label = fmt.Sprintf("rmat%d-ef%d-s%d", s, ef, seed)
			}
			if !def {
				label += fmt.Sprintf("-a%g-b%g-c%g", a, b, c)
			}
			gens = append(gens, graph.RMAT{Scale: s, EdgeFactor: ef, Seed: seed, A: a, B: b, C: c})
			labels = append(labels, label)
		}
	}
	return gens, labels
}

// validator is a generator that checks its parameters.
type validator interface{ Validate() error }

// Source is one graph to run: a file to read or a graph to generate.
type Source struct {
	Label  string          // for people and the report: dataset name, file base name, rmat18
	Path   string          // a file to read ("" for a generated graph)
	Gen    graph.Generator // the generator when Path is ""
	Expect *uint64         // known count, when there is one
	Note   string          // DrySources: why neither Path nor Gen is set
}

// Load reads a sweep file.
func Load(p string) (*File, error) { return LoadFS(nil, p) }

// LoadFS reads a sweep file from fsys (the embedded examples; nil: the
// disk); its space and spec paths resolve in the same place.
func LoadFS(fsys fs.FS, name string) (*File, error) {
	f, dir, err := ir.LoadYAML(fsys, name, (*File).check)
	if err != nil {
		return nil, err
	}
	f.fsys, f.dir = fsys, dir
	return f, nil
}

// Parse parses a sweep file's bytes; name is used in errors.
func Parse(data []byte, name string) (*File, error) {
	f, err := ir.ParseYAML(data, name, (*File).check)
	if err != nil {
		return nil, err
	}
	f.dir = "."
	return f, nil
}

func (f *File) check() error {
	if strings.TrimSpace(f.Name) == "" {
		return errors.New("name: a sweep needs a name (it keys its measurements in the store)")
	}
	if len(f.Graphs) == 0 {
		return errors.New("graphs: a sweep needs at least one graph")
	}
	if (f.Space == "") == (f.SpaceInline == nil) {
		return errors.New("give exactly one of space (a file) and space_inline")
	}
	for i, g := range f.Graphs {
		n := 0
		for _, set := range []bool{g.Dataset != "", g.File != "", g.RMAT != nil, len(g.Names) > 0, g.ER != nil, g.Grid != nil,
			g.ChungLu != nil, g.RGG != nil, g.WS != nil, g.SBM != nil, g.BA != nil, g.Road != nil} {
			if set {
				n++
			}
		}
		if n != 1 {
			return fmt.Errorf("graphs[%d]: give exactly one of dataset, datasets, file, rmat, er, grid, chung_lu, rgg, ws, sbm, ba and road", i)
		}
		if g.RMAT != nil {
			if len(g.RMAT.Scales) == 0 {
				return fmt.Errorf("graphs[%d]: rmat needs scales", i)
			}
			for _, s := range g.RMAT.Scales {
				if s < 1 || s > 32 {
					return fmt.Errorf("graphs[%d]: rmat scale %d: want 1..32", i, s)
				}
			}
			if set := (g.RMAT.A != 0) || (g.RMAT.B != 0) || (g.RMAT.C != 0); set && (g.RMAT.A == 0 || g.RMAT.B == 0 || g.RMAT.C == 0) {
				return fmt.Errorf("graphs[%d]: rmat: give all of a, b and c, or none (Graph500's 0.57, 0.19, 0.19)", i)
			}
		}
		gens, _ := g.generated()
		for _, gen := range gens {
			if v, ok := gen.(validator); ok {
				if err := v.Validate(); err != nil {
					return fmt.Errorf("graphs[%d]: %w", i, err)
				}
			}
		}
		if g.Expect != nil && (g.RMAT != nil || len(g.Names) > 0) {
			return fmt.Errorf("graphs[%d]: expect applies to one graph (a file or a dataset)", i)
		}
	}
	for _, pat := range append(append([]string{}, f.Include...), f.Exclude...) {
		if strings.TrimSpace(pat) == "" {
			return errors.New("include/exclude: an empty pattern")
		}
	}
	return nil
}

// SpaceFile returns the sweep's space.
func (f *File) SpaceFile() (*autotune.SpaceFile, error) {
	if f.SpaceInline != nil {
		s, err := f.SpaceInline.Checked(f.fsys, f.dir)
		if err != nil {
			return nil, fmt.Errorf("sweep %s: space_inline: %w", f.Name, err)
		}
		return s, nil
	}
	if f.fsys != nil {
		return autotune.LoadSpaceFS(f.fsys, path.Join(f.dir, f.Space))
	}
	p := f.Space
	if !filepath.IsAbs(p) {
		p = filepath.Join(f.dir, p)
	}
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		if b, ok := examples.Lookup(examples.Spaces, f.Space); ok { // a built-in space by name, as tune --space takes it
			return autotune.LoadSpaceFS(examples.FS, b)
		}
		return nil, fmt.Errorf("sweep %s: space %s: no such file (built-in spaces: %s)", f.Name, p, strings.Join(examples.Names(examples.Spaces), ", "))
	}
	return autotune.LoadSpace(p)
}

// Expand expands the space for target and applies the include and exclude
// filters; points they drop are listed as culled with the reason.
func (f *File) Expand(target gen.Target) (*autotune.Space, error) {
	sf, err := f.SpaceFile()
	if err != nil {
		return nil, err
	}
	sp, err := sf.Expand(target)
	if err != nil {
		return nil, err
	}
	var dropped []autotune.Culled
	keep := func(i int) bool {
		label, plan := sp.Labels[i], sp.Cands.Plans[i]
		if len(f.Include) > 0 && !matchAny(f.Include, label, plan) {
			dropped = append(dropped, autotune.Culled{Point: sp.Cands.Points[i], Label: label, Reason: "not included"})
			return false
		}
		if matchAny(f.Exclude, label, plan) {
			dropped = append(dropped, autotune.Culled{Point: sp.Cands.Points[i], Label: label, Reason: "excluded"})
			return false
		}
		return true
	}
	out := sp.Subset(keep)
	out.Cands.Culled = append(out.Cands.Culled, dropped...)
	out.Cands.Name = f.Name
	return out, nil
}

func matchAny(pats []string, ss ...string) bool {
	for _, p := range pats {
		for _, s := range ss {
			if glob(p, s) {
				return true
			}
		}
	}
	return false
}

// glob reports whether s matches pattern p, where * stands for any run of
// characters (slashes too: labels hold spec paths) and everything else for
// itself.
func glob(p, s string) bool {
	parts := strings.Split(p, "*")
	if len(parts) == 1 {
		return p == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// DrySources is Sources for a dry run, which reads no graph: when datasets
// holds no MANIFEST.tsv, the dataset entries are listed by name, with a
// Note that says so, instead of failing.
func (f *File) DrySources(datasets string) ([]Source, error) {
	_, err := os.Stat(filepath.Join(datasets, "MANIFEST.tsv"))
	if !errors.Is(err, fs.ErrNotExist) {
		return f.Sources(datasets)
	}
	var out []Source
	for _, g := range f.Graphs {
		names := g.Names
		if g.Dataset != "" {
			names = []string{g.Dataset}
		}
		for _, n := range names {
			out = append(out, Source{Label: n, Expect: g.Expect, Note: "dataset (no MANIFEST.tsv in " + datasets + ")"})
		}
		if len(names) == 0 {
			one := *f
			one.Graphs = []Graph{g}
			srcs, err := one.Sources(datasets)
			if err != nil {
				return nil, err
			}
			out = append(out, srcs...)
		}
	}
	return out, nil
}

// Sources lists the graphs, datasets resolved in datasets (a directory
// with MANIFEST.tsv: name, file, ..., triangles).
func (f *File) Sources(datasets string) ([]Source, error) {
	var man map[string]manifestEntry
	var out []Source
	for i, g := range f.Graphs {
		names := g.Names
		if g.Dataset != "" {
			names = []string{g.Dataset}
		}
		switch {
		case len(names) > 0:
			if man == nil {
				var err error
				if man, err = readManifest(datasets); err != nil {
					return nil, fmt.Errorf("sweep %s: graphs[%d]: %w", f.Name, i, err)
				}
			}
			for _, n := range names {
				e, ok := man[n]
				if !ok {
					return nil, fmt.Errorf("sweep %s: graphs[%d]: dataset %q is not in %s", f.Name, i, n, filepath.Join(datasets, "MANIFEST.tsv"))
				}
				exp := e.triangles
				if g.Expect != nil {
					exp = *g.Expect
				}
				out = append(out, Source{Label: n, Path: filepath.Join(datasets, e.file), Expect: &exp})
			}
		case g.File != "":
			p := g.File
			if !filepath.IsAbs(p) {
				p = filepath.Join(f.dir, p)
			}
			out = append(out, Source{Label: filepath.Base(g.File), Path: p, Expect: g.Expect})
		default:
			gens, labels := g.generated()
			for j, gen := range gens {
				out = append(out, Source{Label: labels[j], Expect: g.Expect, Gen: gen})
			}
		}
	}
	seen := map[string]bool{}
	for _, s := range out {
		if seen[s.Label] {
			return nil, fmt.Errorf("sweep %s: graph %s is listed twice (labels name results and cached graphs)", f.Name, s.Label)
		}
		seen[s.Label] = true
	}
	return out, nil
}

type manifestEntry struct {
	file      string
	triangles uint64
}

// readManifest reads dir/MANIFEST.tsv (a header line with name, file and
// triangles columns; tab-separated).
func readManifest(dir string) (map[string]manifestEntry, error) {
	p := filepath.Join(dir, "MANIFEST.tsv")
	fh, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("datasets: %w (give --datasets DIR or set TCGEN_DATASETS)", err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	col := map[string]int{}
	out := map[string]manifestEntry{}
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Split(sc.Text(), "\t")
		if line == 1 {
			for i, h := range fields {
				col[h] = i
			}
			for _, need := range []string{"name", "file", "triangles"} {
				if _, ok := col[need]; !ok {
					return nil, fmt.Errorf("%s: line 1: no %q column", p, need)
				}
			}
			continue
		}
		if len(fields) <= max(col["name"], col["file"], col["triangles"]) {
			return nil, fmt.Errorf("%s: line %d: %d columns, the header has %d", p, line, len(fields), len(col))
		}
		t, err := strconv.ParseUint(fields[col["triangles"]], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: triangles %q: not a count", p, line, fields[col["triangles"]])
		}
		out[fields[col["name"]]] = manifestEntry{file: fields[col["file"]], triangles: t}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return out, nil
}
