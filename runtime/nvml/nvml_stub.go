//go:build !cgo || !linux

package nvml

import "fmt"

// haveNVML: this build can talk to NVML.
const haveNVML = false

// Session is an open NVML; this build has none.
type Session struct{}

// Open always fails here: go-nvml needs cgo on Linux.
func Open() (*Session, error) {
	return nil, fmt.Errorf("%w: built without cgo", ErrUnavailable)
}

// Read always fails here: go-nvml needs cgo on Linux.
func Read(device string) (Facts, error) {
	return Facts{}, fmt.Errorf("%w: built without cgo", ErrUnavailable)
}

// Read always fails here.
func (s *Session) Read(device string) (Facts, error) {
	return Facts{}, fmt.Errorf("%w: built without cgo", ErrUnavailable)
}

// Close does nothing here.
func (s *Session) Close() error { return nil }
