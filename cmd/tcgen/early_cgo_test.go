//go:build cgo && linux

package main

import (
	"os"
	"testing"
)

// TestEarlyGPUCount: the C constructor that starts cuInit before the Go
// runtime decides as gpuCount does.
func TestEarlyGPUCount(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"count"},
		{"count", "g.el"},
		{"-q", "count", "g.el", "--backend", "gpu"},
		{"count", "g.el", "--backend", "cpu"},
		{"count", "g.el", "--backend=cpu"},
		{"count", "--backend"},
		{"--", "count"},
		{"count", "--", "--backend=cpu"},
		{"tune", "g.el"},
		{"version"},
		{"counts"},
		{"generate", "rmat", "-o", "count"},
	} {
		if got, want := earlyGPUCount(args), gpuCount(args); got != want {
			t.Errorf("%q: the constructor says %v, gpuCount %v", args, got, want)
		}
	}
}

// TestDriverConnections: the driver sees one work queue a context, or the
// user's own value.
func TestDriverConnections(t *testing.T) {
	want := "1"
	if v, ok := os.LookupEnv("CUDA_DEVICE_MAX_CONNECTIONS"); ok {
		want = v
	}
	if got := driverConnections(); got != want {
		t.Errorf("CUDA_DEVICE_MAX_CONNECTIONS is %q in C's environment, want %q", got, want)
	}
}
