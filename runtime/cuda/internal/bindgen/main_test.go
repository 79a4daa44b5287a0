package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The checked-in bindings are what the table generates (CI's
// check-generated does the same through go generate).
func TestGeneratedUpToDate(t *testing.T) {
	want, err := generate("cuda")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := generate("cuda")
	if !bytes.Equal(want, again) {
		t.Fatal("generation is not deterministic")
	}
	got, err := os.ReadFile("../../zz_generated.go")
	if err != nil {
		t.Skipf("no checked-in file to compare: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("runtime/cuda/zz_generated.go is out of date: run go generate ./runtime/cuda")
	}
	if !bytes.HasPrefix(want, []byte("// Code generated ")) || !bytes.Contains(want, []byte("DO NOT EDIT.\n")) {
		t.Error("missing the Code generated line")
	}
}

func TestParseDecl(t *testing.T) {
	for decl, want := range map[string]string{
		"CUresult cuCtxSynchronize(void)":                                                                 "CUresult 0 cuCtxSynchronize",
		"CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)":                                         "CUresult 0 cuMemAlloc dptr:CUdeviceptr*1 bytesize:size_t*0",
		"nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char * const *options)": "nvrtcResult 0 nvrtcCompileProgram prog:nvrtcProgram*0 numOptions:int*0 options:char*2",
		"const char *nvrtcGetErrorString(nvrtcResult result)":                                             "char 1 nvrtcGetErrorString result:nvrtcResult*0",
		"CUresult cuGetErrorName(CUresult error, const char **pStr)":                                      "CUresult 0 cuGetErrorName code:CUresult*0 pStr:char*2",
		"CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)":                 "CUresult 0 cuDeviceGetAttribute pi:int*1 attrib:CUdevice_attribute*0 dev:CUdevice*0",
		"CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N)":                          "CUresult 0 cuMemsetD8 dstDevice:CUdeviceptr*0 uc:unsigned char*0 N:size_t*0",
	} {
		d, err := parseDecl(decl)
		if err != nil {
			t.Fatalf("%s: %v", decl, err)
		}
		parts := []string{d.ret, fmt.Sprint(d.retPtr), d.name}
		for _, p := range d.params {
			parts = append(parts, fmt.Sprintf("%s:%s*%d", p.name, p.cType, p.ptr))
		}
		if got := strings.Join(parts, " "); got != want {
			t.Errorf("%s\n got %s\nwant %s", decl, got, want)
		}
	}
	if _, err := parseDecl("CUresult cuX(mystery_t x)"); err == nil {
		t.Error("unknown C type accepted")
	}
}
