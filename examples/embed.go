// Package examples holds the example plans and spaces; the binary embeds
// them, so `count` runs examples/default.yaml and `tune` searches
// examples/spaces/default.yaml without copies that could drift, and every
// example is usable by name from any directory (Lookup).
package examples

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tcgen/tcgen/ir"
)

// FS holds every example spec and space, at their paths below examples/.
//
//go:embed *.yaml spaces/*.yaml sweeps/*.yaml
var FS embed.FS

// The kinds of example, by their directory in FS.
const (
	Plans  = "."
	Spaces = "spaces"
	Sweeps = "sweeps"
)

// Lookup returns the path in FS of the example of kind dir (Plans, Spaces
// or Sweeps) that name refers to: "two-class", "two-class.yaml" or the
// path in a clone, "examples/two-class.yaml".
func Lookup(dir, name string) (string, bool) {
	n := path.Clean(filepath.ToSlash(name))
	n = strings.TrimPrefix(n, "examples/")
	if dir != Plans {
		n = strings.TrimPrefix(n, dir+"/")
	}
	if n == "." || strings.Contains(n, "/") {
		return "", false // only the examples' own names; "../x" never matches
	}
	for _, c := range []string{n, n + ".yaml"} {
		p := path.Join(dir, c)
		if st, err := fs.Stat(FS, p); err == nil && st.Mode().IsRegular() && strings.HasSuffix(p, ".yaml") {
			return p, true
		}
	}
	return "", false
}

// Names lists the examples of kind dir by name (no .yaml), sorted.
func Names(dir string) []string {
	ents, _ := fs.ReadDir(FS, dir) // embedded: cannot fail for the kinds above
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// Default is the built-in default plan, examples/default.yaml: what count
// runs when nothing else chooses, and the model's fallback.
func Default() (ir.Plan, error) {
	data, err := FS.ReadFile("default.yaml")
	if err != nil {
		return ir.Plan{}, fmt.Errorf("the built-in default plan: %w", err)
	}
	p, err := ir.Parse(data, "examples/default.yaml")
	if err != nil {
		return ir.Plan{}, fmt.Errorf("the built-in default plan: %w", err) // a build defect: tests parse it
	}
	return p, nil
}
