package graph

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// WriteOptions tune how an output file is written (WriteFileAtomicOpt,
// WriteCSROpt, WriteEdgesFileOpt).
type WriteOptions struct {
	// Context, when not nil, stops a write in progress (checked at every
	// buffered write, about once a MiB): the temporary file is removed and
	// the error wraps Context.Err().
	Context context.Context
	// FollowLinks writes through a symbolic link at the path: its target
	// (a regular file, or none yet) is replaced and the link kept. Without
	// it a link is refused, as every other file that is not a regular one.
	FollowLinks bool
	// Batch, when not nil, keeps the finished file under its temporary
	// name until Batch.Commit, so that several outputs appear together or
	// not at all.
	Batch *Batch
}

// A Batch holds the finished temporary files of several outputs
// (WriteOptions.Batch): Commit renames them over their paths, Abort
// removes them. A command that fails on its second output leaves no first.
type Batch struct {
	files []batchFile
}

type batchFile struct {
	path, tmp, target string
	followLinks       bool
}

// Commit renames every file of the batch over its path, in the order
// written; after an error the files not yet renamed are removed. The files
// are complete before the first rename, so only a rename that fails (a
// directory or FIFO put at a path meanwhile) leaves the earlier ones.
func (b *Batch) Commit() error {
	for i, f := range b.files {
		if err := renameTemp(f.tmp, f.target, f.followLinks); err != nil {
			b.files = b.files[i:]
			b.Abort()
			return outputError(f.path, "writing", err)
		}
		syncDir(filepath.Dir(f.target))
	}
	b.files = nil
	return nil
}

// Abort removes the batch's files, none of them renamed.
func (b *Batch) Abort() {
	for _, f := range b.files {
		os.Remove(f.tmp)
		forgetTemp(f.tmp)
	}
	b.files = nil
}

// OutputError is what the writers return when the path the user named
// cannot take the output: a device, FIFO, directory or symbolic link there,
// a missing or unwritable directory, a full disk. It names the user's
// path, never the temporary file.
type OutputError struct {
	Path string
	Msg  string
	Hint string // a suggestion for -o outputs, e.g. " (-o - writes to standard output)"; a command without -o clears it
	Err  error  // the underlying cause, if any
}

func (e *OutputError) Error() string { return e.Path + ": " + e.Msg + e.Hint }
func (e *OutputError) Unwrap() error { return e.Err }

// WriteFileAtomic is WriteFileAtomicOpt without options.
func WriteFileAtomic(path string, write func(f *os.File) error) error {
	return WriteFileAtomicOpt(path, WriteOptions{}, write)
}

// WriteFileAtomicOpt creates path through a temporary file in the same
// directory: write fills it, then it is synced, given the mode of the file
// it replaces (0644 for a new one) and renamed over path. Only a regular
// file is ever replaced (CheckOutputPath). On any error the temporary file
// is removed and nothing new is at path (an older file there stays
// intact), so no partial output is ever left behind. Errors about the path
// are *OutputError; an error of write is returned as it is.
func WriteFileAtomicOpt(path string, opt WriteOptions, write func(f *os.File) error) (err error) {
	target, mode, err := CheckOutputPath(path, opt.FollowLinks)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	f, err := createTemp(dir, filepath.Base(target))
	if err != nil {
		return outputError(path, "cannot create a file in "+dir, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			forgetTemp(tmp)
		}
	}()
	if err = write(f); err != nil {
		return writeError(path, err)
	}
	if err = contextErr(opt.Context); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return outputError(path, "writing", err)
	}
	if err = f.Close(); err != nil {
		return outputError(path, "writing", err)
	}
	// createTemp makes the file 0600; an output is as readable as the file
	// it replaces, or as any file the user writes.
	if err = os.Chmod(tmp, mode); err != nil {
		return outputError(path, "writing", err)
	}
	if opt.Batch != nil {
		opt.Batch.files = append(opt.Batch.files, batchFile{path, tmp, target, opt.FollowLinks})
		return nil
	}
	if err = renameTemp(tmp, target, opt.FollowLinks); err != nil {
		return outputError(path, "writing", err)
	}
	syncDir(dir)
	return nil
}

// syncDir persists a rename in dir; not every system can sync a directory,
// and the file is complete either way, so a failure is not an error.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// CheckOutputPath returns the file an output named path replaces (path
// itself, or with followLinks a symbolic link's target) and the mode the
// new file gets. It refuses, with an *OutputError, anything there but a
// regular file or nothing: a device (writing /dev/full as root would
// replace the node), a FIFO or socket (a reader waits on it), a directory,
// a symbolic link unless followLinks, and a parent that is no directory.
func CheckOutputPath(path string, followLinks bool) (target string, mode os.FileMode, err error) {
	target = path
	st, err := os.Lstat(path)
	if err == nil && st.Mode()&fs.ModeSymlink != 0 {
		if !followLinks {
			return "", 0, &OutputError{Path: path, Msg: "is a symbolic link; tcgen replaces only regular files (--force writes the link's target)"}
		}
		if target, err = filepath.EvalSymlinks(path); err != nil {
			// A dangling link: create its target.
			if target, err = danglingTarget(path); err != nil {
				return "", 0, outputError(path, "cannot follow the symbolic link", err)
			}
		}
		st, err = os.Lstat(target)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return target, 0o644, checkOutputDir(path, filepath.Dir(target))
	case err != nil:
		return "", 0, outputError(path, "cannot write", err)
	case st.Mode().IsRegular():
		return target, st.Mode().Perm(), nil
	}
	return "", 0, &OutputError{Path: path, Msg: fmt.Sprintf("is %s; tcgen writes only regular files", describeMode(st.Mode())), Hint: stdoutHint(st.Mode())}
}

// danglingTarget resolves a link whose target does not exist yet, one
// level: its target, relative to the link's directory.
func danglingTarget(link string) (string, error) {
	t, err := os.Readlink(link)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(link), t)
	}
	if _, err := os.Lstat(t); !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: a chain of links, or unreadable", t)
	}
	return t, nil
}

// checkOutputDir says why a new file cannot go into dir, if it cannot.
func checkOutputDir(path, dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &OutputError{Path: path, Msg: "directory " + dir + " does not exist", Err: err}
	case err != nil:
		return outputError(path, "cannot write", err)
	case !st.IsDir():
		return &OutputError{Path: path, Msg: dir + " is not a directory"}
	}
	return nil
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

func stdoutHint(m fs.FileMode) string {
	if m&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0 {
		return " (-o - writes to standard output)"
	}
	return ""
}

// outputError wraps an I/O error about path, without the temporary name
// an *os.PathError would repeat.
func outputError(path, what string, err error) error {
	return &OutputError{Path: path, Msg: what + ": " + errMsg(err), Err: err}
}

// writeError passes write's own errors on, but names path for the I/O
// errors of the temporary file (a full disk, a quota).
func writeError(path string, err error) error {
	var pe *os.PathError
	var oe *OutputError
	if errors.As(err, &pe) && !errors.As(err, &oe) && isTempName(filepath.Base(pe.Path)) {
		return outputError(path, "writing", err)
	}
	return err
}

// contextErr is ctx.Err(), nil for a nil ctx.
func contextErr(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	return ctx.Err()
}

// ContextWriter returns w checking ctx before every write: a write after
// cancellation fails with ctx.Err(), so a long stream of output stops at
// its next buffer flush.
func ContextWriter(ctx context.Context, w io.Writer) io.Writer {
	if ctx == nil {
		return w
	}
	return ctxWriter{ctx, w}
}

type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// Temporary files are named ".<base>.tmp-<pid>-<random>": the writer's
// pid lets a later run tell a file left by a killed writer from one being
// written now (RemoveStaleTemps).
const tempMarker = ".tmp-"

// StaleTempAge: a temporary file not written to for an hour is stale
// whatever its name says; no tcgen write pauses that long, and a pid may
// have been reused by another process since its writer died.
const StaleTempAge = time.Hour

func createTemp(dir, base string) (*os.File, error) {
	f, err := os.CreateTemp(dir, "."+base+tempMarker+strconv.Itoa(os.Getpid())+"-*")
	if err == nil {
		temps.Lock()
		temps.names[f.Name()] = true
		temps.Unlock()
	}
	return f, err
}

// temps holds the temporary files this process is writing, for
// RemoveTemps; a rename takes the lock, so none completes once RemoveTemps
// has begun.
var temps = struct {
	sync.Mutex
	names map[string]bool
}{names: map[string]bool{}}

func forgetTemp(name string) {
	temps.Lock()
	delete(temps.names, name)
	temps.Unlock()
}

// renameTemp moves a finished temporary file over target, unless
// RemoveTemps came first. The path is checked again just before: a
// device, FIFO or directory that appeared there meanwhile is not replaced.
func renameTemp(tmp, target string, followLinks bool) error {
	temps.Lock()
	defer temps.Unlock()
	if !temps.names[tmp] {
		return errors.New("interrupted")
	}
	if st, err := os.Lstat(target); err == nil && !st.Mode().IsRegular() && !(followLinks && st.Mode()&fs.ModeSymlink != 0) {
		return fmt.Errorf("%s appeared there while writing", describeMode(st.Mode()))
	}
	delete(temps.names, tmp)
	return os.Rename(tmp, target)
}

// RemoveTemps removes the temporary files of writes in progress, for a
// process about to exit in the middle of one (an interrupt that did not
// stop in time). Writes that have not renamed their file by now never will.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	for name := range temps.names {
		os.Remove(name)
		delete(temps.names, name)
	}
}

// isTempName reports whether name is one of the temporary files the
// writers make (or made before pids went into the name).
func isTempName(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, tempMarker)
}

// tempPid is the writer's pid in a temporary file's name, 0 if none.
func tempPid(name string) int {
	i := strings.LastIndex(name, tempMarker)
	if i < 0 {
		return 0
	}
	digits, _, ok := strings.Cut(name[i+len(tempMarker):], "-")
	if !ok {
		return 0
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// RemoveStaleTemps removes from dir the temporary files that writers
// killed mid-write (kill -9, a crash, a power cut) left behind: those named
// ".<name>.tmp-<pid>-..." whose pid is no running process, and any
// ".<name>.tmp-..." not modified for StaleTempAge. This process's own are
// kept. It returns how many it removed; a missing dir is no error.
func RemoveStaleTemps(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, e := range entries {
		name := e.Name()
		if !isTempName(name) || !e.Type().IsRegular() {
			continue
		}
		pid := tempPid(name)
		if pid == os.Getpid() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if (pid > 0 && processGone(pid)) || time.Since(info.ModTime()) > StaleTempAge {
			if os.Remove(filepath.Join(dir, name)) == nil {
				removed++
			}
		}
	}
	return removed, nil
}
