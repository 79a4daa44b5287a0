// A fake libcuda for tests on machines without a GPU. "Device" memory is host
// memory and two kernels are emulated on the CPU, so the Go side's argument
// marshalling, pinning, context handling, JIT log plumbing and error mapping
// run for real. Only the entry points tcgen binds exist.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

#define CTX ((void *)0x7ac7)
#define MEM_TOTAL (1ull << 30)

static int no_device;
static int ctx_refs;
static unsigned long long allocated;
static int max_dynamic_shared[3];
static __thread void *current;

// Test controls, not part of the CUDA API.
void fake_set_no_device(int v) { no_device = v; }
int fake_ctx_refs(void) { return ctx_refs; }

static const char *names[][2] = {
    {"CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {"CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {"CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {"CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {"CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {"CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {"CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {"CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing"},
};
static int codes[] = {1, 2, 100, 101, 201, 218, 500, 900};

static CUresult lookup(CUresult e, const char **s, int which) {
    for (unsigned i = 0; i < sizeof codes / sizeof codes[0]; i++)
        if (codes[i] == e) {
            *s = names[i][which];
            return 0;
        }
    return 1;
}
CUresult cuGetErrorName(CUresult e, const char **s) { return lookup(e, s, 0); }
CUresult cuGetErrorString(CUresult e, const char **s) { return lookup(e, s, 1); }

CUresult cuInit(unsigned flags) { return no_device ? 100 : 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int ordinal) {
    if (ordinal != 0) return 101;
    *d = 0;
    return 0;
}
CUresult cuDeviceGetName(char *name, int len, int dev) {
    strncpy(name, "Fake GPU", len);
    return 0;
}
CUresult cuDeviceGetUuid_v2(unsigned char *u, int dev) {
    for (int i = 0; i < 16; i++) u[i] = (unsigned char)(i * 17);
    return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *b, int dev) { *b = MEM_TOTAL; return 0; }
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
    switch (attr) {
    case 13: *v = 1980000; return 0;
    case 16: *v = 132; return 0;
    case 36: *v = 2619000; return 0;
    case 38: *v = 52428800; return 0;
    case 75: *v = 9; return 0;
    case 76: *v = 0; return 0;
    case 81: *v = 233472; return 0;
    case 97: *v = 232448; return 0;
    }
    return 1;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
    ctx_refs++;
    *ctx = CTX;
    return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(int dev) {
    ctx_refs--;
    return 0;
}
CUresult cuCtxSetCurrent(void *ctx) {
    current = ctx;
    return 0;
}

// Calls that need a context fail unless this thread has it current.
#define NEED_CTX                   \
    do {                           \
        if (current != CTX) return 201; \
    } while (0)

CUresult cuCtxSynchronize(void) { NEED_CTX; return 0; }
CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
    NEED_CTX;
    *free = MEM_TOTAL - allocated;
    *total = MEM_TOTAL;
    return 0;
}
// Each allocation keeps its size in a 16-byte header for cuMemFree.
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    NEED_CTX;
    if (n == 0) return 1;
    if (n > MEM_TOTAL - allocated) return 2;
    char *m = malloc(n + 16);
    if (!m) return 2;
    *(size_t *)m = n;
    allocated += n;
    *p = (CUdeviceptr)(uintptr_t)(m + 16);
    return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
    NEED_CTX;
    char *m = (char *)(uintptr_t)p - 16;
    allocated -= *(size_t *)m;
    free(m);
    return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) {
    NEED_CTX;
    memcpy((void *)(uintptr_t)dst, src, n);
    return 0;
}
int host_allocs; // live pinned buffers, for the tests
CUresult cuMemHostAlloc(void **pp, size_t n, unsigned flags) {
    NEED_CTX;
    *pp = malloc(n);
    if (!*pp) return 2;
    host_allocs++;
    return 0;
}
CUresult cuMemFreeHost(void *p) {
    NEED_CTX;
    free(p);
    host_allocs--;
    return 0;
}
int fake_host_allocs(void) { return host_allocs; }
int async_copies;
int fake_async_copies(void) { return async_copies; }
// Streams run their work at once; each call on one notes it in
// last_stream, and the live streams and pinned ranges are counted.
static void *last_stream;
static int live_streams, registered;
void *fake_last_stream(void) { return last_stream; }
int fake_live_streams(void) { return live_streams; }
int fake_registered(void) { return registered; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *stream) {
    NEED_CTX;
    memcpy((void *)(uintptr_t)dst, src, n);
    async_copies++;
    last_stream = stream;
    return 0;
}
CUresult cuStreamCreate(void **s, unsigned flags) {
    NEED_CTX;
    *s = malloc(1);
    live_streams++;
    return 0;
}
CUresult cuStreamDestroy_v2(void *s) {
    free(s);
    live_streams--;
    return 0;
}
CUresult cuStreamSynchronize(void *s) { NEED_CTX; return 0; }
CUresult cuStreamWaitEvent(void *s, void *ev, unsigned flags) {
    NEED_CTX;
    last_stream = s;
    return ev ? 0 : 400;
}
// Capture: while a stream captures, add1 launches, async memsets and
// external event records on it are recorded (64 at most), not run; a graph
// launch runs them. Work on other streams runs at once, as the driver
// does (tcgen refuses it itself while capturing).
enum { OP_ADD1, OP_MEMSET, OP_EVENT };
struct op {
    int kind;
    CUdeviceptr p;
    unsigned long long n;
    void *ev;
};
struct graph {
    int n;
    struct op ops[64];
};
static void *capturing;
static struct graph *building;
static int last_graph_ops;
int fake_last_graph_ops(void) { return last_graph_ops; }
static CUresult record(int kind, CUdeviceptr p, unsigned long long n, void *ev) {
    if (building->n == 64) return 1;
    building->ops[building->n++] = (struct op){kind, p, n, ev};
    return 0;
}
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, void *stream) {
    NEED_CTX;
    if (stream && stream == capturing) return v ? 1 : record(OP_MEMSET, dst, n, 0);
    memset((void *)(uintptr_t)dst, v, n);
    last_stream = stream;
    return 0;
}
// Read-only pinning (flag 8) only, as tcgen asks for it.
CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned flags) {
    NEED_CTX;
    if (flags != 8) return 1;
    registered++;
    return 0;
}
CUresult cuMemHostUnregister(void *p) {
    NEED_CTX;
    registered--;
    return 0;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) {
    NEED_CTX;
    memcpy(dst, (void *)(uintptr_t)src, n);
    return 0;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) {
    NEED_CTX;
    memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
    return 0;
}
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n) {
    NEED_CTX;
    memset((void *)(uintptr_t)dst, v, n);
    return 0;
}
CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned v, size_t n) {
    NEED_CTX;
    unsigned *d = (unsigned *)(uintptr_t)dst;
    for (size_t i = 0; i < n; i++) d[i] = v;
    return 0;
}

// A module whose image starts with "//bad" fails to load with a JIT log.
static void put_log(unsigned n, const int *opts, void **vals, int buf_opt, int size_opt, const char *text) {
    char *buf = 0;
    size_t size = 0;
    for (unsigned i = 0; i < n; i++) {
        if (opts[i] == buf_opt) buf = vals[i];
        if (opts[i] == size_opt) size = (size_t)(uintptr_t)vals[i];
    }
    if (!buf || size == 0) return;
    strncpy(buf, text, size - 1);
    buf[size - 1] = 0;
    for (unsigned i = 0; i < n; i++)
        if (opts[i] == size_opt) vals[i] = (void *)(uintptr_t)(strlen(buf) + 1);
}
CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n, int *opts, void **vals) {
    NEED_CTX;
    if (strncmp(image, "//bad", 5) == 0) {
        put_log(n, opts, vals, 5, 6, "fake ptxas: syntax error at line 1");
        return 218;
    }
    put_log(n, opts, vals, 3, 4, "fake jit: ok");
    *mod = malloc(1);
    return 0;
}
CUresult cuModuleUnload(void *mod) {
    NEED_CTX;
    free(mod);
    return 0;
}
CUresult cuModuleGetFunction(void **f, void *mod, const char *name) {
    NEED_CTX;
    if (strcmp(name, "add1") == 0) *f = (void *)1;
    else if (strcmp(name, "args") == 0) *f = (void *)2;
    else return 500;
    return 0;
}
CUresult cuFuncSetAttribute(void *f, int attr, int v) {
    NEED_CTX;
    if (attr != 8 || v > 232448) return 1;
    max_dynamic_shared[(uintptr_t)f] = v;
    return 0;
}
CUresult cuFuncGetAttribute(int *v, int attr, void *f) {
    NEED_CTX;
    static const int vals[] = {1024, 16, 0, 8, 32};
    if (attr < 0 || attr > 4) return 1;
    *v = vals[attr];
    return 0;
}

// Blocks per SM: by threads (2048 an SM) and by dynamic shared memory
// (228 KiB an SM, 1 KiB reserved per block), at most 32.
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int block, size_t dyn) {
    NEED_CTX;
    if (block <= 0 || block > 1024) return 1;
    int b = 2048 / block;
    int s = (int)((228 * 1024) / (dyn + 1024));
    if (s < b) b = s;
    *n = b < 32 ? b : 32;
    return 0;
}

// add1(uint32_t *a, uint32_t n): a[i] += 1 for every thread i < n.
// args(uint64_t *out, uint32_t, int32_t, uint64_t, int64_t, float, double):
// stores each value widened to 64 bits (floats as their bits).
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) {
    NEED_CTX;
    if (gx == 0 || bx == 0 || gy == 0 || by == 0 || gz == 0 || bz == 0) return 1;
    uintptr_t k = (uintptr_t)f;
    if (shared > 49152 && (int)shared > max_dynamic_shared[k]) return 1;
    last_stream = stream;
    unsigned long long threads = (unsigned long long)gx * gy * gz * bx * by * bz;
    if (stream && stream == capturing) {
        if (k != 1) return 900;
        uint32_t n = *(uint32_t *)params[1];
        return record(OP_ADD1, *(CUdeviceptr *)params[0], threads < n ? threads : n, 0);
    }
    if (k == 1) {
        uint32_t *a = (uint32_t *)(uintptr_t)*(CUdeviceptr *)params[0];
        uint32_t n = *(uint32_t *)params[1];
        for (unsigned long long i = 0; i < threads && i < n; i++) a[i] += 1;
        return 0;
    }
    if (k == 2) {
        uint64_t *out = (uint64_t *)(uintptr_t)*(CUdeviceptr *)params[0];
        out[0] = *(uint32_t *)params[1];
        out[1] = (uint64_t)(int64_t) * (int32_t *)params[2];
        out[2] = *(uint64_t *)params[3];
        out[3] = (uint64_t) * (int64_t *)params[4];
        uint32_t fb;
        memcpy(&fb, params[5], 4);
        out[4] = fb;
        memcpy(&out[5], params[6], 8);
        return 0;
    }
    return 400;
}

CUresult cuEventCreate(void **ev, unsigned flags) {
    NEED_CTX;
    *ev = calloc(1, sizeof(struct timespec));
    return 0;
}
CUresult cuEventRecord(void *ev, void *stream) {
    NEED_CTX;
    last_stream = stream;
    clock_gettime(CLOCK_MONOTONIC, ev);
    return 0;
}
CUresult cuEventSynchronize(void *ev) { return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
    struct timespec *s = a, *e = b;
    *ms = (float)((e->tv_sec - s->tv_sec) * 1e3 + (e->tv_nsec - s->tv_nsec) / 1e6);
    return 0;
}
CUresult cuEventDestroy_v2(void *ev) {
    free(ev);
    return 0;
}
CUresult cuEventRecordWithFlags(void *ev, void *stream, unsigned flags) {
    NEED_CTX;
    if (stream && stream == capturing) return flags == 1 ? record(OP_EVENT, 0, 0, ev) : 900;
    return cuEventRecord(ev, stream);
}
CUresult cuStreamBeginCapture_v2(void *stream, int mode) {
    NEED_CTX;
    if (!stream || capturing) return 1;
    capturing = stream;
    building = calloc(1, sizeof *building);
    return 0;
}
CUresult cuStreamEndCapture(void *stream, void **graph) {
    NEED_CTX;
    if (stream != capturing) return 1;
    capturing = 0;
    last_graph_ops = building->n;
    *graph = building;
    return 0;
}
CUresult cuGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long flags) {
    NEED_CTX;
    *exec = graph; // the graph's ops, run as they are
    return 0;
}
CUresult cuGraphLaunch(void *exec, void *stream) {
    NEED_CTX;
    struct graph *g = exec;
    for (int i = 0; i < g->n; i++) {
        struct op *o = &g->ops[i];
        uint32_t *a = (uint32_t *)(uintptr_t)o->p;
        switch (o->kind) {
        case OP_ADD1:
            for (unsigned long long j = 0; j < o->n; j++) a[j] += 1;
            break;
        case OP_MEMSET:
            memset(a, 0, o->n);
            break;
        case OP_EVENT:
            clock_gettime(CLOCK_MONOTONIC, o->ev);
            break;
        }
    }
    return 0;
}
CUresult cuGraphExecDestroy(void *exec) { return 0; }
CUresult cuGraphDestroy(void *graph) {
    free(graph);
    return 0;
}
