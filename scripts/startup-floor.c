// startup-floor: what a process pays to use a GPU at all, step by step, so
// tcgen's end-to-end time can be read against the floor any CUDA program
// pays (scripts/gpu-startup.sh builds and runs it on the GPU machine).
//
//   startup-floor [nvml] [parallel-nvml] [parallel-nvrtc] [release] [quick-exit]
//
// nvml: nvmlInit_v2 before the context (and nvmlShutdown at the end);
// parallel-nvml: nvmlInit_v2 on a second thread while the context starts;
// parallel-nvrtc: dlopen NVRTC ($NVRTC, else libnvrtc.so.13) and ask its
// version on a second thread while the context starts, as tcgen does;
// release: cuDevicePrimaryCtxRelease before exit; quick-exit: _exit(0)
// (no atexit handlers) instead of exit(0). Prints one line of step times
// in ms; the caller times the whole process.
#include <cuda.h>
#include <dlfcn.h>
#include <nvml.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void check(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "%s failed: %d\n", what, (int)r);
    exit(1);
  }
}

static double nvml_ms;
static void* nvml_init(void* arg) {
  (void)arg;
  double t = now_ms();
  if (nvmlInit_v2() != NVML_SUCCESS) fprintf(stderr, "nvmlInit_v2 failed\n");
  nvml_ms = now_ms() - t;
  return NULL;
}

static double nvrtc_ms;
static void* nvrtc_load(void* arg) {
  (void)arg;
  double t = now_ms();
  const char* path = getenv("NVRTC") ? getenv("NVRTC") : "libnvrtc.so.13";
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  int (*version)(int*, int*) = h ? (int (*)(int*, int*))dlsym(h, "nvrtcVersion") : NULL;
  int major = 0, minor = 0;
  if (!version || version(&major, &minor) != 0) fprintf(stderr, "NVRTC %s: %s\n", path, h ? "no nvrtcVersion" : dlerror());
  nvrtc_ms = now_ms() - t;
  return NULL;
}

int main(int argc, char** argv) {
  int nvml = 0, par = 0, nvrtc = 0, release = 0, quick = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "nvml")) nvml = 1;
    else if (!strcmp(argv[i], "parallel-nvml")) par = 1;
    else if (!strcmp(argv[i], "parallel-nvrtc")) nvrtc = 1;
    else if (!strcmp(argv[i], "release")) release = 1;
    else if (!strcmp(argv[i], "quick-exit")) quick = 1;
    else { fprintf(stderr, "unknown option %s\n", argv[i]); return 2; }
  }
  pthread_t th, th2;
  if (par) pthread_create(&th, NULL, nvml_init, NULL);
  if (nvrtc) pthread_create(&th2, NULL, nvrtc_load, NULL);
  if (nvml) nvml_init(NULL);
  double t0 = now_ms();
  check(cuInit(0), "cuInit");
  double t1 = now_ms();
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  double t2 = now_ms();
  CUdeviceptr p;
  check(cuMemAlloc(&p, 1 << 20), "cuMemAlloc");
  check(cuMemsetD8(p, 0, 1 << 20), "cuMemsetD8");
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  double t3 = now_ms();
  if (par) pthread_join(th, NULL);
  if (nvrtc) pthread_join(th2, NULL);
  double t4 = now_ms();
  check(cuMemFree(p), "cuMemFree");
  if (release) check(cuDevicePrimaryCtxRelease(dev), "cuDevicePrimaryCtxRelease");
  double t5 = now_ms();
  double shut = 0;
  if (nvml || par) {
    shut = now_ms();
    nvmlShutdown();
    shut = now_ms() - shut;
  }
  printf("nvrtc_load %.1f ", nvrtc_ms);
  printf("nvml_init %.1f cuInit %.1f ctx %.1f first_alloc %.1f nvml_wait %.1f release %.1f nvml_shutdown %.1f\n",
         nvml_ms, t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, shut);
  fflush(stdout);
  if (quick) _exit(0);
  return 0;
}
