#include "tcgen.cuh"  // u32, u64

// The helpers of a count in partitions (runtime/executor/partition.go): the
// graph's rows are on the device a block and a chunk at a time, in one
// window whose indices the offsets buffer (indexed by vertex id) holds; the
// plan's edge kernel counts the work list these kernels build.

// tcgen_part_src: src[e] = lo + x for every entry e of the row of vertex
// lo + x, x < nv: the resident block's first vertices, as the edge kernel
// reads them (its items are the block's entries).
extern "C" __global__ void __launch_bounds__(256)
tcgen_part_src(const u64* __restrict__ off, u32 lo, u32 nv, u32* __restrict__ src) {
  const u64 stride = (u64)gridDim.x * blockDim.x;
  for (u64 x = blockIdx.x * (u64)blockDim.x + threadIdx.x; x < nv; x += stride) {
    const u32 u = lo + (u32)x;
    for (u64 e = off[u]; e < off[u + 1]; ++e) src[e] = u;
  }
}

// tcgen_part_rebase: the offsets of vertices lo .. lo + nv, copied raw
// (off[lo] aside, which a neighbouring range's rows may still read until
// this runs), rewritten to their rows' places in the window, the first at
// entry at: off[lo + x] = raw - base + at, base being vertex lo's raw offset.
extern "C" __global__ void __launch_bounds__(256)
tcgen_part_rebase(u64* __restrict__ off, u32 lo, u32 nv, u64 base, u64 at) {
  const u64 stride = (u64)gridDim.x * blockDim.x;
  for (u64 x = blockIdx.x * (u64)blockDim.x + threadIdx.x; x <= nv; x += stride) {
    off[lo + x] = x == 0 ? at : off[lo + x] - base + at;
  }
}

// lower: the first position in adj[a, b) (sorted) whose entry is >= x.
__device__ __forceinline__ u64 lower(const u32* __restrict__ adj, u64 a, u64 b, u32 x) {
  while (a < b) {
    const u64 m = a + (b - a) / 2;
    if (adj[m] < x) a = m + 1; else b = m;
  }
  return a;
}

// tcgen_part_list: the work list of one pair, the entries e of the rows of
// vertices lo + x (x < nv) whose target lies in [tlo, thi), appended to
// list in any order (*fill counts them; it starts at 0). The count does
// not depend on the order.
extern "C" __global__ void __launch_bounds__(256)
tcgen_part_list(const u64* __restrict__ off, const u32* __restrict__ adj, u32 lo, u32 nv, u32 tlo,
                u32 thi, u64* __restrict__ list, unsigned long long* fill) {
  const u64 stride = (u64)gridDim.x * blockDim.x;
  for (u64 x = blockIdx.x * (u64)blockDim.x + threadIdx.x; x < nv; x += stride) {
    const u32 u = lo + (u32)x;
    const u64 a = off[u], b = off[u + 1];
    const u64 s = lower(adj, a, b, tlo), t = lower(adj, s, b, thi);
    if (s == t) continue;
    const u64 at = atomicAdd(fill, (unsigned long long)(t - s));
    for (u64 e = s; e < t; ++e) list[at + (e - s)] = e;
  }
}

// tcgen_part_add: sum[0] += counts[slot], one thread: a pair's count,
// added on the device so the host reads the pass's sum once.
extern "C" __global__ void tcgen_part_add(const u64* __restrict__ counts, u32 slot, u64* sum) {
  if (blockIdx.x == 0 && threadIdx.x == 0) sum[0] += counts[slot];
}

// The pivot's helpers (runtime/executor/partition_pivot.go): for one pair,
// the in-edges (u, v) with u in the resident block [lo, lo + nv) and v in
// the pair's targets [tlo, thi), each with a tail (N+(u) after v, empty for
// a row's last entry: such in-edges are left out, as the plan's own count
// and scatter leave them), grouped by v as the plan's preparation groups
// them (templates/pivot_prep.cu.tmpl), wrk, end and the tails indexed by
// v - tlo. The plan's sums, scan and bin kernels then bin the targets
// alone and its class kernel counts them.

constexpr u32 PART_HUBS = 2048;  // the highest targets, whose in-edges a block counts in shared memory first (pivot_prep's HUBS)
constexpr u32 PART_LEN_BITS = 24;  // a tail packs start << 24 | length, as pivot_prep's LEN_BITS (runtime/executor/pivot.go)

// part_segment: u's entries whose target lies in [tlo, thi), [*s, *t), its
// last entry left out; *b is the row's end.
__device__ __forceinline__ void part_segment(const u64* __restrict__ off, const u32* __restrict__ adj, u32 u, u32 tlo,
                                             u32 thi, u64* s, u64* t, u64* b) {
  const u64 a = off[u];
  *b = off[u + 1];
  *s = lower(adj, a, *b, tlo);
  *t = lower(adj, *s, *b, thi);
  if (*t == *b && *t > *s) --*t;  // the last entry has no tail
}

// part_walk calls f(e, b) for every entry e of the pair's segments, b its
// row's end: a lane per vertex finds its segment; segments of a warp or
// more are walked by the whole warp, lanes on consecutive entries, the
// shorter ones by their own lane (most rows of a block are short).
template <class F>
__device__ __forceinline__ void part_walk(const u64* __restrict__ off, const u32* __restrict__ adj, u32 lo, u32 nv,
                                          u32 tlo, u32 thi, F f) {
  const u32 lane = threadIdx.x % WARP;
  const u64 stride = (u64)gridDim.x * blockDim.x;
  for (u64 x0 = (u64)blockIdx.x * blockDim.x + threadIdx.x - lane; x0 < nv; x0 += stride) {  // warp-uniform
    const u64 x = x0 + lane;
    u64 s = 0, t = 0, b = 0;
    if (x < nv) part_segment(off, adj, lo + (u32)x, tlo, thi, &s, &t, &b);
    u32 longs = __ballot_sync(FULL_MASK, t - s >= WARP);
    while (longs) {
      const u32 j = __ffs(longs) - 1;
      longs &= longs - 1;
      const u64 js = __shfl_sync(FULL_MASK, s, j), jt = __shfl_sync(FULL_MASK, t, j), jb = __shfl_sync(FULL_MASK, b, j);
      for (u64 e = js + lane; e < jt; e += WARP) f(e, jb);
    }
    if (t - s < WARP)
      for (u64 e = s; e < t; ++e) f(e, b);
  }
}

// tcgen_part_pivot_count: wrk[v - tlo] += tail entries << shift | 1 for
// every in-edge of the pair (the plan's count kernel's packed counter).
// The in-edges of the PART_HUBS highest targets are summed per block in
// shared memory and added once: a hub's would serialise on one counter.
extern "C" __global__ void __launch_bounds__(256)
tcgen_part_pivot_count(const u64* __restrict__ off, const u32* __restrict__ adj, u32 lo, u32 nv, u32 tlo, u32 thi,
                       u64* __restrict__ wrk, u32 shift) {
  __shared__ u64 hw[PART_HUBS];
  const u32 h0 = thi - tlo > PART_HUBS ? thi - PART_HUBS : tlo;
  for (u32 k = threadIdx.x; k < PART_HUBS; k += blockDim.x) hw[k] = 0;
  __syncthreads();
  part_walk(off, adj, lo, nv, tlo, thi, [&](u64 e, u64 b) {
    const u32 v = adj[e];
    const u64 inc = (b - e - 1) << shift | 1;
    if (v >= h0) {
      atomicAdd(hw + (v - h0), inc);
    } else {
      atomicAdd(wrk + (v - tlo), inc);
    }
  });
  __syncthreads();
  for (u32 k = threadIdx.x; k < PART_HUBS && h0 + k < thi; k += blockDim.x)
    if (hw[k]) atomicAdd(wrk + (h0 - tlo + k), hw[k]);
}

// tcgen_part_pivot_scatter: tails[--end[v - tlo]] = (e + 1) << 24 | tail
// length for every in-edge e of the pair (end written by the plan's bin
// kernel: inoff + in-edges, counted down to inoff). A block counts its
// in-edges of the highest targets first, takes a range of each such target
// with one atomic, then places them with shared-memory atomics.
extern "C" __global__ void __launch_bounds__(256)
tcgen_part_pivot_scatter(const u64* __restrict__ off, const u32* __restrict__ adj, u32 lo, u32 nv, u32 tlo, u32 thi,
                         u64* __restrict__ end, u64* __restrict__ tails) {
  __shared__ u64 hc[PART_HUBS];
  const u32 h0 = thi - tlo > PART_HUBS ? thi - PART_HUBS : tlo;
  const u64 down = ~(u64)0;  // adding it subtracts one
  for (u32 k = threadIdx.x; k < PART_HUBS; k += blockDim.x) hc[k] = 0;
  __syncthreads();
  part_walk(off, adj, lo, nv, tlo, thi, [&](u64 e, u64 b) {
    const u32 v = adj[e];
    if (v >= h0) {
      atomicAdd(hc + (v - h0), (u64)1);
    } else {
      tails[atomicAdd(end + (v - tlo), down) - 1] = (e + 1) << PART_LEN_BITS | (b - e - 1);
    }
  });
  __syncthreads();
  for (u32 k = threadIdx.x; k < PART_HUBS && h0 + k < thi; k += blockDim.x)
    if (hc[k]) hc[k] = atomicAdd(end + (h0 - tlo + k), (u64)0 - hc[k]);
  __syncthreads();
  part_walk(off, adj, lo, nv, h0, thi, [&](u64 e, u64 b) {  // the same blocks walk the same vertices
    const u32 v = adj[e];
    tails[atomicAdd(hc + (v - h0), down) - 1] = (e + 1) << PART_LEN_BITS | (b - e - 1);
  });
}
