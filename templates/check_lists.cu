// tcgen: the adjacency checks of a CSR file, made on the GPU after the
// upload (runtime/upload.go): every list strictly increasing, every
// entry a vertex, no self loop. The host then joins only the file's
// checksum (graph.AdjCheck.FillChecksum). A warp takes a vertex at a time
// and reads its list 32 entries per step, so the section is read once,
// coalesced, whatever the degrees. (A warp walking 32 lists per step, the
// owner of each entry found by shuffles, was tried: the check and the
// checksum's join still took 5-7 ms on RMAT-24 on the H100; not kept.)
// *bad receives the lowest position of a bad entry found (the host finds
// the first one itself, to name it); it starts at ~0.
extern "C" __global__ void __launch_bounds__(256)
tcgen_check_lists(const unsigned long long* __restrict__ off, const unsigned int* __restrict__ adj,
                  unsigned long long n, unsigned long long* bad) {
  const unsigned lane = threadIdx.x & 31;
  const unsigned long long warps = ((unsigned long long)gridDim.x * blockDim.x) >> 5;
  for (unsigned long long v = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) >> 5; v < n; v += warps) {
    const unsigned long long lo = off[v], hi = off[v + 1];
    for (unsigned long long base = lo; base < hi; base += 32) {
      const unsigned long long e = base + lane;
      bool wrong = false;
      if (e < hi) {
        const unsigned int w = adj[e];
        wrong = w >= n || w == v || (e > lo && adj[e - 1] >= w);
      }
      const unsigned int ballot = __ballot_sync(0xffffffffu, wrong);
      if (ballot != 0) { // warp-uniform
        if (lane == 0) {
          atomicMin(bad, base + (unsigned long long)(__ffs(ballot) - 1));
        }
        break;
      }
    }
  }
}
