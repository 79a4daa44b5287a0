package cuda

import (
	"fmt"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Large uploads go through two pinned staging buffers: goroutines copy one
// chunk of the source into one buffer while the DMA engine moves the other
// to the device. Pageable cuMemcpyHtoD stages through the driver's own small
// buffers: RMAT-24's oriented graph (0.65 GB) took 0.16 s on the H200
// machine, about 4 GB/s (docs/results/e2e-rmat24-nvidia-h200.txt), while
// pinned DMA over PCIe Gen5 runs several times faster.
var (
	stagedMin uint64 = 64 << 20 // smaller uploads gain nothing from it
	// Per buffer: pinning 2 x 32 MiB took 37 ms on the H100 machine and
	// stalled the host's other work, 2 x 8 MiB 10 ms; uploads of 1 GB ran
	// no slower (TestGPUStageChunk: median 90 ms against 111 ms).
	stageChunk uint64 = 8 << 20
)

// copyPiece: a fill runs on one worker per copyPiece of the buffer, at most
// one per core (an 8 MiB staging buffer: 8 workers on the 16-core machine;
// 16 workers were tried once, in a call whose machine slowed down while it
// ran, and showed nothing: docs/performance.md). copyAlign: pieces start at
// multiples of it, so a fill gets whole words (and whole pages of a file).
// fillPiece, a multiple of copyAlign, is what a worker fills at a time.
const (
	copyPiece = 1 << 20
	copyAlign = 64 << 10
	fillPiece = 256 << 10
)

// cuEventDisableTiming: the staging events only order, they time nothing.
const cuEventDisableTiming = 0x2

type staging struct {
	mu   sync.Mutex
	buf  [2]unsafe.Pointer
	ev   [2]cuEvent
	busy [2]bool
}

// stagingBuffers allocates the pinned buffers on first use. The caller is
// inside enter. An error (an old driver, no pinned memory) makes the caller
// copy from pageable memory instead.
func (d *Device) stagingBuffers() (*staging, error) {
	d.stageOnce.Do(func() {
		st := &staging{}
		for k := range 2 {
			if err := d.drv.cuMemHostAlloc(unsafe.Pointer(&st.buf[k]), stageChunk, 0); err != nil {
				d.stageErr = err
				d.freeStaging(st)
				return
			}
			if err := d.drv.cuEventCreate(&st.ev[k], cuEventDisableTiming); err != nil {
				d.stageErr = err
				d.freeStaging(st)
				return
			}
		}
		d.stage = st
	})
	return d.stage, d.stageErr
}

// Prestage allocates the staging buffers in the background when an upload
// of the given size will use them, so that it need not wait while they are
// pinned (about 10 ms on the H100 machine: docs/performance.md, "End to
// end"). The upload waits for an allocation in progress; a failed one
// leaves it the pageable path.
func (d *Device) Prestage(upload uint64) {
	if upload < stagedMin {
		return
	}
	d.prestage.Go(func() {
		if err := d.enter(); err != nil {
			return
		}
		defer d.leave()
		_, _ = d.stagingBuffers()
	})
}

// freeStaging releases what st holds; the caller is inside enter.
func (d *Device) freeStaging(st *staging) {
	if st == nil {
		return
	}
	for k := range 2 {
		if st.busy[k] {
			_ = d.drv.cuEventSynchronize(st.ev[k])
		}
		if st.ev[k] != 0 {
			_ = d.drv.cuEventDestroy(st.ev[k])
		}
		if st.buf[k] != nil {
			_ = d.drv.cuMemFreeHost(st.buf[k])
		}
	}
}

// writeStaged uploads n bytes to dst through the staging buffers, fill
// writing them into each buffer on all cores; the caller is inside enter. It
// returns when the data is on the device, or at the first error of fill,
// before the range that failed is sent.
func (d *Device) writeStaged(st *staging, dst uint64, n uint64, fill func(dst []byte, pos uint64) error) (err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	defer func() { // nothing in flight reads a staging buffer after return
		for k := range 2 {
			if st.busy[k] {
				if serr := d.drv.cuEventSynchronize(st.ev[k]); serr != nil && err == nil {
					err = serr
				}
				st.busy[k] = false
			}
		}
	}()
	for pos, i := uint64(0), 0; pos < n; pos, i = pos+stageChunk, i+1 {
		k := i % 2
		ln := min(stageChunk, n-pos)
		if st.busy[k] { // its previous chunk must have left before it is refilled
			if err := d.drv.cuEventSynchronize(st.ev[k]); err != nil {
				return err
			}
			st.busy[k] = false
		}
		if err := parallelFill(unsafe.Slice((*byte)(st.buf[k]), ln), pos, fill); err != nil {
			return err
		}
		if err := d.drv.cuMemcpyHtoDAsync(dst+pos, st.buf[k], ln, 0); err != nil {
			return fmt.Errorf("cuda: staged upload of %d bytes at %d: %w", ln, pos, err)
		}
		if err := d.drv.cuEventRecord(st.ev[k], 0); err != nil {
			_ = d.drv.cuCtxSynchronize() // the copy is queued without an event: wait for it here
			return err
		}
		st.busy[k] = true
	}
	return nil
}

// writeUnstaged uploads n bytes that fill writes, without pinned buffers
// (none could be allocated): a pageable chunk at a time.
func (d *Device) writeUnstaged(dst uint64, n uint64, fill func(dst []byte, pos uint64) error) error {
	buf := make([]byte, min(n, stageChunk))
	for pos := uint64(0); pos < n; pos += stageChunk {
		b := buf[:min(stageChunk, n-pos)]
		if err := parallelFill(b, pos, fill); err != nil {
			return err
		}
		if err := d.drv.cuMemcpyHtoD(dst+pos, unsafe.Pointer(&b[0]), uint64(len(b))); err != nil {
			return err
		}
	}
	return nil
}

// copyFrom is the fill of a plain upload: bytes of host memory at src.
func copyFrom(src unsafe.Pointer) func(dst []byte, pos uint64) error {
	return func(dst []byte, pos uint64) error {
		copy(dst, unsafe.Slice((*byte)(unsafe.Add(src, pos)), len(dst)))
		return nil
	}
}

// parallelFill has fill write buf, the upload's bytes [pos, pos+len(buf)),
// on several cores (reading a mapped file's pages or a file, and writing
// pinned memory, all gain from it), in pieces of fillPiece bytes that the workers
// take in turn: a worker the OS delays holds up one piece, not a whole
// share of the buffer. It returns the error of the lowest piece that failed.
func parallelFill(buf []byte, pos uint64, fill func(dst []byte, pos uint64) error) error {
	n := uint64(len(buf))
	pieces := (n + fillPiece - 1) / fillPiece
	workers := uint64(max(1, min(goruntime.GOMAXPROCS(0), int(n/copyPiece))))
	if workers == 1 {
		return fill(buf, pos)
	}
	errs := make([]error, pieces)
	var next atomic.Uint64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= pieces {
					return
				}
				lo := i * fillPiece
				errs[i] = fill(buf[lo:min(lo+fillPiece, n)], pos+lo)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
