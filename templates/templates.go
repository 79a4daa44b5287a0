// Package templates holds the CUDA C++ partials that package gen fills in:
// one file per IR value (an iterator, an intersection) plus the file's
// opening and the width helpers. They are Go text/template files, embedded
// so the generator needs no files at run time. What no plan changes (types,
// searches, the count reduction) is the header tcgen.cuh, which every
// generated source includes and the runtime hands to NVRTC.
//
// Each partial defines one named template. gen renders the prelude once, then
// for every class "class" (its namespace and constants), "isect_<name>" and
// "iter_<name>", and closes the file with nothing else: the partials never
// call each other by computed names, so the composition lives in Go. The
// class's opening declares only the group helpers and optional constants
// its kernel code refers to (gen renders the kernel first and reads them).
//
// The package imports nothing of tcgen.
package templates

import "embed"

// FS holds the partials (*.cu.tmpl).
//
//go:embed *.cu.tmpl
var FS embed.FS

// PreludeName is the name under which sources include Prelude.
const PreludeName = "tcgen.cuh"

// Prelude is the header tcgen.cuh: the fixed-width types, the warp
// constants and the tc:: helpers every generated source shares.
//
//go:embed tcgen.cuh
var Prelude string

// Headers returns the headers a generated source (or CheckLists) may
// include, by include name: what the compiler must be given with it.
func Headers() map[string]string { return map[string]string{PreludeName: Prelude} }

// CheckLists holds fixed kernels, not partials: the GPU's checks of a CSR
// file's lists after the upload, and the unpacking of packed lists before
// them (runtime/executor/upload.go). It includes tcgen.cuh.
//
//go:embed check_lists.cu
var CheckLists string

// Partition holds the fixed helper kernels of a count in partitions (the
// resident block's src, a pair's work list, the pairs' sum:
// runtime/executor/partition.go). It includes tcgen.cuh.
//
//go:embed partition.cu
var Partition string

// Pattern matches every partial in FS.
const Pattern = "*.cu.tmpl"
