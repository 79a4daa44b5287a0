// Package cuda implements the runtime interfaces with the CUDA driver API and
// NVRTC, both loaded at run time with purego's dlopen. The binary therefore
// builds with CGO_ENABLED=0 and runs on machines without CUDA: a missing
// library is a typed error (ErrNoDriver, ErrNoNVRTC), a machine without a GPU
// gives ErrNoDevice.
//
// The C bindings live in zz_generated.go, written by internal/bindgen from a
// single table of signatures; this package's hand-written part loads the
// libraries, pins memory handed to C and wraps the bindings in the runtime
// interfaces.
package cuda

//go:generate go run ./internal/bindgen -o zz_generated.go
