// tcgen.cuh: what every kernel tcgen generates shares, included as
// #include "tcgen.cuh". The runtime hands it to NVRTC as a header (by name,
// so NVRTC needs no CUDA headers on disk); to compile a generated source by
// hand, put this file beside it. It depends on no plan: every plan parameter
// is a constant of the generated source.
//
// Every class kernel takes the same arguments:
//   off    u64[n+1]  CSR offsets of the oriented graph
//   adj    u32[m]    out-neighbours, each list sorted by id
//   src    u32[m]    first vertex of each oriented edge (edge kernels; filled by the src kernel)
//   n, m             vertices, oriented edges
//   items            the class's work list: u32 vertex ids or u64 edge ids; null = item i is vertex or edge i
//   nitems           items in the list
//   counts u64[]     triangles per class in counts[SLOT]: one-launch kernels leave it there with
//                    tc::finish_count (no memset per pass), the others add into a zeroed slot
//   scratch u64[]    per-group global memory of classes that need it (gen.Scratch), else null:
//   scratch_words    u64 words per group; group g = blockIdx.x * GROUPS + its index owns scratch[g * scratch_words, ...)
// Graph sizes are arguments, never constants, so one compiled module serves
// every graph.
#pragma once

typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;
static_assert(sizeof(u32) == 4 && sizeof(u64) == 8, "fixed-width types");

// The generator targets 32-lane warps only: lane masks are 32-bit.
constexpr u32 WARP = 32;                // threads per warp
constexpr u32 FULL_MASK = 0xffffffffu;  // every lane of a warp

namespace tc {

__device__ __forceinline__ u64 umin(u64 a, u64 b) { return a < b ? a : b; }
__device__ __forceinline__ u64 umax(u64 a, u64 b) { return a > b ? a : b; }

// lower_bound returns the first index in [lo, hi) whose entry is >= x, or hi,
// over a sorted list (global or shared memory).
__device__ __forceinline__ u64 lower_bound(const u32* __restrict__ a, u64 lo, u64 hi, u32 x) {
  while (lo < hi) {
    const u64 mid = lo + ((hi - lo) >> 1);
    if (a[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// contains reports whether x is in the sorted list a[lo, hi).
__device__ __forceinline__ bool contains(const u32* __restrict__ a, u64 lo, u64 hi, u32 x) {
  const u64 p = lower_bound(a, lo, hi, x);
  return p < hi && a[p] == x;
}

// Shape re-checks a class's constants, which the generator computed: its
// block is whole warps, at most 1024 threads, tiled by GROUPS groups of
// WIDTH threads; WIDTH is a power of two up to a warp or the whole block;
// TEAM, the lanes that trade values by shuffles, is min(WIDTH, WARP).
template <u32 BLOCK, u32 WIDTH, u32 GROUPS, u32 TEAM = (WIDTH < WARP ? WIDTH : WARP)>
struct Shape {
  static_assert(BLOCK % WARP == 0 && BLOCK <= 1024, "block is a multiple of the warp, at most 1024");
  static_assert(WIDTH == BLOCK || (WIDTH <= WARP && (WIDTH & (WIDTH - 1)) == 0),
                "width is a power of two up to a warp, or the whole block");
  static_assert(GROUPS * WIDTH == BLOCK, "groups tile the block");
  static_assert(TEAM == (WIDTH < WARP ? WIDTH : WARP), "a team is the group's lanes within one warp (shuffle width)");
  static constexpr bool ok = true;
};

// fill_src is the src kernel's body: src[e] = u for every oriented edge
// e = (u, v). A warp per vertex writes u over its edge range, so hubs are
// written coalesced.
template <u32 BLOCK>
__device__ __forceinline__ void fill_src(const u64* __restrict__ off, u32 n, u32* __restrict__ src) {
  constexpr u32 PER_BLOCK = BLOCK / WARP;  // vertices a block holds at once
  const u32 lane = threadIdx.x % WARP;
  for (u64 u = (u64)blockIdx.x * PER_BLOCK + threadIdx.x / WARP; u < n; u += (u64)gridDim.x * PER_BLOCK) {
    const u64 end = off[u + 1];
    for (u64 e = off[u] + lane; e < end; e += WARP) src[e] = (u32)u;
  }
}

// add_count sums c over the warp with shuffles and lets lane 0 add the sum
// to *slot: one atomic per warp. Every lane of the warp must call it.
__device__ __forceinline__ void add_count(u64 c, u64* __restrict__ slot) {
#pragma unroll
  for (u32 d = WARP / 2; d > 0; d >>= 1) c += __shfl_down_sync(FULL_MASK, c, d);
  if (threadIdx.x % WARP == 0 && c != 0) atomicAdd(slot, c);
}

// finish_count ends a one-launch class kernel (every thread of the block
// calls it, once, last): the warps' sums meet in shared memory, thread 0
// adds the block's into the class's accumulator counts[nslots + slot], and
// the last block to finish (a ticket counted with atomicInc, which wraps
// back to 0 by itself) moves the total into the output counts[slot] and
// zeroes the accumulator. The next pass then needs no memset: one launch is
// the whole pass. Thread 0 fences between its add and its ticket, and the
// last block fences before reading, so the total holds every block's sum
// (the threadfence reduction pattern); one fence per block, since a fence
// per warp stalled short kernels (docs/performance.md, "Short lists").
__device__ __forceinline__ void finish_count(u64 c, u64* __restrict__ counts, u32 slot, u32 nslots) {
  __shared__ u64 part[WARP];  // one sum per warp (a block is at most 32 warps)
#pragma unroll
  for (u32 d = WARP / 2; d > 0; d >>= 1) c += __shfl_down_sync(FULL_MASK, c, d);
  if (threadIdx.x % WARP == 0) part[threadIdx.x / WARP] = c;
  __syncthreads();
  if (threadIdx.x == 0) {
    u64 s = 0;
    for (u32 w = 0; w < blockDim.x / WARP; ++w) s += part[w];
    if (s != 0) atomicAdd(counts + nslots + slot, s);
    __threadfence();
    u32* const ticket = (u32*)(counts + 2 * nslots + slot);
    if (atomicInc(ticket, gridDim.x - 1) == gridDim.x - 1) {
      __threadfence();
      counts[slot] = atomicExch(counts + nslots + slot, 0ull);
    }
  }
}

// block_inclusive_scan returns the inclusive prefix sum of x over the block
// (threads in order). tmp holds one u64 per warp. It synchronises the block
// twice; every thread must call it, and tmp must not be reused before the
// next __syncthreads.
template <u32 BLOCK>
__device__ __forceinline__ u64 block_inclusive_scan(u64 x, u64* tmp) {
  constexpr u32 WARPS = BLOCK / WARP;
  const u32 lane = threadIdx.x % WARP, w = threadIdx.x / WARP;
#pragma unroll
  for (u32 d = 1; d < WARP; d <<= 1) {
    const u64 y = __shfl_up_sync(FULL_MASK, x, d);
    if (lane >= d) x += y;
  }
  if (lane == WARP - 1) tmp[w] = x;
  __syncthreads();
  if (w == 0) {
    u64 t = lane < WARPS ? tmp[lane] : 0;
#pragma unroll
    for (u32 d = 1; d < WARP; d <<= 1) {
      const u64 y = __shfl_up_sync(FULL_MASK, t, d);
      if (lane >= d) t += y;
    }
    if (lane < WARPS) tmp[lane] = t;
  }
  __syncthreads();
  return w > 0 ? x + tmp[w - 1] : x;
}

// first_above returns the first index in [k, n) whose prefix sum exceeds p,
// given that pre[n-1] > p and that the answer is at least k. A thread's
// positions only grow, so it gallops forward from its last answer instead
// of searching the whole range.
__device__ __forceinline__ u32 first_above(const u64* pre, u32 k, u32 n, u64 p) {
  if (pre[k] > p) return k;
  u32 lo = k, step = 1, hi = k + 1;  // pre[lo] <= p
  while (hi < n && pre[hi] <= p) {
    lo = hi;
    step <<= 1;
    hi = lo + step;
  }
  if (hi > n) hi = n;
  for (u32 l = lo + 1; l < hi;) {  // the answer is in (lo, hi]
    const u32 mid = (l + hi) >> 1;
    if (pre[mid] <= p) l = mid + 1; else hi = mid;
  }
  return hi;
}

}  // namespace tc
