// tcgen: the adjacency checks of a CSR file, made on the GPU after the
// upload (runtime/upload.go): every list strictly increasing, every entry a
// vertex, no self loop. The host then joins only the file's checksum
// (graph.AdjCheck.FillChecksum). A warp takes 32 consecutive vertices at a
// time and walks their lists, one concatenated range, 32 entries per step:
// loads stay coalesced and independent whatever the degrees (a warp per
// vertex waited on two dependent loads per vertex: with the checksum's join,
// 5-8 ms on RMAT-24's 16.7 M vertices on the H100). Each entry's owner is
// found among the 32
// list starts with shuffles. *bad receives the lowest position of a bad
// entry found (the host finds the first one itself, to name it); it starts
// at ~0.
extern "C" __global__ void __launch_bounds__(256)
tcgen_check_lists(const unsigned long long* __restrict__ off, const unsigned int* __restrict__ adj,
                  unsigned long long n, unsigned long long* bad) {
  const unsigned full = 0xffffffffu;
  const unsigned lane = threadIdx.x & 31;
  const unsigned long long warps = ((unsigned long long)gridDim.x * blockDim.x) >> 5;
  const unsigned long long warp = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) >> 5;
  for (unsigned long long v0 = warp * 32; v0 < n; v0 += warps * 32) {
    // Lane k holds where vertex v0 + k's list starts (the section's end
    // for the vertices past n).
    const unsigned long long vk = v0 + lane;
    const unsigned long long start = off[vk < n ? vk : n];
    const unsigned long long lo = __shfl_sync(full, start, 0);
    const unsigned long long hi = off[v0 + 32 < n ? v0 + 32 : n];
    for (unsigned long long base = lo; base < hi; base += 32) {  // warp-uniform
      const unsigned long long e = base + lane;
      // The owner of entry e: the last of the 32 whose list starts at or
      // before it (starts never decrease: the host checked the offsets).
      unsigned k = 0;
      for (unsigned step = 16; step > 0; step >>= 1) {
        const unsigned long long s = __shfl_sync(full, start, k + step);
        if (s <= e) k += step;
      }
      const unsigned long long first = __shfl_sync(full, start, k);
      bool wrong = false;
      if (e < hi) {
        const unsigned int w = adj[e];
        wrong = w >= n || w == v0 + k || (e > first && adj[e - 1] >= w);
      }
      const unsigned int ballot = __ballot_sync(full, wrong);
      if (ballot != 0) {  // warp-uniform
        if (lane == 0) {
          atomicMin(bad, base + (unsigned long long)(__ffs(ballot) - 1));
        }
        break;
      }
    }
  }
}
