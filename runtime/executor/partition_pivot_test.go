package executor_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
)

// pivotPartPlan is a pivot plan for counts in partitions on small graphs:
// a core of core ids (0: none) beside classes, the YAML of its class list.
func pivotPartPlan(t *testing.T, core int, classes string) ir.Plan {
	t.Helper()
	spec := "prefix: ppart\norientation: degree\nrelabel: true\n"
	if core > 0 {
		spec += fmt.Sprintf("core: %d\n", core)
	}
	p, err := ir.Parse([]byte(spec+"classes:\n"+classes), "pivot-part.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pivotClass is one pivot class's YAML: outdeg in [lo, hi) (hi 0: no
// bound), width and params.
func pivotClassYAML(name string, lo, hi, width int, params string) string {
	sel := fmt.Sprintf("{key: outdeg, lo: %d}", lo)
	if hi > 0 {
		sel = fmt.Sprintf("{key: outdeg, lo: %d, hi: %d}", lo, hi)
	}
	return fmt.Sprintf("  - name: %s\n    select: %s\n    iterator: pivot\n    intersection: hash\n    width: %d\n    block: 256\n    params: {%s}\n", name, sel, width, params)
}

// pivotPartPlans are pivot plans that reach the kernels' paths on small
// graphs: items split (small item_work), pivots above a table (big), hub
// bitmaps, teams, two classes (two item lists, one spilling its tables to
// global memory), a core, and a guard whose pivot variant is not the
// first (the bin's variant index).
func pivotPartPlans(t *testing.T) map[string]ir.Plan {
	small := "table: 64, item_work: 32, build_ratio: 1, hub_bits: 256, queue: 1, unroll: 2"
	guarded, err := ir.Parse([]byte(`prefix: ppartg
orientation: degree
relabel: true
guard:
  feature: edges
  variants:
    - lo: 0
      hi: 10
      classes:
        - name: merge
          select: {key: outdeg, lo: 0}
          iterator: edge
          intersection: merge
          width: 1
          block: 128
    - lo: 10
      classes:
`+indent(pivotClassYAML("all", 0, 0, 32, small), "      ")), "guarded.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return map[string]ir.Plan{
		"small items": pivotPartPlan(t, 0, pivotClassYAML("all", 0, 0, 32, small)),
		"teams":       pivotPartPlan(t, 0, pivotClassYAML("all", 0, 0, 8, "table: 128, item_work: 64, hub_bits: 0")),
		"two classes": pivotPartPlan(t, 0, pivotClassYAML("low", 0, 8, 32, "table: 64, item_work: 64, hub_bits: 512")+pivotClassYAML("high", 8, 0, 32, "table: 128, item_work: 256, spill: 1, queue: 2")),
		"core":        pivotPartPlan(t, 1024, pivotClassYAML("all", 0, 0, 32, small)),
		"pivot-one":   examplePlan(t, "pivot-one"),
		"guarded":     guarded,
	}
}

// indent prefixes every line of s with pre.
func indent(s, pre string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pre + l
		}
	}
	return strings.Join(lines, "")
}

// pivotPartGraphs are graphs with hubs and without: RMAT, a star (its
// leaves' in-edges have no tails: pairs without work), a wheel, a clique,
// Barabasi-Albert (hubs at low ids, relabelled high), a block of
// disconnected pieces.
func pivotPartGraphs(t *testing.T) map[string]*graph.Graph {
	gens := map[string]graph.Generator{
		"rmat10": graph.DefaultRMAT(10),
		"rmat12": graph.DefaultRMAT(12),
		"star":   graph.Star{Leaves: 300},
		"wheel":  graph.Wheel{Rim: 500},
		"k40":    graph.Complete{N: 40},
		"ba":     graph.BarabasiAlbert{N: 3000, M: 6, Seed: 3},
	}
	gs := map[string]*graph.Graph{}
	for name, gg := range gens {
		g, _, err := graph.Generate(gg)
		if err != nil {
			t.Fatal(err)
		}
		gs[name] = g
	}
	return gs
}

// pivotCap is a cap whose room beside the offsets, the core's matrix and
// the global tables of a spill-global class (256 KiB at most on the fake
// device) holds 12 bytes for every b entries of the rows: at b = 8, under
// half of the rows at 4 bytes an entry, so 2 blocks or more.
func pivotCap(g *graph.Graph, b float64, p ir.Plan) uint64 {
	n, m := uint64(g.N()), g.Edges()
	spill := uint64(0)
	for _, c := range p.Classes {
		if c.Params[ir.ParamSpill] == ir.SpillGlobal {
			spill = 256 << 10
		}
	}
	return (n+1)*8 + uint64(p.Core*p.Core/8) + spill + 4096 + uint64(float64(m)*12/b)
}

// TestPartitionPivotFakeExact: counts in partitions with pivot plans equal
// the oracle on graphs with hubs and without (every plan on RMAT and
// Barabasi-Albert, one on all), under caps of 2 and 4 bytes an edge above
// about the tightest that holds them (2 blocks or more on graphs of a
// thousand edges) and one that holds a single block, with chunks of the
// default and of a few rows, every allocation within the cap.
func TestPartitionPivotFakeExact(t *testing.T) {
	graphs := pivotPartGraphs(t)
	for pname, p := range pivotPartPlans(t) {
		for gname, g := range graphs {
			if pname != "small items" && gname != "rmat12" && gname != "ba" {
				continue // the other plans on the graphs with hubs
			}
			want := graph.Oracle(g)
			for _, chunk := range []uint64{0, max(256, 4*maxOut(g))} { // a row fits a chunk
				tight := tightestCap(t, p, g, chunk)
				for i, capBytes := range []uint64{tight + 2*g.Edges(), tight + 4*g.Edges(), 1 << 30} {
					t.Run(fmt.Sprintf("%s/%s/%d/%d", pname, gname, chunk, i), func(t *testing.T) {
						res := runPartitioned(t, p, g, capBytes, chunk)
						st := res.Partition
						if res.Triangles != want || st.Family != "pivot" {
							t.Errorf("%d triangles by %s, want %d by the pivot (%+v)", res.Triangles, st.Family, want, *st)
						}
						if (i == 0 && g.Edges() >= 1000 && st.Blocks < 2) || (i == 2 && st.Blocks != 1) {
							t.Errorf("%+v: want 2 blocks or more under a cap of 2 bytes an edge above the tightest, 1 under 1 GiB", *st)
						}
					})
				}
			}
		}
	}
}

// TestPartitionPivotFakeCore: a cap that holds the cut with the core's
// matrix keeps the core (its triangles counted per block by the core
// kernel), one that holds the cut only without it drops it, both exact;
// a graph whose vertices are all core ids is counted by the core kernel
// alone (no pair, nothing streamed).
func TestPartitionPivotFakeCore(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(12))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	p := pivotPartPlan(t, 1024, pivotClassYAML("all", 0, 0, 32, "table: 512, item_work: 256, hub_bits: 1024"))
	without := tightestCap(t, pivotPartPlan(t, 0, pivotClassYAML("all", 0, 0, 32, "table: 512, item_work: 256, hub_bits: 1024")), g, 0)
	for _, c := range []struct {
		capBytes uint64
		core     int
	}{{without, 0}, {without + 1024*1024/8 + 1<<16, 1024}} {
		res := runPartitioned(t, p, g, c.capBytes, 0)
		if st := res.Partition; res.Triangles != want || st.CoreIDs != c.core {
			t.Errorf("cap %d: %d triangles with a core of %d, want %d with %d (%+v)", c.capBytes, res.Triangles, st.CoreIDs, want, c.core, *st)
		}
	}
	k, _, err := graph.Generate(graph.Complete{N: 300}) // 300 vertices, all among the 1024 highest ids
	if err != nil {
		t.Fatal(err)
	}
	res := runPartitioned(t, p, k, pivotCap(k, 3, p), 0)
	if st := res.Partition; res.Triangles != graph.Oracle(k) || st.CoreIDs != 1024 || st.Pairs != 0 || st.BytesCopied != 4*k.Edges()+8*uint64(k.N()+st.Blocks) {
		t.Errorf("k300: %d triangles, want %d, by the core alone, each block copied once (%+v)", res.Triangles, graph.Oracle(k), *st)
	}
}

// tightestCap is, within 1/64, the smallest cap under which p prepares to
// count g in partitions with chunks of chunk bytes (0: the default).
func tightestCap(t *testing.T, p ir.Plan, g *graph.Graph, chunk uint64) uint64 {
	t.Helper()
	dev := newFakeDevice(t, p, 1<<40)
	fits := func(c uint64) bool {
		pt, err := executor.PreparePartitioned(context.Background(), dev, &fakeCompiler{}, p, g, executor.RunOptions{DeviceMemory: c, ChunkBytes: chunk})
		if err != nil {
			if !errors.Is(err, executor.ErrTooLarge) {
				t.Fatal(err)
			}
			return false
		}
		if err := pt.Close(); err != nil {
			t.Fatal(err)
		}
		return true
	}
	lo, hi := 8*uint64(g.N()), 8*uint64(g.N())+64*g.Edges()+1<<20 // lo does not fit, hi does
	for hi-lo > hi/64 {
		if mid := (lo + hi) / 2; fits(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// TestPartitionPivotFakeTightest: under about the smallest cap that holds
// a pivot count in partitions, the blocks are a few vertices each (a
// clique's, RMAT's, whose hubs are a chunk and a block each), with chunks
// of the default and of one row, and the count is exact.
func TestPartitionPivotFakeTightest(t *testing.T) {
	p := pivotPartPlan(t, 0, pivotClassYAML("all", 0, 0, 32, "table: 64, item_work: 32, hub_bits: 256"))
	for _, gg := range []graph.Generator{graph.Complete{N: 40}, graph.DefaultRMAT(8)} {
		g, _, err := graph.Generate(gg)
		if err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []uint64{0, 4 * max(maxOut(g), 1)} {
			c := tightestCap(t, p, g, chunk)
			dev := newFakeDevice(t, p, 1<<40)
			pt, err := executor.PreparePartitioned(context.Background(), dev, &fakeCompiler{}, p, g, executor.RunOptions{DeviceMemory: c, ChunkBytes: chunk})
			if err != nil {
				t.Fatal(err)
			}
			blocks := executor.BlockVertices(pt)
			if err := pt.Close(); err != nil {
				t.Fatal(err)
			}
			res := runPartitioned(t, p, g, c, chunk)
			st := res.Partition
			t.Logf("%T, chunk %d: cap %d: blocks of %v vertices", gg, chunk, c, blocks)
			_, clique := gg.(graph.Complete)
			if res.Triangles != graph.Oracle(g) || uint64(st.Blocks) < uint64(g.N())/8 || (!clique && !slices.Contains(blocks, 1)) {
				t.Errorf("%d triangles, want %d, in blocks of a few vertices, RMAT's hubs a block each (%+v)", res.Triangles, graph.Oracle(g), *st)
			}
		}
	}
}

// TestPartitionPivotFakeStreams: the pivot's pairs count exactly whichever
// stream runs first when the events let it, an own pair as soon as its
// piece of the block is in, and a stream that ignores its waits is caught
// (partition_fake_test.go's TestPartitionFakeStreams for the merge).
func TestPartitionPivotFakeStreams(t *testing.T) {
	p := pivotPartPlan(t, 0, pivotClassYAML("all", 0, 0, 32, "table: 64, item_work: 32, hub_bits: 256, queue: 1"))
	g, _, err := graph.Generate(graph.DefaultRMAT(12))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	capBytes, chunk := pivotCap(g, 3, p), max(256, 4*maxOut(g))
	pt, err := executor.PreparePartitioned(context.Background(), newFakeDevice(t, p, 1<<40), &fakeCompiler{}, p, g, executor.RunOptions{DeviceMemory: capBytes, ChunkBytes: chunk})
	if err != nil {
		t.Fatal(err)
	}
	rows0 := 4 * graph.Orient(g, graph.ByDegree, true).Offsets[executor.BlockVertices(pt)[0]] // the first block's rows
	if err := pt.Close(); err != nil {
		t.Fatal(err)
	}
	for prefer, name := range []string{"copies first", "counts first"} {
		t.Run(name, func(t *testing.T) {
			dev := newFakeDevice(t, p, 1<<40)
			dev.prefer = prefer
			res, err := runPartitionedOn(t, dev, p, g, capBytes, chunk)
			if err != nil {
				t.Fatal(err)
			}
			if st := res.Partition; res.Triangles != want || st.BytesCopied <= 4*g.Edges()+8*uint64(g.N()+st.Blocks) {
				t.Errorf("%d triangles, want %d (%+v: want chunks streamed after a block)", res.Triangles, want, *st)
			}
			// Counts first: the first own pair counts once the block's
			// first piece is in, and the block's next pieces copy after it.
			if prefer == 1 && !blockCopiedAfterCount(dev.ran, rows0) {
				t.Errorf("the first block's rows (%d bytes) were all in before the first count", rows0)
			}
		})
		t.Run(name+"/no waits", func(t *testing.T) {
			dev := newFakeDevice(t, p, 1<<40)
			dev.prefer, dev.noWait = prefer, map[int]bool{prefer: true}
			res, err := runPartitionedOn(t, dev, p, g, capBytes, chunk)
			if err == nil && res.Triangles == want {
				t.Errorf("stream %d ignoring its waits still counted %d: the schedule does not test the events", prefer, want)
			}
		})
	}
}

// blockCopiedAfterCount reports whether, in the first pass, a copy into
// the window's first rows bytes (the first block's rows; the window is the
// buffer of the copy stream's first write, and a write at its start begins
// a block) ran after the first of the plan's kernels on the compute stream
// (the helpers, tcgen_part_*, aside).
func blockCopiedAfterCount(ran []string, rows uint64) bool {
	window, counted := uint64(0), false
	for _, r := range ran {
		var addr, off, n uint64
		if _, err := fmt.Sscanf(r, "0 write %d %d+%d", &addr, &off, &n); err == nil {
			switch {
			case window == 0:
				window = addr
			case addr == window && off == 0:
				return false // the next block
			case counted && addr == window && off+n <= rows:
				return true
			}
		}
		counted = counted || (strings.HasPrefix(r, "1 launch ") && !strings.HasPrefix(r, "1 launch tcgen_part"))
	}
	return false
}
