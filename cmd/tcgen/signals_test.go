package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tcgen/tcgen/graph"
)

// TestWatchInterrupt: a command that does not stop within interruptGrace
// of the signal is ended with exit code 130, and the temporary file of
// its write in progress is removed first; a command that stops in time
// is left to return.
func TestWatchInterrupt(t *testing.T) {
	dir := t.TempDir()
	writing := make(chan string)
	release := make(chan struct{})
	go graph.WriteFileAtomic(filepath.Join(dir, "out.tcsr"), func(f *os.File) error {
		writing <- f.Name()
		<-release // a write that ignores the interrupt
		return nil
	})
	tmp := <-writing
	defer close(release)

	sigs := make(chan os.Signal, 1)
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	var stderr bytes.Buffer
	go watchInterrupt(sigs, cancel, make(chan struct{}), &stderr, func(code int) { exited <- code })
	sent := time.Now()
	sigs <- syscall.SIGINT
	select {
	case code := <-exited:
		if took := time.Since(sent); code != exitInterrupted || took < interruptGrace || took > interruptGrace+200*time.Millisecond {
			t.Errorf("exit %d after %v, want %d after %v", code, took, exitInterrupted, interruptGrace)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no exit")
	}
	if ctx.Err() == nil {
		t.Error("the context was not cancelled")
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
	if stderr.String() != "tcgen: interrupted\n" {
		t.Errorf("stderr %q", stderr.String())
	}

	// Returned in time: no exit.
	finished := make(chan struct{})
	sigs = make(chan os.Signal, 1)
	go watchInterrupt(sigs, func() { close(finished) }, finished, &stderr, func(code int) { exited <- code })
	sigs <- syscall.SIGTERM
	select {
	case code := <-exited:
		t.Errorf("exit %d though the command returned", code)
	case <-time.After(interruptGrace + 200*time.Millisecond):
	}
}
