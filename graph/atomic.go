package graph

import (
	"os"
	"path/filepath"
)

// WriteFileAtomic creates path through a temporary file in the same
// directory: write fills it, then it is synced, made 0644 and renamed over
// path. On any error the temporary file is removed and nothing new is at
// path (an older file there stays intact), so no partial output is ever
// left behind.
func WriteFileAtomic(path string, write func(f *os.File) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	// CreateTemp makes the file 0600; an output is as readable as any file
	// the user writes.
	if err = os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	// Persist the rename itself; not every system can sync a directory, and
	// the file is complete either way, so a failure here is not an error.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
