package executor_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// CPU reference of Bisson's bitmap kernels (templates/isect_bitmap.cu.tmpl,
// templates/iter_bisson.cu.tmpl), step for step: the grid-stride
// assignment of vertices to groups, each group's slice of the scratch
// (n bits) or the block's shared bitmap of bitmapBits bits when N+(u)'s
// span fits, the window indexing x = w - lo with u32 wrap-around, the
// teams' even split of the 2-hop lists with the same prefix sums and
// binary lifting as the shuffles, and the clearing of the words set. It
// checks that every bitmap is zero after the kernel and that every 2-hop
// entry is probed exactly once.

type bissonShape struct {
	width, block int
	bitmapBits   uint32 // used when width == block
}

// bissonCount counts the triangles of o as a bitmap class of shape sh with
// grid blocks would, using scratch words per group.
func bissonCount(t testing.TB, o *graph.Oriented, sh bissonShape, grid int, warp int) (c, inShared uint64) {
	off, adj := o.Offsets, o.Adj
	n := uint64(o.N())
	w, blk := sh.width, sh.block
	groups := blk / w
	team := min(w, warp)
	shared := w == blk
	words := gen.Scratch{Groups: groups, BitsPerVertex: 1}.WordsPerGroup(n) * 2 // u32 words
	scratch := make([]uint32, uint64(grid*groups)*words)
	var sm []uint32
	if shared {
		sm = make([]uint32, sh.bitmapBits/32)
	}
	// Item i goes to group (i mod grid*groups): blockIdx.x * GROUPS + gindex().
	for i := range n {
		g := i % uint64(grid*groups)
		u := uint32(i)
		a0, a1 := off[u], off[u+1]
		if a1-a0 < 2 {
			continue
		}
		lo := adj[a0]
		span := adj[a1-1] - lo + 1
		bm := scratch[g*words : (g+1)*words]
		if shared && span <= sh.bitmapBits {
			bm = sm
			inShared++
		}
		for j := a0; j < a1; j++ { // bm_build: lanes j = a0 + lane + k*WIDTH, order immaterial
			x := adj[j] - lo
			bm[x>>5] |= 1 << (x & 31)
		}
		test := func(wv uint32) uint64 {
			x := wv - lo
			if x < span {
				return uint64(bm[x>>5]>>(x&31)) & 1
			}
			return 0
		}
		probed := uint64(0)
		if team == 1 {
			for j := a0; j < a1; j++ {
				v := adj[j]
				for k := off[v]; k < off[v+1]; k++ {
					c += test(adj[k])
					probed++
				}
			}
		} else {
			// The group's teams: first = glane() - tl, stride WIDTH.
			for first := 0; first < w; first += team {
				for j0 := a0 + uint64(first); j0 < a1; j0 += uint64(w) {
					vb := make([]uint64, team)
					incl := make([]uint64, team)
					excl := make([]uint64, team)
					for tl := range team {
						var dv uint64
						if j := j0 + uint64(tl); j < a1 {
							v := adj[j]
							vb[tl] = off[v]
							dv = off[v+1] - off[v]
						}
						incl[tl] = dv
						if tl > 0 {
							incl[tl] += incl[tl-1]
						}
						excl[tl] = incl[tl] - dv
					}
					total := incl[team-1]
					for p0 := uint64(0); p0 < total; p0 += uint64(team) {
						for tl := range team {
							p := p0 + uint64(tl)
							k := 0
							for step := team / 2; step > 0; step >>= 1 {
								if incl[k+step-1] <= p {
									k += step
								}
							}
							if p < total {
								if p < excl[k] || p >= incl[k] {
									t.Fatalf("vertex %d: position %d assigned to lane %d holding [%d, %d)", u, p, k, excl[k], incl[k])
								}
								c += test(adj[vb[k]+(p-excl[k])])
								probed++
							}
						}
					}
				}
			}
		}
		var want uint64
		for j := a0; j < a1; j++ {
			want += off[adj[j]+1] - off[adj[j]]
		}
		if probed != want {
			t.Fatalf("vertex %d: %d probes, %d 2-hop entries", u, probed, want)
		}
		for j := a0; j < a1; j++ { // bm_clear
			bm[(adj[j]-lo)>>5] = 0
		}
	}
	for k, x := range scratch {
		if x != 0 {
			t.Fatalf("scratch word %d is %#x after the kernel", k, x)
		}
	}
	for k, x := range sm {
		if x != 0 {
			t.Fatalf("shared word %d is %#x after the kernel", k, x)
		}
	}
	return c, inShared
}

var bissonShapes = []bissonShape{
	{1, 256, 0}, {2, 64, 0}, {4, 128, 0}, {8, 32, 0}, {16, 256, 0}, {32, 256, 0}, {32, 32, 0},
	{256, 256, 1 << 18}, {64, 64, 1 << 10}, {512, 512, 1 << 12}, {1024, 1024, 1 << 10},
}

func TestBissonReference(t *testing.T) {
	for _, rg := range refGraphs(t) {
		want := graph.Oracle(rg.g)
		for _, oc := range refOrients {
			o := graph.Orient(rg.g, oc.by, oc.relabel)
			for _, sh := range bissonShapes {
				for _, grid := range []int{1, 3} {
					if got, _ := bissonCount(t, o, sh, grid, 32); got != want {
						t.Errorf("%s, %s, width %d block %d bits %d, grid %d: %d triangles, want %d",
							rg.name, oc.name, sh.width, sh.block, sh.bitmapBits, grid, got, want)
					}
				}
			}
		}
	}
}

// TestBissonReferenceDatasets: the shared datasets under the preset's
// orientation (degree, no relabel) with the variant the guard picks, and
// the block variant with a small shared bitmap so that both bitmaps serve.
func TestBissonReferenceDatasets(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	p, _ := ir.Preset("bisson")
	var inShared uint64
	for _, f := range refDatasets(t) {
		g, _, err := graph.Open(f, graph.ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want := graph.Oracle(g)
		o := graph.Orient(g, graph.ByDegree, false)
		avg := float64(g.Edges()) / float64(max(g.N(), 1))
		var picked ir.Class
		for _, v := range p.Guard.Variants {
			if avg >= v.Lo && (v.Hi == 0 || avg < v.Hi) {
				picked = v.Classes[0]
			}
		}
		shapes := []bissonShape{{picked.EffectiveWidth(), picked.EffectiveBlock(), 1 << 18}, {256, 256, 1 << 10}}
		for _, sh := range shapes {
			got, used := bissonCount(t, o, sh, 7, 32)
			if got != want {
				t.Errorf("%s, width %d block %d: %d triangles, want %d", filepath.Base(f), sh.width, sh.block, got, want)
			}
			inShared += used
		}
	}
	if inShared == 0 {
		t.Error("no vertex used the shared bitmap")
	}
	t.Logf("%d vertices used the shared bitmap", inShared)
}

// TestBissonGenerated: the three variants lower to the kernels described in
// gen/vertex_bitmap.go: a global n-bit bitmap per group (scratch), a shared one
// only for the block class, grids capped at the resident blocks.
func TestBissonGenerated(t *testing.T) {
	p, _ := ir.Preset("bisson")
	out, err := gen.Generate(p, gen.DefaultTarget())
	if err != nil {
		t.Fatal(err)
	}
	m := out.Manifest
	if m.Feature != ir.FeatureAvgOutDeg || len(m.Variants) != 3 {
		t.Fatalf("manifest %+v", m)
	}
	for vi, want := range []struct{ width, groups, shared int }{{1, 256, 0}, {32, 8, 0}, {256, 1, 32 << 10}} {
		c := m.Variants[vi].Classes[0]
		s := c.Scratch
		if c.Width != want.width || s == nil || s.Groups != want.groups || s.BitsPerVertex != 1 || !s.Zeroed ||
			c.StaticSharedBytes != want.shared || c.Grid.ItemsPerBlock != want.groups || c.Grid.BlocksPerSM != 2048/c.Block {
			t.Errorf("variant %d: class %+v scratch %+v", vi, c, s)
		}
	}
	for _, want := range []string{"atomicOr(bm + (x >> 5)", "bm[x >> 5] |= 1u << (x & 31);", "span <= BITMAP_BITS ? gsm : gbm",
		"constexpr u32 BITMAP_BITS = 262144;", "scratch + ((u64)blockIdx.x * GROUPS + gindex()) * scratch_words"} {
		if !strings.Contains(out.Source, want) {
			t.Errorf("bisson source lacks %q", want)
		}
	}
	if !slices.Contains(m.Args, "scratch u64*") {
		t.Errorf("args %v", m.Args)
	}
	// Every shape the IR allows generates: widths 1..32 and the block, all
	// bitmap sizes (the shared one only with width == block).
	for _, blk := range []int{32, 64, 256, 1024} {
		for _, w := range []int{1, 2, 4, 8, 16, 32, blk} {
			for _, bits := range []int64{1 << 10, 1 << 14, 1 << 18} {
				q := ir.Plan{Prefix: "bm", Classes: []ir.Class{{Select: ir.Selector{Key: ir.KeyOutDegree},
					Strategy: ir.Strategy{Iterator: ir.IterVertex, Intersection: ir.Bitmap, Width: w, Block: blk,
						Params: map[string]int64{ir.ParamBitmapBits: bits}}}}}
				if err := q.Validate(); err != nil {
					t.Errorf("width %d block %d bits %d: %v", w, blk, bits, err)
					continue
				}
				if _, err := gen.Generate(q, gen.DefaultTarget()); err != nil {
					t.Errorf("width %d block %d bits %d: %v", w, blk, bits, err)
				}
			}
		}
	}
}
