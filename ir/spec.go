package ir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads a spec file (YAML, or JSON by extension or content), decodes it
// strictly and validates it. Every error is one line that starts with the
// file's path.
func Load(path string) (Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Plan{}, fmt.Errorf("%s: %w", path, unwrapPathErr(err))
	}
	return ParseValid(data, path)
}

// ParseValid is Load for a spec already read (an embedded example): Parse,
// then Validate, with errors that start with name.
func ParseValid(data []byte, name string) (Plan, error) {
	p, err := Parse(data, name)
	if err != nil {
		return Plan{}, err
	}
	if err := p.Validate(); err != nil {
		return Plan{}, fmt.Errorf("%s: %s", name, OneLine(err))
	}
	return p, nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// OneLine joins a (possibly errors.Join-ed) error's lines with "; ".
func OneLine(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}

// IsJSON reports whether a spec named name with content data is JSON: by
// extension (.json; .yaml and .yml are YAML), else by a leading '{'.
func IsJSON(data []byte, name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{'
}

// Parse decodes a spec strictly: unknown fields, a second document and
// trailing data are errors. name labels errors (a path, or "<stdin>") and
// picks the format by its extension. A core given the old way, in pivot
// classes' params, is lifted to its class list (LiftCore). Empty lists and maps read as absent,
// so that encoding the result and parsing it again gives the same Plan.
// Parse does not validate.
func Parse(data []byte, name string) (Plan, error) {
	var p Plan
	var err error
	if IsJSON(data, name) {
		p, err = parseJSON(data, name)
	} else {
		p, err = parseYAML(data, name)
	}
	if err != nil {
		return Plan{}, err
	}
	// Specs written when the core was a pivot class parameter.
	p, err = LiftCore(p) // ir/params_pivot_hash.go
	if err != nil {
		return Plan{}, fmt.Errorf("%s: %s", name, OneLine(err))
	}
	return normEmpty(p), nil
}

// normEmpty turns empty slices and maps into nil: the encoders omit them,
// so nil is what a round trip gives back.
func normEmpty(p Plan) Plan {
	fix := func(cs []Class) []Class {
		if len(cs) == 0 {
			return nil
		}
		for i := range cs {
			if len(cs[i].Params) == 0 {
				cs[i].Params = nil
			}
		}
		return cs
	}
	p.Classes = fix(p.Classes)
	if p.Guard != nil {
		if len(p.Guard.Variants) == 0 {
			p.Guard.Variants = nil
		}
		for i := range p.Guard.Variants {
			p.Guard.Variants[i].Classes = fix(p.Guard.Variants[i].Classes)
		}
	}
	return p
}

func parseYAML(data []byte, name string) (Plan, error) {
	var p Plan
	err := DecodeYAML(data, name, &p)
	return p, err
}

// DecodeYAML decodes one YAML document of data into v, refusing unknown
// fields, with one-line errors that name the file (name) and the line. The
// space and sweep files use it as the plan specs do.
func DecodeYAML(data []byte, name string, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if err == io.EOF {
			return fmt.Errorf("%s: empty file", name) // nothing but comments or blanks
		}
		return fmt.Errorf("%s: %s", name, yamlMsg(err, data))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			return fmt.Errorf("%s: %s", name, yamlMsg(err, data))
		}
		return fmt.Errorf("%s: line %d: one YAML document expected, found another", name, extra.Line)
	}
	return checkNumbersOf(data, name, v)
}

// checkNumbersOf runs checkNumbers on data (YAML, or JSON: YAML reads it)
// for v's type; data that YAML cannot read was checked by its decoder.
func checkNumbersOf(data []byte, name string, v any) error {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return nil
	}
	if err := checkNumbers(&doc, reflect.TypeOf(v)); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// LoadYAML reads a YAML file (from fsys when it is not nil, else from disk),
// decodes it strictly into a new T and runs check on it; errors name the
// file. It returns the directory the file's own relative paths resolve
// against. Space and sweep files load through it.
func LoadYAML[T any](fsys fs.FS, name string, check func(*T) error) (*T, string, error) {
	var data []byte
	var err error
	dir := filepath.Dir(name)
	if fsys != nil {
		data, err = fs.ReadFile(fsys, name)
		dir = path.Dir(name)
	} else {
		data, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, "", err
	}
	v, err := ParseYAML(data, name, check)
	return v, dir, err
}

// ParseYAML is LoadYAML for bytes already read.
func ParseYAML[T any](data []byte, name string, check func(*T) error) (*T, error) {
	v := new(T)
	if err := DecodeYAML(data, name, v); err != nil {
		return nil, err
	}
	if err := check(v); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// yamlMsg makes yaml.v3's messages one line and drops its "yaml: " prefix;
// the messages carry "line N:" themselves.
func yamlMsg(err error, data []byte) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var parts []string
		for _, e := range te.Errors {
			// A quoted value may hold line breaks of the input: escape them
			// so the message stays one line. A value under an anchor is
			// decoded again at each alias: say each message once.
			if m := plainTypeError(strings.ReplaceAll(strings.TrimPrefix(e, "yaml: "), "\n", `\n`)); !slices.Contains(parts, m) {
				parts = append(parts, m)
			}
		}
		return strings.Join(parts, "; ")
	}
	msg := strings.TrimPrefix(OneLine(err), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil && strings.Contains(msg, "cannot start any token") {
		if n, _ := strconv.Atoi(m[1]); n > 0 && n <= bytes.Count(data, []byte("\n"))+1 &&
			bytes.ContainsRune(bytes.Split(data, []byte("\n"))[n-1], '\t') {
			msg += " (a tab: YAML indents with spaces)"
		}
	}
	return msg
}

var (
	yamlLine      = regexp.MustCompile(`^line (\d+): `)
	yamlUnknown   = regexp.MustCompile(`field (\S+) not found in type \S+$`)
	yamlWrongType = regexp.MustCompile("cannot unmarshal !!(\\w+)(?: (`.*`))? into (\\S+)$")
)

// plainTypeError words one of yaml.v3's type errors for a user: "unknown
// field X" for a misspelt key, "`v` is not an integer" (or a list, a
// mapping, ...) for a value of the wrong kind, and the same text otherwise.
func plainTypeError(e string) string {
	if m := yamlUnknown.FindStringSubmatchIndex(e); m != nil {
		return e[:m[0]] + "unknown field " + e[m[2]:m[3]]
	}
	m := yamlWrongType.FindStringSubmatchIndex(e)
	if m == nil {
		return e
	}
	var want string
	switch typ := e[m[6]:m[7]]; {
	case strings.HasPrefix(typ, "[]"):
		want = "a list (write [x] for one value)"
	case strings.HasPrefix(typ, "map["), strings.Contains(typ, "."):
		want = "a mapping (key: value)"
	case strings.Contains(typ, "int"):
		want = "an integer (or too large)"
	case strings.HasPrefix(typ, "float"):
		want = "a number"
	case typ == "bool":
		want = "true or false"
	default:
		want = "a " + typ
	}
	what := map[string]string{"seq": "a list", "map": "a mapping"}[e[m[2]:m[3]]] // no value quoted
	if what == "" {
		what = "a " + e[m[2]:m[3]]
	}
	if m[4] >= 0 {
		what = e[m[4]:m[5]]
	}
	if what == "`block`" {
		want += "; a block per item is a width equal to the block"
	}
	return e[:m[0]] + what + " is not " + want
}

func parseJSON(data []byte, name string) (Plan, error) {
	var p Plan
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Plan{}, fmt.Errorf("%s: %s", name, jsonMsg(err, data, dec.InputOffset()))
	}
	if tok, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		if err != nil {
			return Plan{}, fmt.Errorf("%s: %s", name, jsonMsg(err, data, off))
		}
		return Plan{}, fmt.Errorf("%s: line %d: trailing data after the spec (%v)", name, lineAt(data, off), tok)
	}
	return p, checkNumbersOf(data, name, &p)
}

func jsonMsg(err error, data []byte, off int64) string {
	var se *json.SyntaxError
	var ue *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &ue):
		off = ue.Offset
	case err == io.EOF:
		return "empty file"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of JSON"
	}
	return fmt.Sprintf("line %d: %s", lineAt(data, off), strings.TrimPrefix(OneLine(err), "json: "))
}

func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// EncodeYAML writes the plan as a YAML spec (two-space indent, fields in
// struct order, map keys sorted): Parse of the result gives the plan back.
func (p Plan) EncodeYAML() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodeJSON writes the plan as an indented JSON spec with a final newline.
func (p Plan) EncodeJSON() ([]byte, error) {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
