package cuda

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
)

// cacheFormat is part of every key and entry; bump it when the entry layout
// or anything else that changes compiled output (default options) changes.
const cacheFormat = 1

var cacheMagic = []byte("tcgen-kernel\n")

// CachingCompiler is a content-addressed on-disk cache in front of a
// compiler. Entries are keyed by the SHA-256 of the source, its name, its
// headers, the architecture, the options, the compiler's version and the cache format;
// they are written atomically and carry a checksum, so a torn or corrupt
// entry is simply compiled again. Compile errors are not cached.
type CachingCompiler struct {
	Inner gpu.Compiler
	Dir   string
	// Warn, if set, hears about cache problems that do not fail a compile
	// (a corrupt entry, a directory that cannot be written).
	Warn func(error)

	hits, misses atomic.Int64
}

var _ gpu.Compiler = (*CachingCompiler)(nil)

// Version is the inner compiler's version.
func (c *CachingCompiler) Version() (major, minor int) { return c.Inner.Version() }

// Stats returns how many compiles were served from disk and how many ran.
func (c *CachingCompiler) Stats() (hits, misses int64) { return c.hits.Load(), c.misses.Load() }

// Key is the hex cache key of in for this compiler.
func (c *CachingCompiler) Key(in gpu.CompileInput) string {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	major, minor := c.Inner.Version()
	field("tcgen kernel cache")
	field(strconv.Itoa(cacheFormat))
	field(fmt.Sprintf("nvrtc %d.%d", major, minor))
	field(in.Arch)
	field(in.Name) // it lands in the log and, with -lineinfo, in the image
	field(in.Source)
	// The headers the source includes, in name order: a changed header
	// compiles again.
	field(strconv.Itoa(len(in.Headers)))
	for _, name := range slices.Sorted(maps.Keys(in.Headers)) {
		field(name)
		field(in.Headers[name])
	}
	field(strconv.Itoa(len(in.Options)))
	for _, o := range in.Options {
		field(o)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Path is where the entry for in lives.
func (c *CachingCompiler) Path(in gpu.CompileInput) string {
	return filepath.Join(c.Dir, c.Key(in)+".kernel")
}

// Compile returns the cached image for in, or compiles and stores it.
func (c *CachingCompiler) Compile(in gpu.CompileInput) (gpu.Image, error) {
	path := c.Path(in)
	raw, err := os.ReadFile(path)
	switch {
	case err == nil:
		img, derr := decodeEntry(raw)
		if derr == nil {
			c.hits.Add(1)
			return img, nil
		}
		c.warn(fmt.Errorf("cuda: kernel cache entry %s: %w; recompiling", path, derr))
	case !errors.Is(err, fs.ErrNotExist):
		c.warn(fmt.Errorf("cuda: kernel cache: %w", err))
	}
	c.misses.Add(1)
	img, err := c.Inner.Compile(in)
	if err != nil {
		return img, err
	}
	if err := c.store(path, img); err != nil {
		c.warn(fmt.Errorf("cuda: kernel cache: %w", err))
	}
	return img, nil
}

func (c *CachingCompiler) warn(err error) {
	if c.Warn != nil {
		c.Warn(err)
	}
}

// store writes the entry into place atomically (writeAtomic).
func (c *CachingCompiler) store(path string, img gpu.Image) error {
	return writeAtomic(path, encodeEntry(img))
}

// writeAtomic writes data to a temporary file beside path and renames it
// into place, so readers (other processes too) see either nothing or the
// whole file. The pid in the temporary name tells a later run whether the
// writer is gone, so a file left by a killed process can be removed
// (graph.RemoveStaleTemps).
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-"+strconv.Itoa(os.Getpid())+"-*"+filepath.Ext(path))
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
	}
	return werr
}

// An entry is: magic, format (u32), then kind, log and data each as a u64
// length and bytes, then the SHA-256 of everything before it.
func encodeEntry(img gpu.Image) []byte {
	var b bytes.Buffer
	b.Write(cacheMagic)
	_ = binary.Write(&b, binary.LittleEndian, uint32(cacheFormat))
	for _, part := range [][]byte{[]byte(img.Kind), []byte(img.Log), img.Data} {
		_ = binary.Write(&b, binary.LittleEndian, uint64(len(part)))
		b.Write(part)
	}
	sum := sha256.Sum256(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}

func decodeEntry(raw []byte) (gpu.Image, error) {
	var img gpu.Image
	if len(raw) < len(cacheMagic)+4+sha256.Size {
		return img, errors.New("truncated")
	}
	body, sum := raw[:len(raw)-sha256.Size], raw[len(raw)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return img, errors.New("checksum mismatch")
	}
	if !bytes.HasPrefix(body, cacheMagic) {
		return img, errors.New("not a kernel cache entry")
	}
	body = body[len(cacheMagic):]
	if v := binary.LittleEndian.Uint32(body); v != cacheFormat {
		return img, fmt.Errorf("format %d, want %d", v, cacheFormat)
	}
	body = body[4:]
	var parts [3][]byte
	for i := range parts {
		if len(body) < 8 {
			return img, errors.New("truncated")
		}
		n := binary.LittleEndian.Uint64(body)
		body = body[8:]
		if n > uint64(len(body)) {
			return img, errors.New("truncated")
		}
		parts[i], body = body[:n], body[n:]
	}
	if len(body) != 0 {
		return img, errors.New("trailing bytes")
	}
	img.Kind, img.Log, img.Data = string(parts[0]), string(parts[1]), parts[2]
	if img.Kind != "ptx" && img.Kind != "cubin" {
		return img, fmt.Errorf("unknown image kind %q", img.Kind)
	}
	return img, nil
}
