// Package schemas holds the JSON Schemas (draft-07) of the files tcgen reads:
// plan specs (spec.schema.json), space files (space.schema.json) and sweep
// files (sweep.schema.json). Its test generates them from the Go types that
// decode the files (ir.Plan, autotune.SpaceFile, sweep.File), their doc
// comments and range tags, and fails when the checked-in ones are stale;
// `go test ./schemas -update` (make generate) rewrites them. An editor with
// the YAML language server checks a file against one given on its first
// line: # yaml-language-server: $schema=../schemas/spec.schema.json
package schemas

//go:generate go test -run ^TestSchemas$ -update .
