// Command gengolden writes the CUDA source and the launch manifest of every
// preset that package gen implements into a directory (generated/ via
// `make generate`): NAME.cu and NAME.json per preset, and index.json saying
// which presets were generated and why the others were not. It removes the
// .cu and .json files it no longer writes, so the directory reproduces byte
// for byte.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
)

// entry is one preset's line in index.json.
type entry struct {
	Preset   string `json:"preset"`
	Plan     string `json:"plan"`
	Source   string `json:"source,omitempty"`
	Manifest string `json:"manifest,omitempty"`
	Skipped  string `json:"skipped,omitempty"` // why no source was generated
}

func main() {
	out := flag.String("o", "generated", "output directory")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gengolden:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	want, err := files()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		return err
	}
	for _, f := range old {
		base := filepath.Base(f)
		if _, keep := want[base]; !keep && (strings.HasSuffix(base, ".cu") || strings.HasSuffix(base, ".json")) {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	for name, data := range want {
		path := filepath.Join(dir, name)
		if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, data) {
			continue
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// files returns the directory's content by file name.
func files() (map[string][]byte, error) {
	files := map[string][]byte{}
	var index []entry
	for _, p := range ir.Presets() {
		e := entry{Preset: p.Prefix, Plan: p.Name()}
		if err := gen.Check(p); err != nil {
			e.Skipped = err.Error()
			index = append(index, e)
			continue
		}
		o, err := gen.Generate(p, gen.DefaultTarget())
		if err != nil {
			return nil, err
		}
		man, err := json.MarshalIndent(o.Manifest, "", "  ")
		if err != nil {
			return nil, err
		}
		e.Source, e.Manifest = p.Prefix+".cu", p.Prefix+".json"
		files[e.Source] = []byte(o.Source)
		files[e.Manifest] = append(man, '\n')
		index = append(index, e)
	}
	idx, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return nil, err
	}
	files["index.json"] = append(idx, '\n')
	return files, nil
}
