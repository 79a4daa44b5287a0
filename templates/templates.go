// Package templates holds the CUDA C++ partials that package gen fills in:
// one file per IR value (an iterator, an intersection) plus the shared
// prelude, the width helpers and the count reduction. They are Go
// text/template files, embedded so the generator needs no files at run time.
//
// Each partial defines one named template. gen renders the prelude once, then
// for every class "class" (its namespace and constants), "isect_<name>" and
// "iter_<name>", and closes the file with nothing else: the partials never
// call each other by computed names, so the composition lives in Go.
//
// The package imports nothing of tcgen.
package templates

import "embed"

// FS holds the partials (*.cu.tmpl).
//
//go:embed *.cu.tmpl
var FS embed.FS

// CheckLists holds fixed kernels, not partials: the GPU's checks of a CSR
// file's lists after the upload, and the unpacking of packed lists before
// them (runtime/upload.go).
//
//go:embed check_lists.cu
var CheckLists string

// Pattern matches every partial in FS.
const Pattern = "*.cu.tmpl"
