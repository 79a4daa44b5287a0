// Command bindgen writes runtime/cuda/zz_generated.go: one typed Go function
// per CUDA driver or NVRTC entry point tcgen uses, called through purego.
//
// The table below is the only place a C signature is written. Each line reads
// like the C header; the generator maps C types to Go types, calls the symbol
// (with its version suffix) through purego.SyscallN and turns the result code
// into a Go error with the library's own error text. Run it with
// `go generate ./runtime/cuda` (or `make generate`); the output is
// deterministic so CI can check it does not drift.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/dave/jennifer/jen"
)

// entry is one C entry point.
type entry struct {
	decl    string // C declaration without the trailing semicolon
	suffix  string // version suffix of the exported symbol ("_v2"), "" if none
	noCheck bool   // return the raw result code (used by the error path itself)
}

// library is one shared object and its entry points.
type library struct {
	goType  string // Go struct holding the resolved addresses
	result  string // C result type mapped to an error by the library's check method
	entries []entry
}

// The driver symbols: cuda.h maps the plain names to these versioned ones
// with #define, so a dlsym of the plain name would bind the legacy ABI.
// Checked against the symbol table of libcuda.so.1 (driver 535).
var driver = library{
	goType: "driverLib",
	result: "CUresult",
	entries: []entry{
		{decl: "CUresult cuGetErrorName(CUresult error, const char **pStr)", noCheck: true},
		{decl: "CUresult cuGetErrorString(CUresult error, const char **pStr)", noCheck: true},
		{decl: "CUresult cuInit(unsigned int Flags)"},
		{decl: "CUresult cuDriverGetVersion(int *driverVersion)"},
		{decl: "CUresult cuDeviceGetCount(int *count)"},
		{decl: "CUresult cuDeviceGet(CUdevice *device, int ordinal)"},
		{decl: "CUresult cuDeviceGetName(char *name, int len, CUdevice dev)"},
		{decl: "CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)", suffix: "_v2"},
		{decl: "CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)", suffix: "_v2"},
		{decl: "CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)"},
		{decl: "CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)"},
		{decl: "CUresult cuDevicePrimaryCtxRelease(CUdevice dev)", suffix: "_v2"},
		{decl: "CUresult cuCtxSetCurrent(CUcontext ctx)"},
		{decl: "CUresult cuCtxSynchronize(void)"},
		{decl: "CUresult cuMemGetInfo(size_t *free, size_t *total)", suffix: "_v2"},
		{decl: "CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)", suffix: "_v2"},
		{decl: "CUresult cuMemFree(CUdeviceptr dptr)", suffix: "_v2"},
		{decl: "CUresult cuMemcpyHtoD(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)", suffix: "_v2"},
		{decl: "CUresult cuMemcpyDtoH(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)", suffix: "_v2"},
		// Pinned staging for large uploads (memory.go); every driver has them.
		{decl: "CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)"},
		{decl: "CUresult cuMemFreeHost(void *p)"},
		// Page-locking memory the caller mapped (a file's pages), for DMA
		// straight from it (TestGPUUploadPaths measures it).
		{decl: "CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)", suffix: "_v2"},
		{decl: "CUresult cuMemHostUnregister(void *p)"},
		{decl: "CUresult cuMemcpyHtoDAsync(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)", suffix: "_v2"},
		{decl: "CUresult cuMemcpyDtoD(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)", suffix: "_v2"},
		{decl: "CUresult cuMemsetD8(CUdeviceptr dstDevice, unsigned char uc, size_t N)", suffix: "_v2"},
		{decl: "CUresult cuMemsetD32(CUdeviceptr dstDevice, unsigned int ui, size_t N)", suffix: "_v2"},
		{decl: "CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions, CUjit_option *options, void **optionValues)"},
		{decl: "CUresult cuModuleUnload(CUmodule hmod)"},
		{decl: "CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)"},
		{decl: "CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)"},
		{decl: "CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)"},
		// Blocks of a kernel an SM holds at once: the grid of persistent
		// kernels (module.go, Function.MaxActiveBlocksPerSM).
		{decl: "CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction hfunc, int blockSize, size_t dynamicSMemSize)"},
		{decl: "CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)"},
		{decl: "CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)"},
		{decl: "CUresult cuEventRecord(CUevent hEvent, CUstream hStream)"},
		{decl: "CUresult cuEventSynchronize(CUevent hEvent)"},
		// cuEventElapsedTime_v2 exists only from CUDA 12.8; the plain one is in every driver.
		{decl: "CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)"},
		{decl: "CUresult cuEventDestroy(CUevent hEvent)", suffix: "_v2"},
		// Streams of their own, so that copies overlap kernels (streams.go).
		{decl: "CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)"},
		{decl: "CUresult cuStreamDestroy(CUstream hStream)", suffix: "_v2"},
		{decl: "CUresult cuStreamSynchronize(CUstream hStream)"},
		{decl: "CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)"},
		{decl: "CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)"},
		// A pass recorded once and replayed as one launch (graph.go).
		{decl: "CUresult cuStreamBeginCapture(CUstream hStream, CUstreamCaptureMode mode)", suffix: "_v2"},
		{decl: "CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)"},
		{decl: "CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags)"},
		{decl: "CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)"},
		{decl: "CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)"},
		{decl: "CUresult cuGraphDestroy(CUgraph hGraph)"},
		{decl: "CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)"},
	},
}

// NVRTC has no versioned symbols. nvrtcGetCUBIN* exist from NVRTC 11.1,
// nvrtcGetSupportedArchs from 11.2.
var nvrtc = library{
	goType: "nvrtcLib",
	result: "nvrtcResult",
	entries: []entry{
		{decl: "const char *nvrtcGetErrorString(nvrtcResult result)"},
		{decl: "nvrtcResult nvrtcVersion(int *major, int *minor)"},
		{decl: "nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int numHeaders, const char * const *headers, const char * const *includeNames)"},
		{decl: "nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog)"},
		{decl: "nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char * const *options)"},
		{decl: "nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *logSizeRet)"},
		{decl: "nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log)"},
		{decl: "nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, size_t *ptxSizeRet)"},
		{decl: "nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx)"},
		{decl: "nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *cubinSizeRet)"},
		{decl: "nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin)"},
		{decl: "nvrtcResult nvrtcGetNumSupportedArchs(int *numArchs)"},
		{decl: "nvrtcResult nvrtcGetSupportedArchs(int *supportedArchs)"},
	},
}

// Go types of C value types. Handles get named Go types so a module can't be
// passed where a function is expected.
var valueTypes = map[string]jen.Code{
	"int":                  jen.Int32(),
	"unsigned int":         jen.Uint32(),
	"unsigned char":        jen.Uint8(),
	"unsigned long long":   jen.Uint64(),
	"size_t":               jen.Uint64(),
	"float":                jen.Float32(),
	"char":                 jen.Byte(),
	"CUresult":             jen.Id("cuResult"),
	"nvrtcResult":          jen.Id("nvrtcResult"),
	"CUdevice":             jen.Id("cuDevice"),
	"CUdeviceptr":          jen.Uint64(),
	"CUcontext":            jen.Id("cuContext"),
	"CUmodule":             jen.Id("cuModule"),
	"CUfunction":           jen.Id("cuFunction"),
	"CUevent":              jen.Id("cuEvent"),
	"CUstream":             jen.Id("cuStream"),
	"CUuuid":               jen.Index(jen.Lit(16)).Byte(),
	"CUdevice_attribute":   jen.Id("cuDeviceAttribute"),
	"CUfunction_attribute": jen.Id("cuFunctionAttribute"),
	"CUjit_option":         jen.Id("cuJitOption"),
	"CUstreamCaptureMode":  jen.Id("cuStreamCaptureMode"),
	"CUgraph":              jen.Id("cuGraph"),
	"CUgraphExec":          jen.Id("cuGraphExec"),
	"nvrtcProgram":         jen.Id("nvrtcProgram"),
}

// Named types the generated file declares, in output order.
var namedTypes = []struct{ name, under, doc string }{
	{"cuResult", "int32", "cuResult is a CUresult code."},
	{"nvrtcResult", "int32", "nvrtcResult is an nvrtcResult code."},
	{"cuDevice", "int32", "cuDevice is a CUdevice ordinal handle."},
	{"cuContext", "uintptr", "cuContext is a CUcontext handle."},
	{"cuModule", "uintptr", "cuModule is a CUmodule handle."},
	{"cuFunction", "uintptr", "cuFunction is a CUfunction handle."},
	{"cuEvent", "uintptr", "cuEvent is a CUevent handle."},
	{"cuStream", "uintptr", "cuStream is a CUstream handle (0 is the legacy default stream)."},
	{"cuDeviceAttribute", "int32", "cuDeviceAttribute is a CUdevice_attribute."},
	{"cuFunctionAttribute", "int32", "cuFunctionAttribute is a CUfunction_attribute."},
	{"cuJitOption", "int32", "cuJitOption is a CUjit_option."},
	{"cuStreamCaptureMode", "int32", "cuStreamCaptureMode is a CUstreamCaptureMode."},
	{"cuGraph", "uintptr", "cuGraph is a CUgraph handle."},
	{"cuGraphExec", "uintptr", "cuGraphExec is a CUgraphExec handle."},
	{"nvrtcProgram", "uintptr", "nvrtcProgram is an nvrtcProgram handle."},
}

// C parameter names that would shadow Go builtins.
var renames = map[string]string{"error": "code", "len": "length"}

type param struct {
	name    string
	cType   string // base type without const
	ptr     int    // number of '*'
	goType  jen.Code
	pointer bool // passed as unsafe.Pointer
	raw     bool // already unsafe.Pointer
}

type fnDecl struct {
	ret    string
	retPtr int
	name   string
	params []param
}

func parseDecl(decl string) (fnDecl, error) {
	open := strings.IndexByte(decl, '(')
	if open < 0 || !strings.HasSuffix(decl, ")") {
		return fnDecl{}, fmt.Errorf("bad declaration %q", decl)
	}
	head := strings.TrimSpace(decl[:open])
	ret, retPtr, name := splitTypeName(head)
	d := fnDecl{ret: ret, retPtr: retPtr, name: name}
	list := strings.TrimSpace(decl[open+1 : len(decl)-1])
	if list == "void" || list == "" {
		return d, nil
	}
	for _, p := range strings.Split(list, ",") {
		cType, ptr, pname := splitTypeName(strings.TrimSpace(p))
		if r, ok := renames[pname]; ok {
			pname = r
		}
		prm := param{name: pname, cType: cType, ptr: ptr}
		switch {
		case ptr >= 2, ptr == 1 && cType == "void":
			// Arrays of pointers and untyped memory: the caller pins what they reach.
			prm.goType, prm.pointer, prm.raw = jen.Qual("unsafe", "Pointer"), true, true
		case ptr == 1:
			base, ok := valueTypes[cType]
			if !ok {
				return d, fmt.Errorf("%s: unknown C type %q", name, cType)
			}
			prm.goType, prm.pointer = jen.Op("*").Add(base), true
		default:
			base, ok := valueTypes[cType]
			if !ok {
				return d, fmt.Errorf("%s: unknown C type %q", name, cType)
			}
			prm.goType = base
		}
		d.params = append(d.params, prm)
	}
	return d, nil
}

// splitTypeName splits "const char * const *name" into ("char", 2, "name").
func splitTypeName(s string) (cType string, ptr int, name string) {
	s = strings.ReplaceAll(s, "*", " * ")
	var words []string
	for _, w := range strings.Fields(s) {
		switch w {
		case "const":
		case "*":
			ptr++
		default:
			words = append(words, w)
		}
	}
	name = words[len(words)-1]
	return strings.Join(words[:len(words)-1], " "), ptr, name
}

func generate(pkg string) ([]byte, error) {
	f := jen.NewFile(pkg)
	f.HeaderComment("Code generated by runtime/cuda/internal/bindgen from its signature table; DO NOT EDIT.")
	f.ImportName("github.com/ebitengine/purego", "purego")

	for _, t := range namedTypes {
		f.Comment(t.doc)
		f.Type().Id(t.name).Id(t.under)
		f.Line()
	}
	for _, lib := range []library{driver, nvrtc} {
		if err := genLibrary(f, lib); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func genLibrary(f *jen.File, lib library) error {
	decls := make([]fnDecl, len(lib.entries))
	for i, e := range lib.entries {
		d, err := parseDecl(e.decl)
		if err != nil {
			return err
		}
		decls[i] = d
	}

	// The address table.
	addrType := lib.goType + "Addrs"
	f.Commentf("%s holds the resolved entry points (0 where the library lacks one).", addrType)
	f.Type().Id(addrType).StructFunc(func(g *jen.Group) {
		for _, d := range decls {
			g.Id(d.name).Uintptr()
		}
	})
	f.Line()

	// The symbol list used by the loader.
	f.Commentf("symbols lists each entry point's exported symbol and where its address goes.")
	f.Func().Params(jen.Id("a").Op("*").Id(addrType)).Id("symbols").Params().Index().Id("symbolSlot").Block(
		jen.Return(jen.Index().Id("symbolSlot").ValuesFunc(func(g *jen.Group) {
			for i, d := range decls {
				g.Line().Values(jen.Lit(d.name+lib.entries[i].suffix), jen.Op("&").Id("a").Dot(d.name))
			}
			g.Line()
		})),
	)
	f.Line()

	for i, d := range decls {
		e := lib.entries[i]
		sym := d.name + e.suffix
		f.Commentf("%s calls %s: %s.", d.name, sym, e.decl)

		var args []jen.Code
		args = append(args, jen.Id("l").Dot("addr").Dot(d.name))
		for _, p := range d.params {
			if p.raw {
				args = append(args, jen.Uintptr().Call(jen.Id(p.name)))
			} else if p.pointer {
				args = append(args, jen.Uintptr().Call(jen.Qual("unsafe", "Pointer").Call(jen.Id(p.name))))
			} else {
				args = append(args, jen.Uintptr().Call(jen.Id(p.name)))
			}
		}
		call := jen.List(jen.Id("r"), jen.Id("_"), jen.Id("_")).Op(":=").Qual("github.com/ebitengine/purego", "SyscallN").Call(args...)

		params := jen.ParamsFunc(func(g *jen.Group) {
			for _, p := range d.params {
				g.Id(p.name).Add(p.goType)
			}
		})
		recv := jen.Params(jen.Id("l").Op("*").Id(lib.goType))
		missing := jen.Id("l").Dot("addr").Dot(d.name).Op("==").Lit(0)

		switch {
		case d.ret == lib.result && !e.noCheck:
			f.Func().Add(recv).Id(d.name).Add(params).Error().Block(
				jen.If(missing).Block(jen.Return(jen.Id("l").Dot("missing").Call(jen.Lit(sym)))),
				call,
				jen.Return(jen.Id("l").Dot("check").Call(jen.Lit(sym), jen.Id("r"))),
			)
		case d.ret == lib.result:
			ret := valueTypes[d.ret]
			f.Func().Add(recv).Id(d.name).Add(params).Add(ret).Block(
				jen.If(missing).Block(jen.Return(jen.Lit(-1))),
				call,
				// The result is a 32-bit enum; the upper half of the register is undefined.
				jen.Return(jen.Add(ret).Call(jen.Int32().Call(jen.Uint32().Call(jen.Id("r"))))),
			)
		case d.ret == "char" && d.retPtr == 1:
			f.Func().Add(recv).Id(d.name).Add(params).String().Block(
				jen.If(missing).Block(jen.Return(jen.Lit(""))),
				call,
				jen.Return(jen.Id("goString").Call(jen.Id("r"))),
			)
		default:
			return fmt.Errorf("%s: unsupported result type %q", d.name, d.ret)
		}
		f.Line()
	}
	return nil
}

func main() {
	out := flag.String("o", "zz_generated.go", "output file")
	pkg := flag.String("pkg", "cuda", "package name")
	check := flag.Bool("check", false, "fail if the output file differs instead of writing it")
	flag.Parse()

	src, err := generate(*pkg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bindgen:", err)
		os.Exit(1)
	}
	if *check {
		old, err := os.ReadFile(*out)
		if err != nil || !bytes.Equal(old, src) {
			fmt.Fprintf(os.Stderr, "bindgen: %s is out of date; run go generate ./runtime/cuda\n", *out)
			os.Exit(1)
		}
		return
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "bindgen:", err)
		os.Exit(1)
	}
}
