// Package golden is the one checked-in set of generated code: every preset
// package gen implements, under generated/, and the hybrid specs that pin
// other corners of the generator, under generated/specs/. Each plan has its
// source NAME.cu beside its launch manifest NAME.json; the header the
// sources include (tcgen.cuh) is at the top, and index.json lists the plans
// and the target they were generated for. `make generate` (gen/cmd/gengolden)
// writes the directory and gen's TestGolden compares it with the generator
// (go test ./gen -update rewrites it), so both agree on one set.
package golden

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/ir"
)

// SpecDir is the subdirectory of the specs' files.
const SpecDir = "specs"

// Target is what every golden plan is generated for: the default target
// with 99 KiB of shared memory per block (the smallest opt-in limit of
// compute capability 8.x and 9.0, as `tcgen cuda` assumes), so the specs
// that need dynamic shared memory generate too.
func Target() gen.Target {
	t := gen.DefaultTarget()
	t.MaxSharedPerBlock = 99 << 10
	return t
}

// Specs are hybrids a user could write, beyond the presets: two
// intersections split by out-degree, a guard, a work-keyed list, edge chunks
// larger than the block, a hash table beyond the static limit, bitwise and
// dense classes, local outputs per vertex and per edge, and Skiff's other organisations and schemes.
func Specs() []ir.Plan {
	return append([]ir.Plan{
		{
			Prefix: "spec_merge_hash", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{
				{Name: "thread", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 16},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 256}},
				{Name: "warp", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 16},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Hash, Width: 32, Block: 256}},
			},
		},
		{
			Prefix: "spec_guard", Orientation: ir.OrientDegree,
			Guard: &ir.Guard{Feature: ir.FeatureAvgOutDeg, Variants: []ir.Variant{
				{Lo: 0, Hi: 8, Classes: []ir.Class{{Name: "merge", Select: ir.Selector{Key: ir.KeyOutDegree},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 4, Block: 128}}}},
				{Lo: 8, Classes: []ir.Class{
					{Name: "small", Select: ir.Selector{Key: ir.KeyWork, Lo: 0, Hi: 64},
						Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.BinarySearch, Width: 2, Block: 128}},
					{Name: "big", Select: ir.Selector{Key: ir.KeyWork, Lo: 64},
						Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Hash, Width: 128, Block: 128,
							Params: map[string]int64{ir.ParamBuckets: 512, ir.ParamSlots: 2}}},
				}},
			}},
		},
		{ // the vertex merge reading its next vertices ahead: the pipeline of three on resident blocks,
			// the next bounds with groups of 4 lanes
			Prefix: "spec_vertex_prefetch", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{
				{Name: "short", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 8},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 1, Block: 256,
						Params: map[string]int64{ir.ParamResident: 1, ir.ParamPrefetch: 2}}},
				{Name: "long", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 8},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 4, Block: 128,
						Params: map[string]int64{ir.ParamResident: 1, ir.ParamPrefetch: 1}}},
			},
		},
		{ // the small graphs' edge merge grouped by target, its items carrying N+(v)'s word (carry)
			Prefix: "spec_carry", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree},
				Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128,
					Params: map[string]int64{ir.ParamTile: 8, ir.ParamReverse: 1, ir.ParamAlign: 1, ir.ParamTarget: 1, ir.ParamCarry: 1}}}},
		},
		{
			Prefix: "spec_chunk", Orientation: ir.OrientID,
			Classes: []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree},
				Strategy: ir.Strategy{Iterator: ir.IterEdgeChunk, Intersection: ir.BinarySearch, Width: 128, Block: 128,
					Params: map[string]int64{ir.ParamChunk: 1000}}}},
		},
		{
			Prefix: "spec_dynshared", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree},
				Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Hash, Width: 32, Block: 1024,
					Params: map[string]int64{ir.ParamBuckets: 256, ir.ParamSlots: 1}}}},
		},
		{ // bitwise classes of two slice sizes, a group and a block per edge, 2-D partitions (gen/edge_bitwise.go)
			Prefix: "spec_tcbw", Orientation: ir.OrientTCBW,
			Classes: []ir.Class{
				{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 64},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Bitwise, Width: 4, Block: 128,
						Params: map[string]int64{ir.ParamSliceBits: 64}}},
				{Name: "high", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 64},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Bitwise, Width: 256, Block: 256,
						Params: map[string]int64{ir.ParamP1: 4, ir.ParamP2: 8, ir.ParamSliceBits: 16}}},
			},
		},
		{ // tiled merges, the edges in reverse, beside dense rows (gen/edge_bitmap.go)
			Prefix: "spec_tile_dense", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{
				{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 16},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamTile: 8, ir.ParamReverse: 1}}},
				{Name: "high", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 16},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Bitmap, Width: 1, Block: 256,
						Params: map[string]int64{ir.ParamReverse: 1}}},
			},
		},
		{ // tiled merges reading N+(v) from the aligned copy: a thread per edge (tile 8), a thread per vertex (tile 4)
			Prefix: "spec_aligned", Orientation: ir.OrientDegree, Relabel: true,
			Classes: []ir.Class{
				{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 16},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamTile: 8, ir.ParamReverse: 1, ir.ParamAlign: 1}}},
				{Name: "high", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 16},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 1, Block: 256,
						Params: map[string]int64{ir.ParamTile: 4, ir.ParamAlign: 1}}},
			},
		},
		{ // per-vertex counts: a tiled thread-per-edge merge, vertex merges of a thread and a warp (templates/local.cu.tmpl)
			Prefix: "spec_local_vertex", Orientation: ir.OrientDegree, Relabel: true, Output: ir.OutputVertex,
			Classes: []ir.Class{
				{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 16},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128,
						Params: map[string]int64{ir.ParamTile: 8, ir.ParamReverse: 1}}},
				{Name: "mid", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 16, Hi: 256},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 1, Block: 256}},
				{Name: "high", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 256},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 32, Block: 256}},
			},
		},
		{ // per-edge counts: a vertex merge of four lanes, a tiled vertex merge, a warp's binary searches with cached splitters (templates/local.cu.tmpl)
			Prefix: "spec_local_edge", Orientation: ir.OrientDegree, Relabel: true, Output: ir.OutputEdge,
			Classes: []ir.Class{
				{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 16},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 4, Block: 128}},
				{Name: "high", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 16, Hi: 256},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Merge, Width: 1, Block: 256,
						Params: map[string]int64{ir.ParamTile: 4}}},
				{Name: "top", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 256},
					Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.BinarySearch, Width: 32, Block: 128,
						Params: map[string]int64{ir.ParamLevels: 3}}},
			},
		},
	}, skiffSpecs()...)
}

// skiffSpecs are Skiff's other organisations and schemes: the block
// organisations with the trie, the index and degree organisations over
// TRUST's bucket lists, and the trie on edges (gen/hash.go).
func skiffSpecs() []ir.Plan {
	one := func(prefix string, it ir.Iterator, w, b int, params map[string]int64) ir.Plan {
		return ir.Plan{Prefix: prefix, Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{
			{Name: "low", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 2}, Skip: true},
			{Name: "all", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 2},
				Strategy: ir.Strategy{Iterator: it, Intersection: ir.Hash, Width: w, Block: b, Params: params}}}}
	}
	H, B := ir.SchemeHopscotch, ir.SchemeBuckets
	return []ir.Plan{
		one("skiff_block_degree", ir.IterVertex, 256, 256, map[string]int64{ir.ParamScheme: H, ir.ParamCTA: ir.CTABlockDegree, ir.ParamHop: 16, ir.ParamBuckets: 1024, ir.ParamSlots: 8}),
		one("skiff_block_index", ir.IterVertex, 128, 128, map[string]int64{ir.ParamScheme: H, ir.ParamCTA: ir.CTABlockIndex, ir.ParamBuckets: 512, ir.ParamSlots: 8}),
		one("skiff_fixed_lane", ir.IterVertex, 1, 64, map[string]int64{ir.ParamScheme: H, ir.ParamCTA: ir.CTAFixed, ir.ParamHop: 4, ir.ParamBuckets: 16, ir.ParamSlots: 8}),
		one("skiff_buckets_warp_index", ir.IterVertex, 32, 256, map[string]int64{ir.ParamScheme: B, ir.ParamCTA: ir.CTAWarpIndex}),
		one("skiff_buckets_block_index", ir.IterVertex, 256, 256, map[string]int64{ir.ParamScheme: B, ir.ParamCTA: ir.CTABlockIndex, ir.ParamBuckets: 256}),
		one("skiff_edge", ir.IterEdge, 32, 256, map[string]int64{ir.ParamScheme: H, ir.ParamHop: 8, ir.ParamBuckets: 128, ir.ParamSlots: 4}),
	}
}

// Plans are the generatable presets, then the specs.
func Plans() []ir.Plan {
	var ps []ir.Plan
	for _, p := range ir.Presets() {
		if gen.Check(p) == nil {
			ps = append(ps, p)
		}
	}
	return append(ps, Specs()...)
}

// Index is index.json.
type Index struct {
	Target gen.Target `json:"target"`
	Plans  []Entry    `json:"plans"`
}

// Entry is one plan's line in index.json.
type Entry struct {
	Prefix   string `json:"prefix"`
	Plan     string `json:"plan"`
	Preset   bool   `json:"preset,omitempty"`
	Source   string `json:"source,omitempty"`
	Manifest string `json:"manifest,omitempty"`
	Skipped  string `json:"skipped,omitempty"` // why a preset has no source
}

// Files returns the directory's content by slash-separated path.
func Files() (map[string][]byte, error) {
	files := map[string][]byte{}
	idx := Index{Target: Target()}
	add := func(p ir.Plan, dir string, preset bool) error {
		e := Entry{Prefix: p.Prefix, Plan: p.Name(), Preset: preset}
		if err := gen.Check(p); err != nil {
			if !preset {
				return err // a spec is there to be generated
			}
			e.Skipped = err.Error()
			idx.Plans = append(idx.Plans, e)
			return nil
		}
		o, err := gen.Generate(p, idx.Target)
		if err != nil {
			return err
		}
		man, err := json.MarshalIndent(o.Manifest, "", "  ")
		if err != nil {
			return err
		}
		e.Source, e.Manifest = dir+p.Prefix+".cu", dir+p.Prefix+".json"
		files[e.Source] = []byte(o.Source)
		for name, text := range o.Headers { // tcgen.cuh, once for all
			files[name] = []byte(text)
		}
		files[e.Manifest] = append(man, '\n')
		idx.Plans = append(idx.Plans, e)
		return nil
	}
	for _, p := range ir.Presets() {
		if err := add(p, "", true); err != nil {
			return nil, err
		}
	}
	for _, p := range Specs() {
		if err := add(p, SpecDir+"/", false); err != nil {
			return nil, err
		}
	}
	data, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return nil, err
	}
	files["index.json"] = append(data, '\n')
	return files, nil
}

// owned reports whether a file at rel (slash-separated) is one Write
// manages: a .cu, .cuh or .json file of the directory or of SpecDir.
func owned(rel string) bool {
	dir, base := filepath.Split(filepath.ToSlash(rel))
	if dir != "" && dir != SpecDir+"/" {
		return false
	}
	return strings.HasSuffix(base, ".cu") || strings.HasSuffix(base, ".cuh") || strings.HasSuffix(base, ".json")
}

// Existing returns the files of dir that Write manages, by relative path.
func Existing(dir string) ([]string, error) {
	var have []string
	for _, pat := range []string{"*", SpecDir + "/*"} {
		fs, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(pat)))
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			rel, err := filepath.Rel(dir, f)
			if err != nil {
				return nil, err
			}
			if rel = filepath.ToSlash(rel); owned(rel) {
				have = append(have, rel)
			}
		}
	}
	slices.Sort(have)
	return have, nil
}

// Write makes dir hold exactly files: it removes the managed files it no
// longer holds and rewrites only those that changed, so the directory
// reproduces byte for byte.
func Write(dir string, files map[string][]byte) error {
	have, err := Existing(dir)
	if err != nil {
		return err
	}
	for _, rel := range have {
		if _, keep := files[rel]; !keep {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
				return err
			}
		}
	}
	for rel, data := range files {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if cur, err := os.ReadFile(path); err == nil && bytes.Equal(cur, data) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
