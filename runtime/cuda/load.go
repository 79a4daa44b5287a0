package cuda

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// Options configure how the libraries are found.
type Options struct {
	// NVRTCPath is an explicit libnvrtc path (the --nvrtc flag). When set it
	// is the only candidate tried.
	NVRTCPath string
}

var (
	// ErrNoDriver: libcuda.so.1 could not be loaded (no NVIDIA driver).
	ErrNoDriver = errors.New("cuda: no CUDA driver (libcuda.so.1)")
	// ErrNoNVRTC: no libnvrtc could be loaded.
	ErrNoNVRTC = errors.New("cuda: no NVRTC library")
	// ErrNoDevice: the driver loaded but offers no usable GPU.
	ErrNoDevice = errors.New("cuda: no usable CUDA device")
	// ErrOutOfMemory: a device allocation failed for lack of memory.
	ErrOutOfMemory = errors.New("cuda: out of device memory")
)

// LoadError says which library could not be loaded and what was tried.
// errors.Is(err, ErrNoDriver) or errors.Is(err, ErrNoNVRTC) holds.
type LoadError struct {
	Kind  error    // ErrNoDriver or ErrNoNVRTC
	Tried []string // each candidate with the reason it failed
}

func (e *LoadError) Error() string {
	return fmt.Sprintf("%v: tried %s", e.Kind, strings.Join(e.Tried, "; "))
}

func (e *LoadError) Unwrap() error { return e.Kind }

// MissingSymbolError: the loaded library lacks an entry point (too old).
type MissingSymbolError struct {
	Library, Symbol string
}

func (e *MissingSymbolError) Error() string {
	return fmt.Sprintf("cuda: %s has no symbol %s (library too old?)", e.Library, e.Symbol)
}

// symbolSlot pairs an exported symbol with where its address is stored.
type symbolSlot struct {
	name string
	addr *uintptr
}

// resolve fills every slot; missing symbols stay 0 and fail when called,
// so an old library still serves the calls it has.
func resolve(handle uintptr, slots []symbolSlot) {
	for _, s := range slots {
		if p, err := purego.Dlsym(handle, s.name); err == nil {
			*s.addr = p
		}
	}
}

// goString copies a NUL-terminated C string.
func goString(p uintptr) string {
	if p == 0 {
		return ""
	}
	// Going through a pointer-typed copy keeps vet's unsafeptr check quiet:
	// p is C memory, not a Go object, so the GC does not care.
	ptr := *(*unsafe.Pointer)(unsafe.Pointer(&p))
	n := 0
	for *(*byte)(unsafe.Add(ptr, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(ptr), n))
}

// cString returns a NUL-terminated copy of s.
func cString(s string) *byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return &b[0]
}

// driverLib is libcuda with its resolved entry points.
type driverLib struct {
	path string
	addr driverLibAddrs
}

// libcudaName is the only name tried: a bare libcuda.so may be the toolkit's
// stub, which loads but fails every call.
const libcudaName = "libcuda.so.1"

var (
	driverMu   sync.Mutex
	driverPath = libcudaName // tests point it at a fake driver
	driverInst *driverLib
	driverErr  error
	driverDone bool
)

// loadDriver loads libcuda once per process.
func loadDriver() (*driverLib, error) {
	driverMu.Lock()
	defer driverMu.Unlock()
	if !driverDone {
		driverInst, driverErr = openDriver(driverPath)
		driverDone = true
	}
	return driverInst, driverErr
}

// dlopen opens a library on one OS thread: dlerror's message belongs to
// the thread that called dlopen, and the goroutine could move between the
// two calls, leaving the reason of a failure empty.
func dlopen(path string) (uintptr, error) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	return purego.Dlopen(path, purego.RTLD_LAZY|purego.RTLD_LOCAL)
}

func openDriver(path string) (*driverLib, error) {
	h, err := dlopen(path)
	if err != nil {
		return nil, &LoadError{Kind: ErrNoDriver, Tried: []string{fmt.Sprintf("%s (%v)", path, err)}}
	}
	l := &driverLib{path: path}
	resolve(h, l.addr.symbols())
	if l.addr.cuInit == 0 || l.addr.cuGetErrorName == 0 {
		return nil, &LoadError{Kind: ErrNoDriver, Tried: []string{path + " (not a CUDA driver: no cuInit)"}}
	}
	return l, nil
}

func (l *driverLib) missing(sym string) error {
	return &MissingSymbolError{Library: l.path, Symbol: sym}
}

// nvrtcLib is one loaded libnvrtc.
type nvrtcLib struct {
	path string
	addr nvrtcLibAddrs
}

func (l *nvrtcLib) missing(sym string) error {
	return &MissingSymbolError{Library: l.path, Symbol: sym}
}

var (
	nvrtcMu     sync.Mutex
	nvrtcLoaded = map[string]*nvrtcLib{} // by the candidate that loaded
)

// nvrtcCandidates lists, in order, the libraries to try.
func nvrtcCandidates(opt Options) (cands []string, tried []string) {
	if opt.NVRTCPath != "" {
		return []string{opt.NVRTCPath}, nil
	}
	var dirs []string
	if home := os.Getenv("CUDA_HOME"); home != "" {
		dirs = append(dirs, filepath.Join(home, "lib64"))
	}
	dirs = append(dirs, "/usr/local/cuda/lib64")
	for _, dir := range dirs {
		pattern := filepath.Join(dir, "libnvrtc.so*")
		m, _ := filepath.Glob(pattern)
		if len(m) == 0 {
			tried = append(tried, pattern+" (no match)")
			continue
		}
		// Longest version first: libnvrtc.so.13.0.48 before libnvrtc.so.13
		// before libnvrtc.so; they are normally the same file anyway.
		sort.Sort(sort.Reverse(sort.StringSlice(m)))
		cands = append(cands, m...)
	}
	cands = append(cands, "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2")
	return cands, tried
}

// loadNVRTC loads the first NVRTC that opens and has the compile entry points.
func loadNVRTC(opt Options) (*nvrtcLib, error) {
	nvrtcMu.Lock()
	defer nvrtcMu.Unlock()
	cands, tried := nvrtcCandidates(opt)
	for _, c := range cands {
		if l, ok := nvrtcLoaded[c]; ok {
			return l, nil
		}
		h, err := dlopen(c)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s (%v)", c, err))
			continue
		}
		l := &nvrtcLib{path: c}
		resolve(h, l.addr.symbols())
		if l.addr.nvrtcCompileProgram == 0 || l.addr.nvrtcVersion == 0 || l.addr.nvrtcGetErrorString == 0 {
			tried = append(tried, c+" (not NVRTC: no nvrtcCompileProgram)")
			_ = purego.Dlclose(h)
			continue
		}
		nvrtcLoaded[c] = l
		return l, nil
	}
	return nil, &LoadError{Kind: ErrNoNVRTC, Tried: tried}
}
