package executor_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"math/bits"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// The fake device's dense rows (gen/edge_bitmap.go, templates/iter_dense.cu.tmpl):
// the rows kernel first fills the whole matrix with ones, as stale content
// of an earlier pass or class would be, then writes each vertex's span and
// its words as the template does; the class kernel reads the aligned quads
// over the words both spans cover and masks the rest, as the template does,
// so a span or mask computed wrong miscounts here.

func (d *fakeDevice) launchRows(c gen.Class, grid, block gpu.Dim3, args []any) error {
	if len(args) != len(gen.RowsArgs) {
		return fmt.Errorf("rows kernel %s: %d args, want %d", c.Dense.Rows.Kernel, len(args), len(gen.RowsArgs))
	}
	off, adj, n := args[0].(*fakeBuf), args[1].(*fakeBuf), uint64(args[2].(uint32))
	rows, ok := args[3].(*fakeBuf)
	words := args[4].(uint64)
	if !ok || words != gen.SquareWords(n) || uint64(len(rows.data)) < gen.SquareBytes(n) {
		return fmt.Errorf("rows kernel %s: matrix %T of %d words a row for n=%d", c.Dense.Rows.Kernel, args[3], words, n)
	}
	if grid.X != c.Dense.Rows.Grid.Blocks(n, 4) || block.X != uint32(c.Dense.Rows.Block) {
		return fmt.Errorf("rows kernel %s: launch %v %v", c.Dense.Rows.Kernel, grid, block)
	}
	for i := range rows.data {
		rows.data[i] = 0xff
	}
	for v := range n {
		b0, b1 := off.u64(v), off.u64(v+1)
		span := uint64(1) // empty: lo 1 > hi 0
		if b0 < b1 {
			base := v * words * 2 // u32 words
			lo, hi := uint64(adj.u32(b0)>>5), uint64(adj.u32(b1-1)>>5)
			for k := lo; k <= hi; k++ {
				binary.LittleEndian.PutUint32(rows.data[4*(base+k):], 0)
			}
			for j := b0; j < b1; j++ {
				x := adj.u32(j)
				at := 4 * (base + uint64(x>>5))
				binary.LittleEndian.PutUint32(rows.data[at:], binary.LittleEndian.Uint32(rows.data[at:])|1<<(x&31))
			}
			span = hi<<32 | lo
		}
		binary.LittleEndian.PutUint64(rows.data[8*(n*words+v):], span)
	}
	return nil
}

// denseEdge counts the edge (u, v) as the class kernel does: the words both
// spans cover, by aligned quads, masking the quads' words outside them.
func denseEdge(n uint64, rows *fakeBuf, words uint64, u, v uint32) uint64 {
	su, sv := rows.u64(n*words+uint64(u)), rows.u64(n*words+uint64(v))
	lo := max(uint32(su), uint32(sv))
	hi := min(uint32(su>>32), uint32(sv>>32))
	var cnt uint64
	for q := lo &^ 3; lo <= hi && q <= hi; q += 4 {
		for k := q; k < q+4; k++ {
			ru := binary.LittleEndian.Uint32(rows.data[4*(uint64(u)*words*2+uint64(k)):])
			rv := binary.LittleEndian.Uint32(rows.data[4*(uint64(v)*words*2+uint64(k)):])
			if k >= lo && k <= hi {
				cnt += uint64(bits.OnesCount32(ru & rv))
			}
		}
	}
	return cnt
}

func denseClass(name string, lo, hi int64) ir.Class {
	return ir.Class{Name: name, Select: ir.Selector{Key: ir.KeyOutDegree, Lo: lo, Hi: hi},
		Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Bitmap, Width: 1, Block: 128}}
}

// TestDenseFake runs dense-row plans through the fake device against the
// oracle: one class, under id and degree orders with and without
// relabelling, beside a merge class and beside Bisson's zeroed bitmaps in
// the shared scratch, on graphs with hubs, empty lists and none at all.
func TestDenseFake(t *testing.T) {
	merge := ir.Class{Name: "lo", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 4},
		Strategy: ir.Strategy{Iterator: ir.IterEdge, Intersection: ir.Merge, Width: 1, Block: 128}}
	bisson := ir.Class{Name: "lo", Select: ir.Selector{Key: ir.KeyOutDegree, Lo: 0, Hi: 4},
		Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Bitmap, Width: 32, Block: 128}}
	reverse := denseClass("all", 0, 0)
	reverse.Params = map[string]int64{ir.ParamReverse: 1}
	plans := []ir.Plan{
		{Prefix: "dense_deg", Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{denseClass("all", 0, 0)}},
		{Prefix: "dense_deg_norelabel", Orientation: ir.OrientDegree, Classes: []ir.Class{denseClass("all", 0, 0)}},
		{Prefix: "dense_id", Orientation: ir.OrientID, Classes: []ir.Class{denseClass("all", 0, 0)}},
		{Prefix: "dense_reverse", Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{reverse}},
		{Prefix: "dense_merge", Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{merge, denseClass("hi", 4, 0)}},
		{Prefix: "dense_bisson", Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{bisson, denseClass("hi", 4, 0)}},
		{Prefix: "dense_two", Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{denseClass("lo", 0, 4), denseClass("hi", 4, 0)}},
	}
	gens := map[string]graph.Generator{
		"rmat10": graph.DefaultRMAT(10),
		"er":     graph.ErdosRenyi{N: 300, M: 6000, Seed: 3},
		"wheel":  graph.Wheel{Rim: 500},
		"hub":    graph.Hub{Leaves: 700, Extra: 2000, Seed: 5},
		"K40":    graph.Complete{N: 40},
		"grid":   graph.Grid{Rows: 20, Cols: 30},
	}
	for _, p := range plans {
		if err := p.Validate(); err != nil {
			t.Fatalf("%s: %v", p.Prefix, err)
		}
		for name, gg := range gens {
			g, _, err := graph.Generate(gg)
			if err != nil {
				t.Fatal(err)
			}
			d := newFakeDevice(t, p, 1<<40)
			res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, g, executor.RunOptions{Repeat: 2})
			if err != nil {
				t.Fatalf("%s on %s: %v", p.Prefix, name, err)
			}
			if want := graph.Oracle(g); res.Triangles != want {
				t.Errorf("%s on %s: %d triangles, want %d", p.Prefix, name, res.Triangles, want)
			}
			// Each pass writes the rows once, just before its first dense class.
			rows, passes := 0, 2 // Repeat 2, no warm-up
			for i, k := range d.launch {
				if c, ok := d.rowsFor[k]; ok {
					rows++
					if i+1 >= len(d.launch) || d.launch[i+1] != c.Kernel {
						t.Errorf("%s on %s: rows kernel %s not followed by its class: %v", p.Prefix, name, k, d.launch)
					}
				}
			}
			dense := false // a dense class had items
			for _, c := range res.PerClass {
				dense = dense || c.Iterator == ir.IterEdge && c.Intersection == ir.Bitmap && c.Items > 0
			}
			if want := map[bool]int{true: passes}[dense]; rows != want {
				t.Errorf("%s on %s: rows written %d times, want %d: %v", p.Prefix, name, rows, want, d.launch)
			}
			if d.allocBytes > res.DeviceBytes {
				t.Errorf("%s on %s: allocated %d bytes, predicted %d", p.Prefix, name, d.allocBytes, res.DeviceBytes)
			}
		}
	}
}

// TestDenseFakeTooLarge: a matrix that does not fit gets the executor's
// error naming the bytes, before anything runs.
func TestDenseFakeTooLarge(t *testing.T) {
	p := ir.Plan{Prefix: "dense", Orientation: ir.OrientDegree, Relabel: true, Classes: []ir.Class{denseClass("all", 0, 0)}}
	g, _, err := graph.Generate(graph.ErdosRenyi{N: 20000, M: 40000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := newFakeDevice(t, p, 256<<20+32<<20) // 32 MiB past the executor's headroom; the matrix alone is about 45 MB
	_, err = executor.Run(context.Background(), d, &fakeCompiler{}, p, g, executor.RunOptions{Repeat: 1})
	var tl *executor.TooLargeError
	if n := uint64(g.N()); !errors.As(err, &tl) || tl.Need < n*n/8 {
		t.Fatalf("got %v, want a TooLargeError of at least the matrix", err)
	}
	if len(d.launch) != 0 {
		t.Errorf("launched %v", d.launch)
	}
}
