package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Exit codes, one place (DESIGN.md "Exit codes"); listed in --help.
const (
	exitOK          = 0
	exitInternal    = 1
	exitUsage       = 2
	exitBadInput    = 3
	exitMismatch    = 4
	exitNoGPU       = 5
	exitTooLarge    = 6
	exitCompile     = 7
	exitNoMPI       = 8
	exitInterrupted = 130
)

const exitCodesHelp = `Exit codes: 0 ok; 1 internal error; 2 usage; 3 bad input (a graph, a plan, an
output path that cannot be written); 4 count mismatch against the reference; 5
no usable GPU where one was demanded; 6 does not fit in memory (the GPU's, or
the host's: --memory-limit); 7 compile or launch failure; 8 no MPI library
(count --mpi); 130 interrupted (Ctrl-C, SIGTERM).`

// codedError carries the exit code chosen where the failure is understood.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

// withCode wraps err so main exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &codedError{code: code, err: err}
}

func errorf(code int, format string, args ...any) error {
	return &codedError{code: code, err: fmt.Errorf(format, args...)}
}

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	var ce *codedError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ce):
		return ce.code
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	if c, ok := classify(err); ok {
		return c
	}
	return exitInternal
}

// errorLine is err's message as the user sees it: a file that could not be
// opened reads "PATH: no such file or directory", as the graph readers say
// it, not Go's "open PATH: ...".
func errorLine(err error) string {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "open" {
		msg = strings.Replace(msg, "open "+pe.Path+": ", pe.Path+": ", 1)
	}
	return msg
}
