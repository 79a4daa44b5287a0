//go:build linux

package cuda

import (
	"hash/crc32"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestGPUUploadPaths measures the ways a large file in the page cache can
// reach the GPU, to decide how the end-to-end count uploads a CSR file
// (docs/performance.md, "End to end"). It needs a file:
// TCGEN_UPLOAD_FILE=/tmp/rmat24-degree.tcsr (scripts/gpu-e2e.sh sets it);
// without one it skips. Every path's bytes are compared with the file's
// on the device side by a checksum-free spot check: the first and last
// 4 KiB of each 32 MiB read back.
func TestGPUUploadPaths(t *testing.T) {
	f, st := uploadFile(t)
	d := openGPU(t)
	size := uint64(st.Size()) &^ (64<<10 - 1) // whole copyAlign units
	buf, err := d.Alloc(size)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	b := buf.(*Buffer)
	// Warm the page cache.
	if _, err := f.ReadAt(make([]byte, 1), 0); err != nil {
		t.Fatal(err)
	}
	warm := make([]byte, 4<<20)
	for pos := int64(0); pos < int64(size); pos += int64(len(warm)) {
		if _, err := f.ReadAt(warm, pos); err != nil {
			break
		}
	}
	rate := func(what string, el time.Duration) {
		t.Logf("%-40s %7.1f ms  %5.1f GB/s", what, float64(el.Microseconds())/1e3, float64(size)/el.Seconds()/1e9)
	}
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	pool := sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}
	// pread into a cached buffer, a checksum there or not, then a copy.
	preadCopyCRC := func(sum bool) func(dst []byte, pos uint64) error {
		return func(dst []byte, pos uint64) error {
			bp := pool.Get().(*[]byte)
			defer pool.Put(bp)
			for s := 0; s < len(dst); s += len(*bp) {
				p := (*bp)[:min(len(*bp), len(dst)-s)]
				if _, err := f.ReadAt(p, int64(pos)+int64(s)); err != nil {
					return err
				}
				if sum {
					crc32.Checksum(p, castagnoli)
				}
				copy(dst[s:], p)
			}
			return nil
		}
	}
	preadCopy := preadCopyCRC(false)
	check := func(what string) {
		back := make([]byte, 4096)
		want := make([]byte, 4096)
		for pos := uint64(0); pos+4096 <= size; pos += 32 << 20 {
			if err := b.Read(pos, unsafe.Pointer(&back[0]), 4096); err != nil {
				t.Fatal(err)
			}
			if _, err := f.ReadAt(want, int64(pos)); err != nil {
				t.Fatal(err)
			}
			if string(back) != string(want) {
				t.Fatalf("%s: bytes at %d differ", what, pos)
			}
		}
	}
	for round := range 2 {
		// The CPU side alone: pread into a cached buffer on all cores.
		start := time.Now()
		scratch := make([]byte, 32<<20)
		for pos := uint64(0); pos < size; pos += uint64(len(scratch)) {
			ln := min(uint64(len(scratch)), size-pos)
			if err := parallelFill(scratch[:ln], pos, func(dst []byte, p uint64) error {
				bp := pool.Get().(*[]byte)
				defer pool.Put(bp)
				for s := 0; s < len(dst); s += len(*bp) {
					if _, err := f.ReadAt((*bp)[:min(len(*bp), len(dst)-s)], int64(p)+int64(s)); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		rate("pread only (cached buffer)", time.Since(start))

		start = time.Now()
		if err := b.WriteFrom(0, size, func(dst []byte, pos uint64) error { return nil }); err != nil {
			t.Fatal(err)
		}
		rate("DMA only (staging, no fill)", time.Since(start))

		start = time.Now()
		if err := b.WriteFrom(0, size, preadCopy); err != nil {
			t.Fatal(err)
		}
		rate("pread, copy to staging, DMA", time.Since(start))
		check("pread+copy")

		start = time.Now()
		if err := b.WriteFrom(0, size, func(dst []byte, pos uint64) error {
			_, err := f.ReadAt(dst, int64(pos))
			return err
		}); err != nil {
			t.Fatal(err)
		}
		rate("pread into staging, DMA", time.Since(start))
		check("pread direct")

		// With the file's checksum (graph.AdjCheck.FillChecksum's work).
		start = time.Now()
		if err := b.WriteFrom(0, size, preadCRC(f)); err != nil {
			t.Fatal(err)
		}
		rate("pread into staging, CRC there, DMA", time.Since(start))
		start = time.Now()
		if err := b.WriteFrom(0, size, preadCopyCRC(true)); err != nil {
			t.Fatal(err)
		}
		rate("pread, CRC, copy to staging, DMA", time.Since(start))

		// The mapping, registered for DMA as it is.
		for _, populate := range []bool{false, true} {
			flags := syscall.MAP_SHARED
			if populate {
				flags |= syscall.MAP_POPULATE
			}
			start = time.Now()
			m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, flags)
			if err != nil {
				t.Fatal(err)
			}
			mapped := time.Since(start)
			start = time.Now()
			const readOnly = 0x08 // CU_MEMHOSTREGISTER_READ_ONLY
			err = d.drv.cuMemHostRegister(unsafe.Pointer(&m[0]), size, readOnly)
			reg := time.Since(start)
			if err != nil {
				t.Logf("register (populate %v): %v after %v", populate, err, reg)
				syscall.Munmap(m)
				continue
			}
			start = time.Now()
			err = d.drv.cuMemcpyHtoD(b.ptr, unsafe.Pointer(&m[0]), size)
			dma := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			start = time.Now()
			if err := d.drv.cuMemHostUnregister(unsafe.Pointer(&m[0])); err != nil {
				t.Fatal(err)
			}
			unreg := time.Since(start)
			syscall.Munmap(m)
			t.Logf("mapping (populate %v): mmap %v, register %v, unregister %v", populate, mapped, reg, unreg)
			rate("  DMA from the registered mapping", dma)
			rate("  mmap + register + DMA", mapped+reg+dma)
			check("registered")
		}
		t.Logf("round %d done", round+1)
	}
}

// TestGPUStageChunk: the staging buffers' size against what pinning them
// costs and how fast the upload then runs (pread into the staging buffer
// and a checksum there, as graph.AdjCheck.FillChecksum does), on the file
// of TCGEN_UPLOAD_FILE.
func TestGPUStageChunk(t *testing.T) {
	f, st := uploadFile(t)
	size := uint64(st.Size()) &^ (64<<10 - 1)
	fill := preadCRC(f)
	saved := stageChunk
	defer func() { stageChunk = saved }()
	for _, mib := range []uint64{4, 8, 16, 32} {
		stageChunk = mib << 20
		d := openGPU(t)
		buf, err := d.Alloc(size)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		d.Prestage(size)
		d.prestage.Wait()
		pin := time.Since(start)
		var runs []time.Duration
		for range 5 {
			start = time.Now()
			if err := buf.(*Buffer).WriteFrom(0, size, fill); err != nil {
				t.Fatal(err)
			}
			runs = append(runs, time.Since(start))
		}
		slices.Sort(runs)
		t.Logf("staging 2 x %2d MiB: pinned in %v; pread+CRC+DMA of %d MiB: median %v (%.1f GB/s), min %v, max %v",
			mib, pin, size>>20, runs[2], float64(size)/runs[2].Seconds()/1e9, runs[0], runs[4])
		buf.Free()
		d.Close()
	}
}

// TestGPURegisterChunks: the file's mapping registered for DMA in pieces
// from several goroutines at once, then copied, against the pread path; and
// the checksum computed from the mapping on all cores (what the host would
// still do with the lists copied straight from the page cache).
func TestGPURegisterChunks(t *testing.T) {
	f, st := uploadFile(t)
	d := openGPU(t)
	size := uint64(st.Size()) &^ (64<<20 - 1) // whole 64 MiB pieces
	buf, err := d.Alloc(size)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	b := buf.(*Buffer)
	for _, piece := range []uint64{64 << 20, 16 << 20} {
		for _, workers := range []int{1, 4, 16} {
			m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
			if err != nil {
				t.Fatal(err)
			}
			pieces := size / piece
			var next atomic.Uint64
			var wg sync.WaitGroup
			errs := make([]error, workers)
			start := time.Now()
			for w := range workers {
				wg.Go(func() {
					if err := d.enter(); err != nil {
						errs[w] = err
						return
					}
					defer d.leave()
					for {
						i := next.Add(1) - 1
						if i >= pieces {
							return
						}
						if err := d.drv.cuMemHostRegister(unsafe.Pointer(&m[i*piece]), piece, 0x08); err != nil {
							errs[w] = err
							return
						}
					}
				})
			}
			wg.Wait()
			reg := time.Since(start)
			for _, err := range errs {
				if err != nil {
					t.Fatalf("register: %v", err)
				}
			}
			if err := d.enter(); err != nil {
				t.Fatal(err)
			}
			start = time.Now()
			for i := uint64(0); i < pieces; i++ {
				if err := d.drv.cuMemcpyHtoDAsync(b.ptr+i*piece, unsafe.Pointer(&m[i*piece]), piece, 0); err != nil {
					t.Fatal(err)
				}
			}
			if err := d.drv.cuCtxSynchronize(); err != nil {
				t.Fatal(err)
			}
			dma := time.Since(start)
			start = time.Now()
			for i := uint64(0); i < pieces; i++ {
				d.drv.cuMemHostUnregister(unsafe.Pointer(&m[i*piece]))
			}
			unreg := time.Since(start)
			d.leave()
			// The checksum from the mapping (already faulted in by the
			// registration), on all cores.
			crcT := parallelCRC(m[:size])
			syscall.Munmap(m)
			t.Logf("pieces of %2d MiB, %2d workers: register %v, DMA %v (%.1f GB/s), unregister %v; CRC from the mapping on 16 cores %v",
				piece>>20, workers, reg, dma, float64(size)/dma.Seconds()/1e9, unreg, crcT)
		}
	}
	// A fresh mapping's checksum (page faults included).
	m, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("CRC from a fresh mapping on 16 cores: %v", parallelCRC(m[:size]))
	syscall.Munmap(m)
}

// uploadFile opens the file TCGEN_UPLOAD_FILE names, closed when the test
// ends, or skips the test.
func uploadFile(t *testing.T) (*os.File, os.FileInfo) {
	t.Helper()
	path := os.Getenv("TCGEN_UPLOAD_FILE")
	if path == "" {
		t.Skip("TCGEN_UPLOAD_FILE not set: nothing to measure")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return f, st
}

// parallelCRC checksums b (CRC-32C) in 1 MiB pieces on 16 goroutines and
// returns how long it took.
func parallelCRC(b []byte) time.Duration {
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	start := time.Now()
	var wg sync.WaitGroup
	var at atomic.Uint64
	pieces := uint64(len(b)) >> 20
	for range 16 {
		wg.Go(func() {
			for {
				i := at.Add(1) - 1
				if i >= pieces {
					return
				}
				crc32.Checksum(b[i<<20:(i+1)<<20], castagnoli)
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// preadCRC is a fill that reads the file into the staging buffer, 256 KiB
// at a time, and checksums each piece there (graph.AdjCheck.FillChecksum's
// work).
func preadCRC(f *os.File) func(dst []byte, pos uint64) error {
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	return func(dst []byte, pos uint64) error {
		for s := 0; s < len(dst); s += 256 << 10 {
			p := dst[s:min(s+256<<10, len(dst))]
			if _, err := f.ReadAt(p, int64(pos)+int64(s)); err != nil {
				return err
			}
			crc32.Checksum(p, castagnoli)
		}
		return nil
	}
}
