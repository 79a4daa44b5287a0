//go:build cgo && linux

package main

/*
#cgo LDFLAGS: -ldl -lpthread
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// tcgen_gpu_count is gpuCount (main.go) in C: a count whose backend may be
// the GPU. The two are tested to agree (early_cgo_test.go).
static int tcgen_gpu_count(int argc, char **argv) {
	int count = 0;
	for (int i = 1; i < argc && argv[i] != NULL; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) return count;
		if (strcmp(a, "count") == 0) count = 1;
		if (strcmp(a, "--backend=cpu") == 0) return 0;
		if (strcmp(a, "--backend") == 0 && i + 1 < argc && argv[i+1] != NULL && strcmp(argv[i+1], "cpu") == 0) return 0;
	}
	return count;
}

static void *tcgen_cuinit(void *arg) {
	(void)arg;
	// The handle stays open: the runtime's own dlopen of the same name
	// takes this library, and its cuInit finds the driver started.
	void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (h == NULL) return NULL;
	int (*init)(unsigned int) = (int (*)(unsigned int))dlsym(h, "cuInit");
	if (init != NULL) init(0);
	return NULL;
}

// tcgen_early runs before the Go runtime starts (glibc passes a
// constructor the arguments). Every tcgen context gets one work queue
// (CUDA_DEVICE_MAX_CONNECTIONS, default 8; a value the user set stays):
// tcgen launches its work on one stream at a time (but for a partitioned
// count's copy and compute streams, which then share the queue), and on an
// H200 the context was then made 47 ms sooner and released 36 ms sooner,
// with the same pass times, partitioned counts included
// (docs/performance.md, "End to end"). The driver reads C's environment;
// Go's own copy does not see this. For a GPU count it then starts the
// driver's cuInit, about 100 ms, on a thread of its own, some milliseconds
// sooner than main could.
__attribute__((constructor)) static void tcgen_early(int argc, char **argv, char **envp) {
	(void)envp;
	setenv("CUDA_DEVICE_MAX_CONNECTIONS", "1", 0);
#ifdef __GLIBC__
	// Only glibc passes a constructor the arguments (musl passes none).
	if (argc < 2 || argv == NULL || !tcgen_gpu_count(argc, argv)) return;
	pthread_attr_t attr;
	pthread_t t;
	if (pthread_attr_init(&attr) != 0) return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_create(&t, &attr, tcgen_cuinit, NULL);
	pthread_attr_destroy(&attr);
#else
	(void)argc;
	(void)argv;
#endif
}

static const char *tcgen_connections(void) { return getenv("CUDA_DEVICE_MAX_CONNECTIONS"); }
*/
import "C"

import "unsafe"

// earlyGPUCount is the constructor's decision on args (without the
// program's name), for the test that it agrees with gpuCount.
func earlyGPUCount(args []string) bool {
	argv := make([]*C.char, len(args)+2)
	argv[0] = C.CString("tcgen")
	for i, a := range args {
		argv[i+1] = C.CString(a)
	}
	defer func() {
		for _, p := range argv {
			C.free(unsafe.Pointer(p))
		}
	}()
	return C.tcgen_gpu_count(C.int(len(args)+1), &argv[0]) != 0
}

// driverConnections is CUDA_DEVICE_MAX_CONNECTIONS as the driver reads it
// (C's environment, which the constructor sets).
func driverConnections() string {
	if p := C.tcgen_connections(); p != nil {
		return C.GoString(p)
	}
	return ""
}
