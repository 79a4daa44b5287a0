package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/tcgen/tcgen/examples"
)

// exampleFile says where a spec, space or sweep file named on the command
// line is read from: the disk when a file of that name exists there (a
// path always wins), else the built-in example of kind dir (examples.Plans,
// Spaces or Sweeps) that the name refers to; fsys is nil for the disk.
func exampleFile(dir, name string) (fsys fs.FS, path string) {
	if _, err := os.Stat(name); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil, name
	}
	if p, ok := examples.Lookup(dir, name); ok {
		return examples.FS, p
	}
	return nil, name
}

// builtIn is the label of an embedded example in messages.
func builtIn(p string) string { return "examples/" + strings.TrimPrefix(p, "./") + " (built in)" }

// withExamples adds the built-in names of kind dir to a file-not-found
// error, so that a mistyped name shows what exists.
func withExamples(dir string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return fmt.Errorf("%w (built-in %s: %s)", err, kindName(dir), strings.Join(examples.Names(dir), ", "))
}

func kindName(dir string) string {
	switch dir {
	case examples.Spaces:
		return "spaces"
	case examples.Sweeps:
		return "sweeps"
	}
	return "specs"
}
