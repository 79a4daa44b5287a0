// The list-by-list walk measured in times-walk-lists.tsv (a vertex/hash group of WIDTH lanes
// strides over one N+(v) at a time), as generated for lists-w32-b64.yaml; not kept.
__device__ __forceinline__ u64 walk(const u64* __restrict__ off, const u32* __restrict__ adj, u64 a0, u64 a1, u32 lane, const u32* sm) {
  u64 c = 0;
  for (u64 j0 = a0; j0 < a1; j0 += TEAM) {
    const u32 tm = tmask();
    const u64 j = j0 + lane;
    u64 vb = 0, dv = 0;  // N+(v) = adj[vb, vb + dv) of this lane's v
    if (j < a1) {
      const u32 v = adj[j];
      vb = off[v];
      dv = off[v + 1] - vb;
    }
    // One N+(v) at a time: its bounds shuffled once, the lanes over its
    // entries.
    const u32 nv = a1 - j0 < TEAM ? (u32)(a1 - j0) : TEAM;  // the group's v's this round
    for (u32 k = 0; k < nv; ++k) {
      const u64 kb = __shfl_sync(tm, vb, k, TEAM);
      const u32 kd = __shfl_sync(tm, (u32)dv, k, TEAM);
      // id order: w > v, so only N+(u) after v (at j0 + k) can hold it.
      const u64 from = ID_ORDERED ? j0 + k + 1 : a0;
      for (u32 q = lane; q < kd; q += TEAM) {
        const u64 pw = kb + q;
        c += probe(adj, a0, a1, from, adj[pw], sm);
      }
    }
  }
  return c;
}
