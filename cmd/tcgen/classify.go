package main

import (
	"errors"

	"github.com/tcgen/tcgen/graph"
)

// classify maps errors of tcgen's packages to exit codes.
func classify(err error) (int, bool) {
	var ie *graph.InputError
	if errors.As(err, &ie) {
		return exitBadInput, true
	}
	return 0, false
}
