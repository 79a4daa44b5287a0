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

// tcgen: a packed CSR file's lists (3 little-endian bytes an entry,
// graph/packed.go), sent to the device as stored and unpacked here into
// the adjacency buffer before the checks above: a quarter fewer bytes
// cross from the host, whose memory bandwidth bounds the upload. A thread
// turns 3 words into 4 entries and stores them as one 16-byte word; the
// packed buffer is whole groups of 12 bytes, the bytes past the lists
// read and dropped.
extern "C" __global__ void __launch_bounds__(256)
tcgen_unpack24(const unsigned int* __restrict__ packed, unsigned int* __restrict__ adj, unsigned long long m) {
  const unsigned long long groups = (m + 3) / 4;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long g = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; g < groups; g += stride) {
    const unsigned int w0 = packed[3 * g], w1 = packed[3 * g + 1], w2 = packed[3 * g + 2];
    const unsigned int e0 = w0 & 0xffffffu, e1 = (w0 >> 24) | ((w1 & 0xffffu) << 8);
    const unsigned int e2 = (w1 >> 16) | ((w2 & 0xffu) << 16), e3 = w2 >> 8;
    const unsigned long long e = 4 * g;
    if (e + 4 <= m) {
      reinterpret_cast<uint4*>(adj)[g] = make_uint4(e0, e1, e2, e3);
    } else {
      adj[e] = e0;
      if (e + 1 < m) adj[e + 1] = e1;
      if (e + 2 < m) adj[e + 2] = e2;
    }
  }
}
