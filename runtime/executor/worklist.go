package executor

import (
	"fmt"
	"math/bits"
	goruntime "runtime"
	"sync"
	"sync/atomic"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// WorkList is the items one class of a variant works on.
type WorkList struct {
	Slot  int    // the class's index in the variant (gen.Class.Slot)
	Items string // gen.ItemsVertices or gen.ItemsEdges
	Skip  bool   // a skip class: the items are counted, never listed
	// Count is the number of items of the class.
	Count uint64
	// All: the class takes every item of its domain, so the kernel gets no
	// list and reads item i as vertex or edge i.
	All bool
	// Vertices or Edges hold the item ids in increasing order when !All and
	// !Skip (one of them, by Items).
	Vertices []uint32
	Edges    []uint64
}

// Bytes is the device memory the list takes.
func (w *WorkList) Bytes() uint64 {
	return uint64(len(w.Vertices))*4 + uint64(len(w.Edges))*8
}

// workChunk is the vertices a worker buckets at a time: enough to amortise
// claiming a chunk, few enough that hubs spread over the workers.
const workChunk = 4096

// BuildWorkLists assigns every item of o (each vertex for vertex classes,
// each oriented edge for edge classes) to the class of v whose selector
// holds its key, and returns one list per class, in class order. Items of
// one class keep increasing id order, which keeps neighbouring items (and
// an edge chunk's edges) adjacent in memory. The result does not depend on
// the number of cores.
//
// Keys: out-degree of the item's first vertex (u of a vertex or an edge
// item), or for work-keyed lists the estimate v.Work of the edge (u, v).
// Validated plans guarantee one key per list and ranges that tile [0, inf),
// so each item has exactly one class and each triangle (counted at its
// lowest vertex u, on the edge (u, v) with v its middle vertex) is counted
// by exactly one class.
func BuildWorkLists(o *graph.Oriented, v gen.Variant) ([]WorkList, error) {
	key, err := listKey(v)
	if err != nil {
		return nil, err
	}
	b := newBucketer(o, v.Classes, key, v.Work)
	n := o.N()
	nc := len(v.Classes)
	chunks := (n + workChunk - 1) / workChunk

	// Pass 1: items per class per chunk.
	perChunk := make([]uint64, chunks*nc)
	// bad records a key no class holds (only a plan that skipped
	// validation can have one); bit 63 marks it set.
	var bad atomic.Uint64
	parallelChunks(chunks, func(ch int) {
		cnt := perChunk[ch*nc : (ch+1)*nc]
		lo, hi := ch*workChunk, min((ch+1)*workChunk, n)
		if k, ok := b.count(lo, hi, cnt); !ok {
			bad.CompareAndSwap(0, k|1<<63)
		}
	})
	if k := bad.Load(); k != 0 {
		return nil, fmt.Errorf("work lists: key %s = %d matches no class; the class ranges must cover [0, inf)", key, k&^(1<<63))
	}

	lists := make([]WorkList, nc)
	// start[ch*nc+c] is where chunk ch writes into class c's list.
	start := make([]uint64, chunks*nc)
	for c, cl := range v.Classes {
		var total uint64
		for ch := range chunks {
			start[ch*nc+c] = total
			total += perChunk[ch*nc+c]
		}
		domain := uint64(n)
		if cl.Items == gen.ItemsEdges {
			domain = o.Arcs()
		}
		// Pivot classes build their items on the device at every pass
		// (pivot.go): the host only counts their vertices.
		l := WorkList{Slot: c, Items: cl.Items, Skip: cl.Skip, Count: total, All: total == domain || isPivot(cl)}
		if !l.Skip && !l.All {
			if l.Items == gen.ItemsEdges {
				l.Edges = make([]uint64, total)
			} else {
				l.Vertices = make([]uint32, total)
			}
		}
		lists[c] = l
	}

	b.fill(lists, start, chunks)
	return lists, nil
}

// listKey returns the key the variant's classes range over, or why they
// cannot share one list.
func listKey(v gen.Variant) (ir.Key, error) {
	if len(v.Classes) == 0 {
		return "", fmt.Errorf("work lists: variant has no classes")
	}
	key := v.Classes[0].Key
	for _, c := range v.Classes {
		if c.Key != key {
			return "", fmt.Errorf("work lists: classes range over %s and %s; one list ranges over one key", key, c.Key)
		}
		if key == ir.KeyWork && (c.Skip || c.Items != gen.ItemsEdges) {
			return "", fmt.Errorf("work lists: class %s: the work key needs edge items", c.Name)
		}
	}
	if key != ir.KeyOutDegree && key != ir.KeyWork {
		return "", fmt.Errorf("work lists: unknown key %q", key)
	}
	if key == ir.KeyWork && v.Work != ir.WorkMerge && v.Work != ir.WorkSearch {
		return "", fmt.Errorf("work lists: unknown work model %q", v.Work)
	}
	return key, nil
}

// fill is BuildWorkLists' second pass: it fills the lists that are needed,
// each chunk at its offsets start[ch*len(lists)+c].
func (b *bucketer) fill(lists []WorkList, start []uint64, chunks int) {
	need := false
	for _, l := range lists {
		need = need || (!l.Skip && !l.All)
	}
	if !need {
		return
	}
	o, n, nc := b.o, b.o.N(), len(lists)
	parallelChunks(chunks, func(ch int) {
		pos := append([]uint64(nil), start[ch*nc:(ch+1)*nc]...)
		lo, hi := ch*workChunk, min((ch+1)*workChunk, n)
		b.scan(lo, hi,
			func(c int, e uint64, _ uint64) {
				if l := &lists[c]; l.Edges != nil {
					l.Edges[pos[c]] = e
					pos[c]++
				}
			},
			func(c int, u uint32, k uint64) {
				l := &lists[c]
				switch {
				case l.Vertices != nil:
					l.Vertices[pos[c]] = u
					pos[c]++
				case l.Edges != nil:
					for e := o.Offsets[u]; e < o.Offsets[u+1]; e++ {
						l.Edges[pos[c]] = e
						pos[c]++
					}
				}
			})
	})
}

// bucketer maps items to classes.
type bucketer struct {
	o       *graph.Oriented
	classes []gen.Class
	key     ir.Key
	work    ir.WorkModel
	// The classes' key ranges [lo, hi) (hi 0: no bound) and whether their
	// items are edges, apart from the large gen.Class: classOf runs per
	// item, where copying a gen.Class costs.
	lo, hi []uint64
	edges  []bool
}

func newBucketer(o *graph.Oriented, classes []gen.Class, key ir.Key, work ir.WorkModel) *bucketer {
	b := &bucketer{o: o, classes: classes, key: key, work: work}
	for _, c := range classes {
		b.lo, b.hi = append(b.lo, uint64(c.Lo)), append(b.hi, uint64(c.Hi))
		b.edges = append(b.edges, c.Items == gen.ItemsEdges)
	}
	return b
}

// classOf returns the class whose range holds k, or -1.
func (b *bucketer) classOf(k uint64) int {
	for i, lo := range b.lo {
		if k >= lo && (b.hi[i] == 0 || k < b.hi[i]) {
			return i
		}
	}
	return -1
}

// count adds the items of vertices [lo, hi) to cnt by class: scan's first
// pass without its callbacks for out-degree keys, which takes half its
// time.
func (b *bucketer) count(lo, hi int, cnt []uint64) (uint64, bool) {
	if b.key != ir.KeyOutDegree {
		return b.scan(lo, hi, func(c int, _ uint64, _ uint64) { cnt[c]++ }, nil)
	}
	off := b.o.Offsets
	for u := lo; u < hi; u++ {
		du := off[u+1] - off[u]
		c := b.classOf(du)
		if c < 0 {
			return du, false
		}
		if b.edges[c] {
			cnt[c] += du
		} else {
			cnt[c]++
		}
	}
	return 0, true
}

// scan visits the items of vertices [lo, hi). Out-degree keys call vertex
// once per vertex u with its class and the number of items it stands for
// (1 for a vertex class, d+(u) edges for an edge class); work keys call edge
// once per edge. It returns false and the key when some item matches no
// class.
func (b *bucketer) scan(lo, hi int, edge func(c int, e uint64, k uint64), vertex func(c int, u uint32, items uint64)) (uint64, bool) {
	off, adj := b.o.Offsets, b.o.Adj
	for u := lo; u < hi; u++ {
		du := off[u+1] - off[u]
		if b.key == ir.KeyOutDegree {
			c := b.classOf(du)
			if c < 0 {
				return du, false
			}
			items := uint64(1)
			if b.edges[c] {
				items = du
			}
			vertex(c, uint32(u), items)
			continue
		}
		for e := off[u]; e < off[u+1]; e++ {
			w := adj[e]
			k := Work(b.work, du, off[w+1]-off[w])
			c := b.classOf(k)
			if c < 0 {
				return k, false
			}
			edge(c, e, k)
		}
	}
	return 0, true
}

// Work is the estimated cost of intersecting lists of du and dv entries
// under the model (ir.WorkModel): merge d+u + d+v; search min *
// ceil(log2(max+1)) (Fox).
func Work(model ir.WorkModel, du, dv uint64) uint64 {
	if model == ir.WorkMerge {
		return du + dv
	}
	lo, hi := min(du, dv), max(du, dv)
	// ceil(log2(hi+1)) is the bit length of hi.
	return lo * uint64(bits.Len64(hi))
}

// parallelChunks calls fn(ch) for ch in [0, chunks) on GOMAXPROCS
// goroutines claiming chunks through a counter.
func parallelChunks(chunks int, fn func(ch int)) {
	workers := min(goruntime.GOMAXPROCS(0), chunks)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				ch := int(next.Add(1) - 1)
				if ch >= chunks {
					return
				}
				fn(ch)
			}
		})
	}
	wg.Wait()
}
