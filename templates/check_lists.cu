#include "tcgen.cuh"  // u32, u64, WARP, FULL_MASK

// What an oriented file's arcs must follow besides the lists' checks
// (graph.ArcOrder): nothing more (an undirected file, whose symmetry the
// host checks), every entry above its vertex (by id, or relabelled), or
// (deg u, u) < (deg v, v) for every arc u -> v (by degree, not relabelled),
// deg the out-degree plus the in-degree that tcgen_degrees sums.
#define TCGEN_ARCS_ANY 0
#define TCGEN_ARCS_UP 1
#define TCGEN_ARCS_BY_DEGREE 2

// tcgen: the adjacency checks of a CSR file, made on the GPU after the
// upload (runtime/executor/upload.go): every list strictly increasing, every
// entry a vertex, no self loop, every arc forward in the file's order. The
// host then joins only the file's checksum (graph.AdjCheck.FillChecksum).
// A warp takes a vertex at a time and reads its list 32 entries per step,
// so the section is read once, coalesced, whatever the degrees (under
// TCGEN_ARCS_BY_DEGREE deg too, at random). (A warp walking 32 lists per
// step, the owner of each entry found by shuffles, was tried: the check
// and the checksum's join still took 5-7 ms on RMAT-24 on the H100; not
// kept.)
// deg: tcgen_degrees' sums under TCGEN_ARCS_BY_DEGREE, else unused.
// *bad receives the lowest position of a bad entry found (the host finds
// the first one itself, to name it); it starts at ~0.
extern "C" __global__ void __launch_bounds__(256)
tcgen_check_lists(const u64* __restrict__ off, const u32* __restrict__ adj, u64 n, u32 order,
                  const u32* __restrict__ deg, u64* bad) {
  const u32 lane = threadIdx.x % WARP;
  const u64 warps = (u64)gridDim.x * blockDim.x / WARP;
  for (u64 v = (blockIdx.x * (u64)blockDim.x + threadIdx.x) / WARP; v < n; v += warps) {
    const u64 lo = off[v], hi = off[v + 1];
    const u32 dv = order == TCGEN_ARCS_BY_DEGREE ? deg[v] : 0;
    for (u64 base = lo; base < hi; base += WARP) {
      const u64 e = base + lane;
      bool wrong = false;
      if (e < hi) {
        const u32 w = adj[e];
        wrong = w >= n || w == v || (e > lo && adj[e - 1] >= w);
        if (!wrong && order == TCGEN_ARCS_UP) {
          wrong = w < v;
        } else if (!wrong && order == TCGEN_ARCS_BY_DEGREE) {
          const u32 dw = deg[w];  // w < n: checked above
          wrong = dw < dv || (dw == dv && w < v);
        }
      }
      const u32 ballot = __ballot_sync(FULL_MASK, wrong);
      if (ballot != 0) { // warp-uniform
        if (lane == 0) {
          atomicMin(bad, base + (u64)(__ffs(ballot) - 1));
        }
        break;
      }
    }
  }
}

// tcgen: each vertex's out-degree plus in-degree in the uploaded lists,
// into deg (zeroed), before tcgen_check_lists checks a file oriented by
// degree: a thread per entry (and per vertex), one atomic add each;
// entries past n are left to the check. Sorted lists hold an entry once,
// so a sum wraps only in a file the check refuses anyway (graph.ArcOrder).
extern "C" __global__ void __launch_bounds__(256)
tcgen_degrees(const u64* __restrict__ off, const u32* __restrict__ adj, u64 n, u64 m, u32* deg) {
  const u64 stride = (u64)gridDim.x * blockDim.x;
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < m || i < n; i += stride) {
    if (i < m) {
      const u32 w = adj[i];
      if (w < n) atomicAdd(&deg[w], 1u);
    }
    if (i < n) atomicAdd(&deg[i], (u32)(off[i + 1] - off[i]));
  }
}

// tcgen: a packed CSR file's lists (3 little-endian bytes an entry,
// graph/packed.go), sent to the device as stored and unpacked here into
// the adjacency buffer before the checks above: a quarter fewer bytes
// cross from the host, whose memory bandwidth bounds the upload. A thread
// turns 3 words into 4 entries and stores them as one 16-byte word; the
// packed buffer is whole groups of 12 bytes, the bytes past the lists
// read and dropped.
extern "C" __global__ void __launch_bounds__(256)
tcgen_unpack24(const u32* __restrict__ packed, u32* __restrict__ adj, u64 m) {
  const u64 groups = (m + 3) / 4;
  const u64 stride = (u64)gridDim.x * blockDim.x;
  for (u64 g = blockIdx.x * (u64)blockDim.x + threadIdx.x; g < groups; g += stride) {
    const u32 w0 = packed[3 * g], w1 = packed[3 * g + 1], w2 = packed[3 * g + 2];
    const u32 e0 = w0 & 0xffffffu, e1 = (w0 >> 24) | ((w1 & 0xffffu) << 8);
    const u32 e2 = (w1 >> 16) | ((w2 & 0xffu) << 16), e3 = w2 >> 8;
    const u64 e = 4 * g;
    if (e + 4 <= m) {
      reinterpret_cast<uint4*>(adj)[g] = make_uint4(e0, e1, e2, e3);
    } else {
      adj[e] = e0;
      if (e + 1 < m) adj[e + 1] = e1;
      if (e + 2 < m) adj[e + 2] = e2;
    }
  }
}
