package main

import (
	"errors"

	"github.com/tcgen/tcgen/graph"
)

// classify maps errors of tcgen's packages to exit codes.
func classify(err error) (int, bool) {
	var (
		ie *graph.InputError
		oe *graph.OutputError
		te *graph.TooLargeError
	)
	switch {
	case errors.As(err, &te):
		return exitTooLarge, true
	case errors.As(err, &ie), errors.As(err, &oe):
		return exitBadInput, true
	}
	return 0, false
}
