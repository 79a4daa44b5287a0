//go:build unix

package graph

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeText is a WriteFileAtomicOpt payload.
func writeText(s string) func(f *os.File) error {
	return func(f *os.File) error {
		_, err := io.WriteString(f, s)
		return err
	}
}

// dirNames lists dir, hidden files included.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestWriteRefusesNonRegular: only a regular file (or nothing) is replaced;
// a FIFO, a device, a directory and a symbolic link stay what they were,
// and the error names the user's path, never a temporary file.
func TestWriteRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	target := writeFile(t, dir, "target.txt", []byte("old\n"))
	link := filepath.Join(dir, "link")
	if err := os.Symlink("target.txt", link); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	cases := []struct {
		path, msg string
	}{
		{fifo, "is a FIFO; tcgen writes only regular files (-o - writes to standard output)"},
		{link, "is a symbolic link; tcgen replaces only regular files (--force writes the link's target)"},
		{sub, "is a directory; tcgen writes only regular files"},
		{"/dev/null", "is a character device; tcgen writes only regular files (-o - writes to standard output)"},
		{filepath.Join(dir, "nodir", "x.txt"), "directory " + filepath.Join(dir, "nodir") + " does not exist"},
		{filepath.Join(target, "x.txt"), target + " is not a directory"},
	}
	for _, c := range cases {
		err := WriteFileAtomic(c.path, writeText("new\n"))
		var oe *OutputError
		if !errors.As(err, &oe) || err.Error() != c.path+": "+c.msg {
			t.Errorf("%s: got %v, want %q", c.path, err, c.path+": "+c.msg)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st.Mode(), err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced")
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device")
	}
	if b, _ := os.ReadFile(target); string(b) != "old\n" {
		t.Errorf("the link's target changed: %q", b)
	}
	if names := dirNames(t, dir); strings.Join(names, " ") != "fifo link sub target.txt" {
		t.Errorf("directory holds %v", names)
	}
}

// TestWriteFollowLinks: with FollowLinks the link's target is replaced
// and the link kept; a dangling link gets its target created.
func TestWriteFollowLinks(t *testing.T) {
	dir := t.TempDir()
	target := writeFile(t, dir, "target.txt", []byte("old\n"))
	link := filepath.Join(dir, "link")
	os.Symlink("target.txt", link)
	if err := WriteFileAtomicOpt(link, WriteOptions{FollowLinks: true}, writeText("new\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("target holds %q", b)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("made.txt", dangling)
	if err := WriteFileAtomicOpt(dangling, WriteOptions{FollowLinks: true}, writeText("made\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.txt")); string(b) != "made\n" {
		t.Errorf("dangling link's target holds %q", b)
	}
	// Through a link to a device: still refused.
	dev := filepath.Join(dir, "dev")
	os.Symlink("/dev/null", dev)
	if err := WriteFileAtomicOpt(dev, WriteOptions{FollowLinks: true}, writeText("x")); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("a link to /dev/null: %v", err)
	}
}

// TestWriteKeepsMode: a replaced file keeps its permissions; a new one
// is 0644.
func TestWriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "secret.txt", []byte("x"))
	os.Chmod(p, 0o600)
	if err := WriteFileAtomic(p, writeText("y")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	q := filepath.Join(dir, "new.txt")
	if err := WriteFileAtomic(q, writeText("y")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(q); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

// TestWriteErrorNamesPath: an I/O error of the temporary file is reported
// against the user's path (an unwritable directory; root writes anyway).
func TestWriteErrorNamesPath(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o500)
	p := filepath.Join(dir, "out.tcsr")
	err := WriteFileAtomic(p, writeText("x"))
	if err == nil || err.Error() != p+": cannot create a file in "+dir+": permission denied" {
		t.Errorf("got %v", err)
	}
}

// TestWriteCancelled: a write stopped by its context removes its
// temporary file, leaves the old file intact and returns the context's
// error.
func TestWriteCancelled(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "out.tcsr", []byte("old"))
	g := generated(t, DefaultRMAT(10))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := WriteCSROpt(p, g, CacheMeta{}, WriteOptions{Context: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	err = WriteEdgesFileOpt(filepath.Join(dir, "out.txt"), g, "text", false, WriteOptions{Context: ctx})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("edges: got %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("old file changed: %q", b)
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v", names)
	}
}

// TestRemoveTemps: the temporary file of a write in progress is removed
// and its rename never happens.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	err := WriteFileAtomic(p, func(f *os.File) error {
		if !strings.HasPrefix(filepath.Base(f.Name()), ".out.txt.tmp-"+strconv.Itoa(os.Getpid())+"-") {
			t.Errorf("temporary file %s lacks the pid", f.Name())
		}
		RemoveTemps()
		if _, err := os.Stat(f.Name()); !os.IsNotExist(err) {
			t.Errorf("temporary file still there: %v", err)
		}
		_, err := f.WriteString("x")
		return err
	})
	if err == nil {
		t.Fatal("the write completed after RemoveTemps")
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("directory holds %v", names)
	}
}

// TestRemoveStaleTemps: temporary files of writers that are gone, or that
// nobody touched for an hour, go; this process's, a live writer's and
// other files stay.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true to make a dead pid:", err)
	}
	deadPid := strconv.Itoa(dead.Process.Pid)
	mine := strconv.Itoa(os.Getpid())
	live := strconv.Itoa(os.Getppid())
	files := map[string]bool{ // name: removed
		".ab.tcsr.tmp-" + deadPid + "-123": true,
		".ab.tcsr.tmp-" + mine + "-123":    false,
		".ab.tcsr.tmp-" + live + "-123":    false,
		".tmp-" + deadPid + "-9.kernel":    true,
		".tmp-77.kernel":                   false, // no pid, fresh
		".old.tcsr.tmp-123456789":          true,  // no pid, two hours old
		"ab.tcsr":                          false,
		".hidden":                          false,
	}
	for name := range files {
		writeFile(t, dir, name, []byte("x"))
	}
	old := time.Now().Add(-2 * StaleTempAge)
	os.Chtimes(filepath.Join(dir, ".old.tcsr.tmp-123456789"), old, old)
	n, err := RemoveStaleTemps(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := os.IsNotExist(err); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
		if removed {
			want++
		}
	}
	if n != want {
		t.Errorf("reported %d removed, want %d", n, want)
	}
	if n, err := RemoveStaleTemps(filepath.Join(dir, "none")); n != 0 || err != nil {
		t.Errorf("missing dir: %d, %v", n, err)
	}
}

// TestEncodeCSR: the stream encoding is byte for byte the file WriteCSR
// writes, packed or not.
func TestEncodeCSR(t *testing.T) {
	g := generated(t, DefaultRMAT(9))
	for _, packed := range []bool{false, true} {
		p := filepath.Join(t.TempDir(), "g.tcsr")
		meta := CacheMeta{Packed: packed, Report: Report{InputEdges: 7, Header: "src dst"}}
		if err := WriteCSR(p, g, meta); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(p)
		var buf bytes.Buffer
		if err := EncodeCSR(&buf, g, meta); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("packed %v: stream and file differ", packed)
		}
		back, _, err := Read(&buf, "stdin.tcsr", ReadOptions{})
		if err != nil || back.Edges() != g.Edges() {
			t.Errorf("packed %v: read back %v", packed, err)
		}
	}
}

// TestWriteEdgesBin32TooWide: ids bin32 cannot hold are an OutputError
// naming the path, and nothing is written.
func TestWriteEdgesBin32TooWide(t *testing.T) {
	g, _, err := FromPairs([][2]uint64{{1, 1 << 40}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "g.bin32")
	err = WriteEdgesFile(p, g)
	var oe *OutputError
	if !errors.As(err, &oe) || err.Error() != p+": vertex id 1099511627776 does not fit in bin32; use bin64" {
		t.Errorf("got %v", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("directory holds %v", names)
	}
}

// TestBatch: a batch's files appear at Commit, all of them; a write that
// fails aborts the batch and leaves neither the files before it nor any
// temporary file, and an older file at a path stays as it was.
func TestBatch(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.tsv"), filepath.Join(dir, "b.tsv")
	if err := os.WriteFile(a, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(bt *Batch, path, text string, fail bool) error {
		return WriteFileAtomicOpt(path, WriteOptions{Batch: bt}, func(f *os.File) error {
			if fail {
				return errors.New("disk full")
			}
			_, err := f.WriteString(text)
			return err
		})
	}
	var bt Batch
	if err := write(&bt, a, "new a", false); err != nil {
		t.Fatal(err)
	}
	if err := write(&bt, b, "new b", true); err == nil {
		t.Fatal("the failing write returned no error")
	}
	bt.Abort()
	if got, _ := os.ReadFile(a); string(got) != "old" {
		t.Errorf("after the abort a holds %q, want the old file", got)
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("after the abort the directory holds %d files, want a.tsv alone", len(names))
	}
	bt = Batch{}
	for _, p := range []string{a, b} {
		if err := write(&bt, p, "new "+filepath.Base(p), false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(b); err == nil {
		t.Error("b.tsv is there before the commit")
	}
	if err := bt.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{a, b} {
		if got, _ := os.ReadFile(p); string(got) != "new "+filepath.Base(p) {
			t.Errorf("%s holds %q after the commit", p, got)
		}
	}
	if names, _ := os.ReadDir(dir); len(names) != 2 {
		t.Errorf("after the commit the directory holds %d files, want 2", len(names))
	}
}
