package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tcgen/tcgen/graph"
)

// interruptGrace is how long a command has to stop by itself after Ctrl-C
// or SIGTERM cancels its context. The loops that take long check the
// context every MiB or chunk and stop in tens of milliseconds; what cannot
// be stopped from Go (an NVRTC compile, a GPU kernel, a generator without
// a context) would keep the user waiting, so past it the process exits
// anyway. Half a second leaves the other half of the promised second for
// the exit itself on a loaded machine (freeing gigabytes takes a while).
// A tune stopped this way keeps its measurements (the store has them) but
// writes no winner.
const interruptGrace = 500 * time.Millisecond

// watchInterrupt turns the first signal into a cancelled context and, if
// the command has not returned (finished) within interruptGrace or a
// second signal comes, ends the process with exit code 130 (exit is
// os.Exit) after removing the temporary files of writes in progress: no
// partial output either way.
func watchInterrupt(sigs <-chan os.Signal, cancel context.CancelFunc, finished <-chan struct{}, stderr io.Writer, exit func(int)) {
	select {
	case <-sigs:
	case <-finished:
		return
	}
	cancel()
	timer := time.NewTimer(interruptGrace)
	defer timer.Stop()
	select {
	case <-finished:
		return
	case <-sigs:
	case <-timer.C:
	}
	graph.RemoveTemps()
	fmt.Fprintln(stderr, "tcgen: interrupted")
	exit(exitInterrupted)
}

// removeStaleTemps clears the caches of the temporary files that writers
// killed mid-write left behind (graph.RemoveStaleTemps: their pid is gone,
// or they are older than graph.StaleTempAge). It is cheap (one directory
// listing per cache) and failures are not errors: the caches work anyway.
func (cli *CLI) removeStaleTemps() {
	if cli.NoCache {
		return
	}
	dir, err := cli.cacheDir()
	if err != nil {
		return
	}
	for _, sub := range []string{"graphs", "kernels"} {
		graph.RemoveStaleTemps(filepath.Join(dir, sub))
	}
}
