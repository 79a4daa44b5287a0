package executor

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
)

// CPU reference of Skiff's kernels (templates/skiff.cu.tmpl, gen/hash.go),
// step for step: the class's work list from BuildWorkLists, each group's
// items by the same grid-stride loops (index organisations: runs of one
// vertex in a group's WIDTH consecutive edges), the table placement (shared
// part of buckets * slots words, else the scratch the executor sizes with
// scratchForDegrees and planScratch), the trie's layout, the lock-free
// insertion (buckets matched per warp, ranks from one atomicAdd per bucket,
// chains extended by CAS with a spare node per warp, warps interleaved at
// random and reading stale links at random so that CAS races happen), the
// probe groups' rounds and chain walks, and the teams' and the block's even
// split of the 2-hop lists with the kernel's prefix sums and searches. It
// checks that the pool never runs out, that every table fits where it is
// put, that every 2-hop entry is probed exactly once, and the count against
// the oracle.

const skiffWarp = 32

// skiffModel is one class's kernel.
type skiffModel struct {
	t          testing.TB
	rng        *rand.Rand
	c          gen.Class
	width      int
	block      int
	team       int
	groups     int
	trie       bool
	hop        int
	cta        int64
	buckets    int
	slots      int
	groupWords uint64 // shared u32 words per group
	capWords   uint64 // scratch u32 words per group
	idOrdered  bool
	off        []uint64
	adj        []uint32
	src        []uint32
	// statistics
	inShared, inGlobal, casLost, probes uint64
}

// skiffTrieModel is one table (isect_skiff's Trie).
type skiffTrieModel struct {
	hop, spares int
	lg          uint
	nodes       uint64
	slot        []uint32
	fill        []uint32
	link        []uint32
	pool        uint32
	keys        []uint32 // the list, for the checks
}

func (m *skiffModel) buildTrie(s0, s1 uint64) *skiffTrieModel {
	d := s1 - s0
	spares := max(1, m.width/skiffWarp)
	lg, nodes, words := gen.SkiffTableWords(m.hop, spares, d)
	if words <= m.groupWords {
		m.inShared++
	} else {
		if words > m.capWords {
			m.t.Fatalf("table of %d keys needs %d words, the scratch has %d: the kernel would trap", d, words, m.capWords)
		}
		m.inGlobal++
	}
	tr := &skiffTrieModel{hop: m.hop, spares: spares, lg: lg, nodes: nodes,
		slot: make([]uint32, nodes*uint64(m.hop)), fill: make([]uint32, 1<<lg), link: make([]uint32, nodes),
		pool: 1 << lg, keys: m.adj[s0:s1]}
	for i := range tr.slot {
		tr.slot[i] = 0xDEADBEEF // undefined memory
	}
	// The group's warps (teams) each run their rounds j0 = s0, s0 + WIDTH,
	// ... with lanes j0 + (first lane of the team) + tl; the warps are not
	// synchronised between rounds, so their steps interleave at random.
	nteams := m.width / m.team
	rounds := int((d + uint64(m.width) - 1) / uint64(m.width))
	pos := make([]int, nteams) // next step index per team
	spare := make([]uint32, nteams)
	// per team and round state
	type roundState struct {
		valid  []bool
		x, b   []uint32
		rank   []uint32
		leader []bool
		cnt    []uint32
		base   []uint32
	}
	state := make([]roundState, nteams)
	for {
		var live []int
		for k := range nteams {
			if pos[k] < rounds*3 {
				live = append(live, k)
			}
		}
		if len(live) == 0 {
			break
		}
		k := live[m.rng.IntN(len(live))]
		round, phase := pos[k]/3, pos[k]%3
		pos[k]++
		st := &state[k]
		switch phase {
		case 0: // match + atomicAdd by the leaders
			*st = roundState{valid: make([]bool, m.team), x: make([]uint32, m.team), b: make([]uint32, m.team),
				rank: make([]uint32, m.team), leader: make([]bool, m.team), cnt: make([]uint32, m.team), base: make([]uint32, m.team)}
			for tl := range m.team {
				j := s0 + uint64(round*m.width+k*m.team+tl)
				st.valid[tl] = j < s1
				st.b[tl] = 0xFFFFFFFF
				if st.valid[tl] {
					st.x[tl] = m.adj[j]
					st.b[tl] = gen.SkiffBucket(st.x[tl], lg)
				}
			}
			for tl := range m.team {
				lead := slices.Index(st.b, st.b[tl]) // lowest lane of the peers
				var cnt, below uint32
				for o := range m.team {
					if st.b[o] == st.b[tl] {
						cnt++
						if o < tl {
							below++
						}
					}
				}
				st.leader[tl] = lead == tl
				st.cnt[tl] = cnt
				if st.valid[tl] && lead == tl {
					st.base[tl] = tr.fill[st.b[tl]]
					tr.fill[st.b[tl]] += cnt
				}
				st.rank[tl] = below // base added below, from the leader
			}
			for tl := range m.team {
				lead := slices.Index(st.b, st.b[tl])
				st.base[tl] = st.base[lead]
				st.rank[tl] += st.base[tl]
			}
		case 1: // leaders extend their chains one at a time
			for tl := range m.team {
				if !(st.valid[tl] && st.leader[tl] && st.base[tl]+st.cnt[tl] > uint32(m.hop)) {
					continue
				}
				top := (st.base[tl] + st.cnt[tl] - 1) / uint32(m.hop)
				node := st.b[tl]
				for lev := uint32(1); lev <= top; lev++ {
					next := tr.link[node]
					if next != 0 && nteams > 1 && m.rng.IntN(3) == 0 {
						next = 0 // a stale read: another warp's CAS not seen yet
					}
					if next == 0 {
						fresh := spare[k]
						if fresh == 0 {
							fresh = tr.pool
							tr.pool++
						}
						if uint64(fresh) >= tr.nodes {
							m.t.Fatalf("pool exhausted: node %d of %d (%d keys, hop %d, %d spares)", fresh, tr.nodes, d, m.hop, spares)
						}
						if old := tr.link[node]; old == 0 {
							tr.link[node] = fresh
							next = fresh
							spare[k] = 0
						} else {
							next = old
							spare[k] = fresh
							m.casLost++
						}
					}
					node = next
				}
			}
		case 2: // lanes follow their chain and write
			for tl := range m.team {
				if !st.valid[tl] {
					continue
				}
				node := st.b[tl]
				for lev := st.rank[tl] / uint32(m.hop); lev > 0; lev-- {
					node = tr.link[node]
					if node == 0 {
						m.t.Fatalf("rank %d of bucket %d: chain not linked", st.rank[tl], st.b[tl])
					}
				}
				i := uint64(node)*uint64(m.hop) + uint64(st.rank[tl]%uint32(m.hop))
				if tr.slot[i] != 0xDEADBEEF {
					m.t.Fatalf("slot %d written twice", i)
				}
				tr.slot[i] = st.x[tl]
			}
		}
	}
	// Every key is stored once, where its bucket's chain says.
	var total uint64
	for b, f := range tr.fill {
		total += uint64(f)
		node := uint32(b)
		for seen := uint32(0); seen < f; seen += uint32(m.hop) {
			for s := uint32(0); s < min(f-seen, uint32(m.hop)); s++ {
				x := tr.slot[uint64(node)*uint64(m.hop)+uint64(s)]
				if gen.SkiffBucket(x, lg) != uint32(b) {
					m.t.Fatalf("key %d in bucket %d", x, b)
				}
			}
			if seen+uint32(m.hop) < f {
				node = tr.link[node]
			}
		}
	}
	if total != d {
		m.t.Fatalf("%d keys filled, %d inserted", total, d)
	}
	return tr
}

// probeTeam models trie_probe for one team: keys and valid per team lane;
// it returns what each lane adds.
func (tr *skiffTrieModel) probeTeam(team int, keys []uint32, valid []bool) []uint32 {
	p := min(team, tr.hop)
	c := make([]uint32, team)
	found := make([]bool, p)
	for first := 0; first < team; first += p { // probe groups
		for r := range p {
			y, vy := keys[first+r], valid[first+r]
			var b, f uint32
			if vy {
				b = gen.SkiffBucket(y, tr.lg)
				f = tr.fill[b]
			}
			node, seen := b, uint32(0)
			clear(found)
			act := f > 0
			for act {
				k := min(f-seen, uint32(tr.hop))
				for si := range p {
					for i := uint32(si); i < k; i += uint32(p) {
						found[si] = found[si] || tr.slot[uint64(node)*uint64(tr.hop)+uint64(i)] == y
					}
				}
				hit := slices.Contains(found, true)
				seen += uint32(tr.hop)
				act = !hit && seen < f
				if act {
					node = tr.link[node]
				}
			}
			for si := range p {
				if found[si] {
					c[first+si]++
				}
			}
		}
	}
	return c
}

// table is the model of a built table of adj[t0, a1): a trie, or TRUST's
// bucket lists.
type skiffTableModel struct {
	m      *skiffModel
	tr     *skiffTrieModel
	t0, a1 uint64
	// bucket lists: count per bucket and the stored (first SLOTS inserted) entries
	cnt    []uint32
	stored map[uint32]bool
}

func (m *skiffModel) build(t0, a1 uint64) *skiffTableModel {
	tb := &skiffTableModel{m: m, t0: t0, a1: a1}
	if m.trie {
		tb.tr = m.buildTrie(t0, a1)
		return tb
	}
	// isect_hash: cnt[b] counts every entry, the first SLOTS by arrival are
	// stored; the arrival order is the atomics', so any SLOTS of them.
	tb.cnt = make([]uint32, m.buckets)
	tb.stored = map[uint32]bool{}
	per := make([][]uint32, m.buckets)
	for j := t0; j < a1; j++ {
		x := m.adj[j]
		b := x & uint32(m.buckets-1)
		tb.cnt[b]++
		per[b] = append(per[b], x)
	}
	for _, xs := range per {
		m.rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		for _, x := range xs[:min(len(xs), m.slots)] {
			tb.stored[x] = true
		}
	}
	return tb
}

// probeTeam: the count each team lane adds (keys, valid, from per lane).
func (tb *skiffTableModel) probeTeam(keys []uint32, valid []bool, from []uint64) []uint32 {
	m := tb.m
	for _, v := range valid {
		if v {
			m.probes++
		}
	}
	if tb.tr != nil {
		return tb.tr.probeTeam(len(keys), keys, valid)
	}
	c := make([]uint32, len(keys))
	for i, x := range keys {
		if !valid[i] {
			continue
		}
		if from[i] < tb.t0 || from[i] > tb.a1 {
			m.t.Fatalf("probe from %d outside the table [%d, %d)", from[i], tb.t0, tb.a1)
		}
		b := x & uint32(m.buckets-1)
		switch {
		case tb.stored[x]:
			c[i] = 1
		case tb.cnt[b] > uint32(m.slots):
			if _, ok := slices.BinarySearch(m.adj[from[i]:tb.a1], x); ok {
				c[i] = 1
			}
		}
	}
	return c
}

// teamWalk models team_walk for one team of TEAM lanes.
func (m *skiffModel) teamWalk(v0, v1 uint64, tb *skiffTableModel) uint64 {
	team := m.team
	var c uint64
	for j0 := v0; j0 < v1; j0 += uint64(team) {
		vb := make([]uint64, team)
		incl := make([]uint64, team)
		excl := make([]uint64, team)
		for tl := range team {
			var dv uint64
			if j := j0 + uint64(tl); j < v1 {
				v := m.adj[j]
				vb[tl] = m.off[v]
				dv = m.off[v+1] - m.off[v]
			}
			incl[tl] = dv
			if tl > 0 {
				incl[tl] += incl[tl-1]
			}
			excl[tl] = incl[tl] - dv
		}
		total := incl[team-1]
		for p0 := uint64(0); p0 < total; p0 += uint64(team) {
			keys := make([]uint32, team)
			valid := make([]bool, team)
			from := make([]uint64, team)
			for tl := range team {
				p := p0 + uint64(tl)
				k := 0
				for step := team / 2; step > 0; step >>= 1 {
					if incl[k+step-1] <= p {
						k += step
					}
				}
				valid[tl] = p < total
				if valid[tl] {
					if p < excl[k] || p >= incl[k] {
						m.t.Fatalf("position %d given to lane %d holding [%d, %d)", p, k, excl[k], incl[k])
					}
					keys[tl] = m.adj[vb[k]+(p-excl[k])]
				}
				from[tl] = tb.t0
				if m.idOrdered {
					from[tl] = j0 + uint64(k) + 1
				}
			}
			for _, x := range tb.probeTeam(keys, valid, from) {
				c += uint64(x)
			}
		}
	}
	return c
}

// skiffFirstAbove is tc::first_above.
func skiffFirstAbove(pre []uint64, k, n uint32, p uint64) uint32 {
	if pre[k] > p {
		return k
	}
	lo, step, hi := k, uint32(1), k+1
	for hi < n && pre[hi] <= p {
		lo = hi
		step <<= 1
		hi = lo + step
	}
	if hi > n {
		hi = n
	}
	for l := lo + 1; l < hi; {
		mid := (l + hi) >> 1
		if pre[mid] <= p {
			l = mid + 1
		} else {
			hi = mid
		}
	}
	return hi
}

// blockWalk models block_walk.
func (m *skiffModel) blockWalk(v0, v1 uint64, tb *skiffTableModel) uint64 {
	blk := m.block
	var c uint64
	for j0 := v0; j0 < v1; j0 += uint64(blk) {
		vb := make([]uint64, blk)
		pre := make([]uint64, blk)
		for t := range blk {
			var dv uint64
			if j := j0 + uint64(t); j < v1 {
				v := m.adj[j]
				vb[t] = m.off[v]
				dv = m.off[v+1] - m.off[v]
			}
			pre[t] = dv
			if t > 0 {
				pre[t] += pre[t-1]
			}
		}
		staged := uint32(min(uint64(blk), v1-j0))
		total := pre[staged-1]
		ks := make([]uint32, blk)
		for p0 := uint64(0); p0 < total; p0 += uint64(blk) {
			for w0 := 0; w0 < blk; w0 += skiffWarp { // each warp probes its lanes' keys together
				keys := make([]uint32, skiffWarp)
				valid := make([]bool, skiffWarp)
				from := make([]uint64, skiffWarp)
				for l := range skiffWarp {
					t := w0 + l
					p := p0 + uint64(t)
					valid[l] = p < total
					if valid[l] {
						ks[t] = skiffFirstAbove(pre, ks[t], staged, p)
						k := ks[t]
						var kx uint64
						if k > 0 {
							kx = pre[k-1]
						}
						if p < kx || p >= pre[k] {
							m.t.Fatalf("block walk: position %d given to v %d holding [%d, %d)", p, k, kx, pre[k])
						}
						keys[l] = m.adj[vb[k]+(p-kx)]
					}
					from[l] = tb.t0
					if m.idOrdered {
						from[l] = j0 + uint64(ks[t]) + 1
					}
				}
				for _, x := range tb.probeTeam(keys, valid, from) {
					c += uint64(x)
				}
			}
		}
	}
	return c
}

// twoHop is the number of 2-hop entries through adj[v0, v1).
func (m *skiffModel) twoHop(v0, v1 uint64) uint64 {
	var s uint64
	for j := v0; j < v1; j++ {
		v := m.adj[j]
		s += m.off[v+1] - m.off[v]
	}
	return s
}

// run counts the class's items as grid blocks of its kernel would.
func (m *skiffModel) run(list WorkList, grid int) uint64 {
	item := func(i uint64) uint64 {
		switch {
		case list.All:
			return i
		case list.Vertices != nil:
			return uint64(list.Vertices[i])
		}
		return list.Edges[i]
	}
	nitems := list.Count
	var c uint64
	ngroups := uint64(grid * m.groups)
	if m.c.Items == gen.ItemsEdges && m.c.Iterator == ir.IterVertex { // index organisations
		for g := range ngroups {
			for i0 := g * uint64(m.width); i0 < nitems; i0 += uint64(grid * m.block) {
				end := min(i0+uint64(m.width), nitems)
				for pos := i0; pos < end; {
					eb := item(pos)
					u := m.src[eb]
					a0, a1 := m.off[u], m.off[u+1]
					ln := min(a1-eb, end-pos)
					for k := range ln { // the run's items are its edges, in order
						if item(pos+k) != eb+k {
							m.t.Fatalf("item %d is edge %d, not %d: the run assumption fails", pos+k, item(pos+k), eb+k)
						}
					}
					pos += ln
					t0 := a0
					if m.idOrdered {
						t0 = eb + 1
					}
					if a1-a0 < 2 || t0 >= a1 {
						continue
					}
					tb := m.build(t0, a1)
					before := m.probes
					if m.width > skiffWarp {
						c += m.blockWalk(eb, eb+ln, tb)
					} else {
						c += m.teamWalk(eb, eb+ln, tb)
					}
					if got, want := m.probes-before, m.twoHop(eb, eb+ln); got != want {
						m.t.Fatalf("run of %d at edge %d: %d probes, %d 2-hop entries", u, eb, got, want)
					}
				}
			}
		}
		return c
	}
	if m.c.Iterator == ir.IterEdge {
		for g := range ngroups {
			for i := g; i < nitems; i += ngroups {
				e := item(i)
				u, v := m.src[e], m.adj[e]
				a0, a1 := m.off[u], m.off[u+1]
				if m.idOrdered {
					a0 = e + 1
				}
				b0, b1 := m.off[v], m.off[v+1]
				if a0 >= a1 || b0 >= b1 {
					continue
				}
				s0, s1, l0, l1 := a0, a1, b0, b1
				if s1-s0 > l1-l0 {
					s0, s1, l0, l1 = b0, b1, a0, a1
				}
				tb := m.build(s0, s1)
				smin, smax := m.adj[s0], m.adj[s1-1]
				lb := l0 + uint64(skiffLowerBound(m.adj[l0:l1], smin))
				for first := 0; first < m.width; first += m.team {
					for j0 := lb + uint64(first); j0 < l1; j0 += uint64(m.width) {
						keys := make([]uint32, m.team)
						valid := make([]bool, m.team)
						anyValid := false
						for tl := range m.team {
							j := j0 + uint64(tl)
							if j < l1 {
								keys[tl] = m.adj[j]
							}
							valid[tl] = j < l1 && keys[tl] <= smax
							anyValid = anyValid || valid[tl]
						}
						for _, x := range tb.probeTeam(keys, valid, nil) {
							c += uint64(x)
						}
						if !anyValid {
							break
						}
					}
				}
			}
		}
		return c
	}
	for g := range ngroups {
		for i := g; i < nitems; i += ngroups {
			u := uint32(item(i))
			a0, a1 := m.off[u], m.off[u+1]
			if a1-a0 < 2 {
				continue
			}
			tb := m.build(a0, a1)
			before := m.probes
			switch {
			case m.cta == ir.CTABlockDegree:
				for w0 := 0; w0 < m.block; w0 += skiffWarp {
					for j0 := a0 + uint64(w0); j0 < a1; j0 += uint64(m.block) {
						c += m.teamWalk(j0, min(j0+skiffWarp, a1), tb)
					}
				}
			case m.width > skiffWarp:
				c += m.blockWalk(a0, a1, tb)
			default:
				c += m.teamWalk(a0, a1, tb)
			}
			if got, want := m.probes-before, m.twoHop(a0, a1); got != want {
				m.t.Fatalf("vertex %d: %d probes, %d 2-hop entries", u, got, want)
			}
		}
	}
	return c
}

func skiffLowerBound(a []uint32, x uint32) int {
	i, _ := slices.BinarySearch(a, x)
	return i
}

// skiffModelCount runs every class of plan p's (single) class list on g as
// the generated kernels would, with grids of at most maxGrid blocks.
func skiffModelCount(t testing.TB, p ir.Plan, g *graph.Graph, maxGrid int, seed uint64) (uint64, *skiffModel) {
	res, last := skiffModelClasses(t, p, g, maxGrid, seed, false)
	var total uint64
	for _, r := range res {
		total += r[0]
	}
	return total, last
}

// skiffUses reports whether a class runs templates/skiff.cu.tmpl.
func skiffUses(c gen.Class) bool {
	if c.Skip || c.Intersection != ir.Hash {
		return false
	}
	return c.Params[ir.ParamScheme] == ir.SchemeHopscotch || c.Iterator == ir.IterVertex && c.Params[ir.ParamCTA] != ir.CTAFixed
}

// skiffModelClasses returns, per class of p's class list that runs Skiff's
// kernels (all hash classes unless onlySkiff is false), the model's count
// and the count of its items straight from the definition (vertex items:
// sum over v in N+(u) of |N+(u) & N+(v)|; edge items: |N+(u) & N+(v)|).
func skiffModelClasses(t testing.TB, p ir.Plan, g *graph.Graph, maxGrid int, seed uint64, onlySkiff bool) (map[int][2]uint64, *skiffModel) {
	out, err := gen.Generate(p, gen.Target{Arch: "compute_90", MaxSharedPerBlock: 227 << 10})
	if err != nil {
		t.Fatal(err)
	}
	man := out.Manifest
	by, err := orientation(man.Orientation)
	if err != nil {
		t.Fatal(err)
	}
	o := graph.Orient(g, by, man.Relabel)
	variant := man.Variants[0]
	lists, err := BuildWorkLists(o, variant)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]uint64, len(lists))
	for i := range lists {
		counts[i] = lists[i].Count
	}
	sp, err := planScratch(scratchForDegrees(o, variant.Classes), counts, uint64(o.N()), 4, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	src := make([]uint32, o.Arcs())
	for u := range o.N() {
		for e := o.Offsets[u]; e < o.Offsets[u+1]; e++ {
			src[e] = uint32(u)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	res := map[int][2]uint64{}
	var last *skiffModel
	for i, c := range variant.Classes {
		if c.Skip || lists[i].Count == 0 || onlySkiff && !skiffUses(c) {
			continue
		}
		if c.Intersection != ir.Hash {
			t.Fatalf("class %s: %s is not modelled", c.Name, c.Intersection)
		}
		s := ir.Strategy{Iterator: c.Iterator, Intersection: c.Intersection, Width: c.Width, Block: c.Block, Params: c.Params}
		m := &skiffModel{t: t, rng: rng, c: c, width: c.Width, block: c.Block, team: min(c.Width, skiffWarp),
			groups: c.Block / c.Width, trie: ir.Get(s, ir.ParamScheme) == ir.SchemeHopscotch, hop: int(ir.Get(s, ir.ParamHop)),
			buckets: int(ir.Get(s, ir.ParamBuckets)), slots: int(ir.Get(s, ir.ParamSlots)),
			idOrdered: man.IDOrdered, off: o.Offsets, adj: o.Adj, src: src}
		if c.Iterator == ir.IterVertex {
			m.cta = ir.Get(s, ir.ParamCTA)
		}
		m.groupWords = uint64(m.buckets * m.slots)
		m.capWords = 2 * sp.words[i]
		if m.trie && c.Scratch == nil {
			t.Fatalf("class %s: a trie class without scratch", c.Name)
		}
		grid := min(int(sp.grids[i]), maxGrid)
		res[i] = [2]uint64{m.run(lists[i], grid), skiffTruth(o, src, lists[i], c.Items)}
		last = m
	}
	return res, last
}

// skiffTruth counts a work list's triangles from the definition.
func skiffTruth(o *graph.Oriented, src []uint32, l WorkList, items string) uint64 {
	inter := func(a, b []uint32) uint64 {
		var c uint64
		for i, j := 0, 0; i < len(a) && j < len(b); {
			switch {
			case a[i] < b[j]:
				i++
			case a[i] > b[j]:
				j++
			default:
				c++
				i++
				j++
			}
		}
		return c
	}
	var c uint64
	for i := range l.Count {
		id := i
		switch {
		case l.All:
		case l.Vertices != nil:
			id = uint64(l.Vertices[i])
		default:
			id = l.Edges[i]
		}
		if items == gen.ItemsVertices {
			nu := o.Neighbors(uint32(id))
			for _, v := range nu {
				c += inter(nu, o.Neighbors(v))
			}
			continue
		}
		c += inter(o.Neighbors(src[id]), o.Neighbors(o.Adj[id]))
	}
	return c
}
