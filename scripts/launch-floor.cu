// launch-floor: what a pass of N short kernels costs between two events,
// launched one by one on a stream or as one CUDA graph (nvcc -O2).
// Usage: launch-floor [reps]. Prints the median and min per pass, in us.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void touch(unsigned long long *c) {
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(c, 1ull);
}

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

static void report(const char *what, std::vector<float> &t) {
  std::sort(t.begin(), t.end());
  printf("%-34s median %7.2f us  min %7.2f us\n", what, 1000 * t[t.size() / 2], 1000 * t[0]);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 200;
  unsigned long long *c;
  CK(cudaMalloc(&c, 8));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int n : {1, 2, 7}) {
    for (int grid : {1, 1056}) {
      std::vector<float> t;
      for (int r = 0; r < reps + 20; r++) {
        CK(cudaEventRecord(a, s));
        for (int k = 0; k < n; k++) touch<<<grid, 128, 0, s>>>(c);
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 20) t.push_back(ms);
      }
      char what[64];
      snprintf(what, sizeof what, "stream: %d kernels of %d blocks", n, grid);
      report(what, t);
      cudaGraph_t g;
      cudaGraphExec_t ge;
      CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
      for (int k = 0; k < n; k++) touch<<<grid, 128, 0, s>>>(c);
      CK(cudaStreamEndCapture(s, &g));
      CK(cudaGraphInstantiate(&ge, g, 0));
      t.clear();
      for (int r = 0; r < reps + 20; r++) {
        CK(cudaEventRecord(a, s));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaEventRecord(b, s));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r >= 20) t.push_back(ms);
      }
      snprintf(what, sizeof what, "graph:  %d kernels of %d blocks", n, grid);
      report(what, t);
      CK(cudaGraphExecDestroy(ge));
      CK(cudaGraphDestroy(g));
    }
  }
  return 0;
}
