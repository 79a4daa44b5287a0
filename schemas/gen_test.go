package schemas

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/autotune"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/sweep"
)

// schema is the part of JSON Schema draft-07 the files need.
type schema struct {
	Schema      string             `json:"$schema,omitempty"`
	ID          string             `json:"$id,omitempty"`
	Ref         string             `json:"$ref,omitempty"`
	Title       string             `json:"title,omitempty"`
	Description string             `json:"description,omitempty"`
	Type        string             `json:"type,omitempty"`
	Enum        []any              `json:"enum,omitempty"`
	Pattern     string             `json:"pattern,omitempty"`
	Minimum     *int64             `json:"minimum,omitempty"`
	Maximum     *int64             `json:"maximum,omitempty"`
	Items       *schema            `json:"items,omitempty"`
	Properties  map[string]*schema `json:"properties,omitempty"`
	// AdditionalProperties is false (the decoders refuse unknown fields)
	// or the schema of a map's values.
	AdditionalProperties any                `json:"additionalProperties,omitempty"`
	OneOf                []*schema          `json:"oneOf,omitempty"`
	Definitions          map[string]*schema `json:"definitions,omitempty"`
}

// generator turns Go types into schemas: structs by their yaml tags, named
// structs as definitions, doc comments as descriptions.
type generator struct {
	docs      map[string]string // "ir.Plan", "ir.Plan.Core": first paragraph of the doc comment
	defs      map[string]*schema
	enums     map[reflect.Type][]any
	overrides map[string]func() *schema // by "pkg.Type.Field"
}

// fileSchema is the schema of a file decoded into root's type.
func fileSchema(t *testing.T, root any, id, title string) *schema {
	g := newGenerator(t)
	rt := reflect.TypeOf(root)
	s := g.structSchema(rt)
	s.Schema, s.ID, s.Title = "http://json-schema.org/draft-07/schema#", id, title
	delete(g.defs, typeName(rt))
	if len(g.defs) > 0 {
		s.Definitions = g.defs
	}
	return s
}

func newGenerator(t *testing.T) *generator {
	g := &generator{docs: map[string]string{}, defs: map[string]*schema{}, enums: map[reflect.Type][]any{}}
	for _, pkg := range []string{"ir", "autotune", "sweep"} {
		readDocs(t, filepath.Join("..", pkg), pkg, g.docs)
	}
	g.enums[reflect.TypeOf(ir.Iterator(""))] = anys(ir.Iterators)
	g.enums[reflect.TypeOf(ir.Intersection(""))] = anys(ir.Intersections)
	g.enums[reflect.TypeOf(ir.Orientation(""))] = anys(ir.Orientations)
	g.enums[reflect.TypeOf(ir.Output(""))] = anys(ir.Outputs)
	g.enums[reflect.TypeOf(ir.Key(""))] = anys(ir.Keys)
	core := func() *schema {
		return &schema{Type: "integer", Enum: anys(ir.CoreSpec.Values), Description: firstSentences(ir.CoreSpec.Doc)}
	}
	g.overrides = map[string]func() *schema{
		"ir.Plan.Core":                  core,
		"ir.Variant.Core":               core,
		"ir.Guard.Feature":              featureSchema,
		"ir.Cond.Feature":               featureSchema,
		"ir.Strategy.Params":            func() *schema { return paramsSchema(false) },
		"autotune.StrategySpace.Params": func() *schema { return paramsSchema(true) },
		"autotune.StrategySpace.Width":  widthListSchema,
		"autotune.SpaceFile.Plans": func() *schema {
			return &schema{Type: "array", Items: &schema{Type: "string", Pattern: "^(preset|spec):.+"}}
		},
	}
	return g
}

// featureSchema is a guard feature's: one of ir.Features.
func featureSchema() *schema {
	var names []any
	for _, f := range ir.Features {
		names = append(names, f.Name)
	}
	return &schema{Type: "string", Enum: names}
}

// of is the schema of a value of type t, for the field key ("pkg.Type.Field").
func (g *generator) of(t reflect.Type, key, rng string) *schema {
	if f, ok := g.overrides[key]; ok {
		return f()
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if e, ok := g.enums[t]; ok {
		return &schema{Type: "string", Enum: e}
	}
	switch t.Kind() {
	case reflect.Struct:
		name := typeName(t)
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // recursion guard
			g.defs[name] = g.structSchema(t)
		}
		return &schema{Ref: "#/definitions/" + name}
	case reflect.Slice:
		return &schema{Type: "array", Items: g.of(t.Elem(), "", rng)}
	case reflect.Map:
		return &schema{Type: "object", AdditionalProperties: g.of(t.Elem(), "", "")}
	case reflect.String:
		return &schema{Type: "string"}
	case reflect.Bool:
		return &schema{Type: "boolean"}
	case reflect.Float32, reflect.Float64:
		return &schema{Type: "number"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return intSchema(rng, math.MinInt64)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return intSchema(rng, 0)
	}
	panic("schemas: no schema for " + t.String())
}

// structSchema is an object with the struct's yaml fields (inline ones
// flattened); the decoders refuse other fields.
func (g *generator) structSchema(t reflect.Type) *schema {
	s := &schema{Type: "object", Description: g.docs[typeName(t)], Properties: map[string]*schema{}, AdditionalProperties: false}
	g.addFields(s, t)
	return s
}

func (g *generator) addFields(s *schema, t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if strings.Contains(","+opts+",", ",inline,") {
			g.addFields(s, f.Type)
			continue
		}
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		key := typeName(t) + "." + f.Name
		p := g.of(f.Type, key, f.Tag.Get("range"))
		if d := g.docs[key]; d != "" && p.Description == "" {
			if p.Ref != "" { // draft-07 ignores a $ref's siblings
				p = &schema{OneOf: []*schema{p}}
			}
			p.Description = d
		}
		s.Properties[name] = p
	}
}

// intSchema is an integer within a range tag ("1..1024", "1.."), else at
// least min.
func intSchema(rng string, min int64) *schema {
	s := &schema{Type: "integer"}
	if min == 0 {
		s.Minimum = ptr(int64(0))
	}
	if a, b, ok := strings.Cut(rng, ".."); ok {
		lo, _ := strconv.ParseInt(a, 10, 64)
		s.Minimum = ptr(lo)
		if b != "" {
			hi, _ := strconv.ParseInt(b, 10, 64)
			s.Maximum = ptr(hi)
		}
	}
	return s
}

// paramsSchema lists every strategy parameter of the IR with the widest
// range any pair gives it (validation checks the pair's own); in a space
// file, each takes a list of values.
func paramsSchema(lists bool) *schema {
	props := map[string]*schema{}
	for _, pair := range ir.Pairs() {
		for _, ps := range ir.ParamsFor(ir.Strategy{Iterator: pair.Iterator, Intersection: pair.Intersection}) {
			p := props[ps.Name]
			if p == nil {
				p = &schema{Type: "integer", Minimum: ptr(ps.Min), Maximum: ptr(ps.Max), Description: firstSentences(ps.Doc)}
				props[ps.Name] = p
			}
			*p.Minimum, *p.Maximum = min(*p.Minimum, ps.Min), max(*p.Maximum, ps.Max)
		}
	}
	if lists {
		for name, p := range props {
			props[name] = &schema{Type: "array", Items: p}
		}
	}
	return &schema{Type: "object", Properties: props, AdditionalProperties: false}
}

// widthListSchema: a space's widths are numbers (written as strings or
// not) or "block", a whole block per item.
func widthListSchema() *schema {
	return &schema{Type: "array", Items: &schema{OneOf: []*schema{
		{Type: "integer", Minimum: ptr(int64(1)), Maximum: ptr(int64(1024))},
		{Type: "string", Pattern: "^([1-9][0-9]*|block)$"},
	}}}
}

// readDocs reads the doc comments of the types and fields of the Go
// package in dir (named pkg) into docs.
func readDocs(t *testing.T, dir, pkg string, docs map[string]string) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				docs[pkg+"."+ts.Name.Name] = paragraph(doc)
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fl := range st.Fields.List {
					d := paragraph(fl.Doc)
					if d == "" {
						d = paragraph(fl.Comment)
					}
					for _, n := range fl.Names {
						docs[pkg+"."+ts.Name.Name+"."+n.Name] = d
					}
				}
			}
		}
	}
}

// paragraph is a doc comment's first paragraph on one line.
func paragraph(c *ast.CommentGroup) string {
	if c == nil {
		return ""
	}
	text, _, _ := strings.Cut(c.Text(), "\n\n")
	return strings.Join(strings.Fields(text), " ")
}

// firstSentences cuts a long parameter doc at its first ';'.
func firstSentences(s string) string {
	s, _, _ = strings.Cut(s, ";")
	return s
}

func typeName(t reflect.Type) string {
	return filepath.Base(t.PkgPath()) + "." + t.Name()
}

func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// The files' root types, for the tests.
var files = []struct {
	name, title string
	root        any
}{
	{"spec.schema.json", "tcgen plan spec", ir.Plan{}},
	{"space.schema.json", "tcgen space file", autotune.SpaceFile{}},
	{"sweep.schema.json", "tcgen sweep file", sweep.File{}},
}
