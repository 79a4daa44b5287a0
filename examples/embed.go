// Package examples holds the example plans and spaces; the binary embeds
// them, so `count` runs examples/default.yaml and `tune` searches
// examples/spaces/default.yaml without copies that could drift.
package examples

import "embed"

// FS holds every example spec and space, at their paths below examples/.
//
//go:embed *.yaml spaces/*.yaml sweeps/*.yaml
var FS embed.FS
