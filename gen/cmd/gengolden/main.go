// Command gengolden writes the one golden set of generated code (package
// gen/internal/golden) into a directory, generated/ via `make generate`:
// NAME.cu and NAME.json per preset, the same for the specs under specs/,
// and index.json. It removes the files it no longer writes, so the
// directory reproduces byte for byte.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/tcgen/tcgen/gen/internal/golden"
)

func main() {
	out := flag.String("o", "generated", "output directory")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gengolden:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	files, err := golden.Files()
	if err != nil {
		return err
	}
	return golden.Write(dir, files)
}
