package cuda

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/tcgen/tcgen/runtime/gpu"
)

// LazyCompiler is NVRTC loaded only when something must be compiled. Its
// version, part of every kernel-cache key, comes from a record of the
// library file NewCompiler would load first (its path, size and
// modification time), written the first time that file was loaded. Loading
// NVRTC beside the driver's context creation made a warm count's context
// about 12 ms later on an H100 (docs/performance.md, "End to end").
type LazyCompiler struct {
	opt          Options
	major, minor int
	once         sync.Once
	c            *Compiler
	err          error
}

var _ gpu.Compiler = (*LazyCompiler)(nil)

// NewLazyCompiler returns a compiler that loads NVRTC at its first Compile
// when dir holds the record of the library it would load; otherwise it
// loads NVRTC now (failing as NewCompiler does) and writes the record.
func NewLazyCompiler(opt Options, dir string) (*LazyCompiler, error) {
	lc := &LazyCompiler{opt: opt}
	rec, lib := nvrtcRecord(opt, dir)
	if rec != "" {
		if b, err := os.ReadFile(rec); err == nil {
			if n, _ := fmt.Sscanf(string(b), "nvrtc %d.%d", &lc.major, &lc.minor); n == 2 && lc.major > 0 {
				return lc, nil
			}
		}
	}
	c, err := NewCompiler(opt)
	if err != nil {
		return nil, err
	}
	lc.once.Do(func() { lc.c = c })
	lc.major, lc.minor = c.Version()
	if rec != "" && c.Path() == lib {
		_ = writeAtomic(rec, fmt.Appendf(nil, "nvrtc %d.%d\n", lc.major, lc.minor)) // one not written is made next time
	}
	return lc, nil
}

// Version is NVRTC's version, recorded or loaded.
func (lc *LazyCompiler) Version() (major, minor int) { return lc.major, lc.minor }

// Compile loads NVRTC (once) and compiles in.
func (lc *LazyCompiler) Compile(in gpu.CompileInput) (gpu.Image, error) {
	lc.once.Do(func() { lc.c, lc.err = NewCompiler(lc.opt) })
	if lc.err != nil {
		return gpu.Image{}, lc.err
	}
	return lc.c.Compile(in)
}

// nvrtcRecord is where the version of the library NewCompiler would try
// first is recorded, and that library's path: "" when it is not a file
// (a soname the system's loader resolves) or cannot be read.
func nvrtcRecord(opt Options, dir string) (rec, lib string) {
	cands, _ := nvrtcCandidates(opt)
	if len(cands) == 0 || !filepath.IsAbs(cands[0]) {
		return "", ""
	}
	fi, err := os.Stat(cands[0])
	if err != nil || !fi.Mode().IsRegular() {
		return "", ""
	}
	h := sha256.Sum256([]byte(cands[0] + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)))
	return filepath.Join(dir, "nvrtc-"+hex.EncodeToString(h[:8])+".version"), cands[0]
}
