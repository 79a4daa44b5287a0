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
