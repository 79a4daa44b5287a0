package cuda

import (
	"errors"
	"fmt"
	"github.com/tcgen/tcgen/runtime/gpu"
	"sync/atomic"
	"unsafe"
)

// Buffer is device memory from cuMemAlloc. It implements gpu.Buffer.
type Buffer struct {
	d     *Device
	ptr   uint64
	size  uint64
	freed atomic.Bool
}

var _ gpu.Buffer = (*Buffer)(nil)

// Alloc allocates bytes of device memory. A zero-byte buffer has address 0
// and costs nothing (empty graphs and empty classes need no special case).
// Failing for lack of memory, the error matches ErrOutOfMemory and says how
// much was free.
func (d *Device) Alloc(bytes uint64) (gpu.Buffer, error) {
	b := &Buffer{d: d, size: bytes}
	if bytes == 0 {
		return b, nil
	}
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	if err := d.drv.cuMemAlloc(&b.ptr, bytes); err != nil {
		if errors.Is(err, ErrOutOfMemory) {
			var free, total uint64
			if d.drv.cuMemGetInfo(&free, &total) == nil {
				return nil, fmt.Errorf("cuda: allocating %d bytes on %s (%d of %d bytes free): %w", bytes, d.facts.Name, free, total, err)
			}
		}
		return nil, fmt.Errorf("cuda: allocating %d bytes on %s: %w", bytes, d.facts.Name, err)
	}
	return b, nil
}

// Ptr is the device address passed to kernels.
func (b *Buffer) Ptr() uint64 { return b.ptr }

// Size is the size asked for in bytes.
func (b *Buffer) Size() uint64 { return b.size }

func (b *Buffer) span(op string, off, n uint64) error {
	if b.freed.Load() {
		return fmt.Errorf("cuda: %s on a freed buffer", op)
	}
	if off > b.size || n > b.size-off {
		return fmt.Errorf("cuda: %s of %d bytes at offset %d outside a buffer of %d bytes", op, n, off, b.size)
	}
	return nil
}

// Write copies n bytes from host memory at src to the buffer at offset off.
// src must stay valid for the call only (the driver stages pageable memory).
func (b *Buffer) Write(off uint64, src unsafe.Pointer, n uint64) error {
	if err := b.span("write", off, n); err != nil || n == 0 {
		return err
	}
	if err := b.d.enterNow("a copy to the device"); err != nil {
		return err
	}
	defer b.d.leave()
	if n >= stagedMin {
		if st, err := b.d.stagingBuffers(); err == nil && st != nil {
			return b.d.writeStaged(st, b.ptr+off, n, copyFrom(src))
		}
	}
	return b.d.drv.cuMemcpyHtoD(b.ptr+off, src, n)
}

// WriteFrom uploads n bytes to the buffer at offset off that fill writes:
// fill(dst, pos) puts bytes [pos, pos+len(dst)) of the upload into dst, and
// is called from several goroutines at once for disjoint ranges, pos and
// len(dst) multiples of 64 KiB except at the end. dst is pinned staging
// memory the DMA engine reads: what fill produces (graph.AdjCheck.Fill: a
// file's pieces, checked) goes to the device with no other host copy. The
// first error of fill stops the upload before its range is sent, and is
// returned.
func (b *Buffer) WriteFrom(off, n uint64, fill func(dst []byte, pos uint64) error) error {
	if err := b.span("write", off, n); err != nil || n == 0 {
		return err
	}
	if err := b.d.enterNow("a copy to the device"); err != nil {
		return err
	}
	defer b.d.leave()
	if st, err := b.d.stagingBuffers(); err == nil && st != nil { // nil: freed by Close
		return b.d.writeStaged(st, b.ptr+off, n, fill)
	}
	return b.d.writeUnstaged(b.ptr+off, n, fill)
}

// Read copies n bytes from the buffer at offset off to host memory at dst.
func (b *Buffer) Read(off uint64, dst unsafe.Pointer, n uint64) error {
	if err := b.span("read", off, n); err != nil || n == 0 {
		return err
	}
	if err := b.d.enterNow("a copy to the host"); err != nil {
		return err
	}
	defer b.d.leave()
	return b.d.drv.cuMemcpyDtoH(dst, b.ptr+off, n)
}

// Zero sets every byte of the buffer to 0.
func (b *Buffer) Zero() error {
	if err := b.span("zero", 0, b.size); err != nil || b.size == 0 {
		return err
	}
	if err := b.d.enter(); err != nil {
		return err
	}
	defer b.d.leave()
	if s := b.d.defaultStream(); s != 0 { // a node of the graph being captured
		return b.d.drv.cuMemsetD8Async(b.ptr, 0, b.size, s)
	}
	return b.d.drv.cuMemsetD8(b.ptr, 0, b.size)
}

// Fill32 sets every 32-bit word of the buffer to v (e.g. empty hash slots).
// The size must be a multiple of 4.
func (b *Buffer) Fill32(v uint32) error {
	if err := b.span("fill", 0, b.size); err != nil || b.size == 0 {
		return err
	}
	if b.size%4 != 0 {
		return fmt.Errorf("cuda: fill32 of a %d-byte buffer (not a multiple of 4)", b.size)
	}
	if err := b.d.enterNow("a fill"); err != nil {
		return err
	}
	defer b.d.leave()
	return b.d.drv.cuMemsetD32(b.ptr, v, b.size/4)
}

// CopyFrom copies n bytes device to device from src at srcOff to b at off.
func (b *Buffer) CopyFrom(off uint64, src *Buffer, srcOff, n uint64) error {
	if err := b.span("copy", off, n); err != nil || n == 0 {
		return err
	}
	if err := src.span("copy", srcOff, n); err != nil {
		return err
	}
	if err := b.d.enterNow("a copy on the device"); err != nil {
		return err
	}
	defer b.d.leave()
	return b.d.drv.cuMemcpyDtoD(b.ptr+off, src.ptr+srcOff, n)
}

// Free releases the memory; a second Free does nothing.
func (b *Buffer) Free() error {
	if b.freed.Swap(true) || b.ptr == 0 {
		return nil
	}
	if err := b.d.enter(); err != nil {
		return err
	}
	defer b.d.leave()
	return b.d.drv.cuMemFree(b.ptr)
}
