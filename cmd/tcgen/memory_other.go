//go:build !unix

package main

// rlimitBounds: no rlimits here.
func rlimitBounds(func(uint64, string)) {}
