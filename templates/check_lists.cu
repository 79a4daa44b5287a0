#include "tcgen.cuh"  // u32, u64, WARP, FULL_MASK

// tcgen: the adjacency checks of a CSR file, made on the GPU after the
// upload (runtime/executor/upload.go): every list strictly increasing, every
// entry a vertex, no self loop. The host then joins only the file's
// checksum (graph.AdjCheck.FillChecksum). A warp takes a vertex at a time
// and reads its list 32 entries per step, so the section is read once,
// coalesced, whatever the degrees. (A warp walking 32 lists per step, the
// owner of each entry found by shuffles, was tried: the check and the
// checksum's join still took 5-7 ms on RMAT-24 on the H100; not kept.)
// *bad receives the lowest position of a bad entry found (the host finds
// the first one itself, to name it); it starts at ~0.
extern "C" __global__ void __launch_bounds__(256)
tcgen_check_lists(const u64* __restrict__ off, const u32* __restrict__ adj, u64 n, u64* bad) {
  const u32 lane = threadIdx.x % WARP;
  const u64 warps = (u64)gridDim.x * blockDim.x / WARP;
  for (u64 v = (blockIdx.x * (u64)blockDim.x + threadIdx.x) / WARP; v < n; v += warps) {
    const u64 lo = off[v], hi = off[v + 1];
    for (u64 base = lo; base < hi; base += WARP) {
      const u64 e = base + lane;
      bool wrong = false;
      if (e < hi) {
        const u32 w = adj[e];
        wrong = w >= n || w == v || (e > lo && adj[e - 1] >= w);
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
