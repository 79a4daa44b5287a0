//go:build linux

package graph

import (
	"os"
	"syscall"
	"unsafe"
)

// mapCSR reads a plain CSR file by mapping it into memory, private and
// copy-on-write, so the graph's offsets and lists are the file's pages (a
// write to them copies the page; the file never changes). Not MAP_POPULATE:
// on a private writable mapping it copies every page, which costs several
// times the page faults it saves. The mapping lives
// as long as the process: the graph's slices point into it. Every check of
// ReadCSR is made, those of the adjacency section in one pass on all cores
// (adjcheck.go) or, with deferAdj, left to the caller through the graph's
// AdjCheck, which keeps the file open for its reads. ok is false when the
// file cannot be mapped (not a regular file, empty, mapping refused): the
// caller then reads it.
func mapCSR(path string, deferAdj bool) (g *Graph, meta CacheMeta, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, meta, false, nil
	}
	keep := false // deferred checks read the file (AdjCheck.Fill) and close it
	defer func() {
		if !keep {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < csrHeaderSize || int64(int(st.Size())) != st.Size() {
		return nil, meta, false, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, meta, false, nil
	}
	mr := &mappedReader{data: data}
	if deferAdj {
		mr.f = f
	}
	g, meta, err = readCSRFrom(mr, path, st.Size(), false)
	var ck *AdjCheck
	if err == nil && g.check != nil {
		ck = g.check
		if deferAdj {
			keep = true
		} else {
			err = ck.Finish()
			g.check = nil
		}
	}
	if err != nil {
		if ck != nil && ck.lazy {
			freeWords(g.Adj) // the lists' own pages (lazyWords)
		}
		syscall.Munmap(data)
		return nil, meta, true, err
	}
	return g, meta, true, nil
}

// lazyWords returns count zero words in an anonymous mapping (mapped
// true): no page is touched until written, so a packed section that is
// unpacked on the GPU (packed.go) costs the host no memory. It lives as
// long as the process, as the file's mapping does, unless freeWords
// unmaps it. When the mapping is refused the words are allocated.
func lazyWords(count uint64) (w []uint32, mapped bool) {
	if count == 0 {
		return nil, false
	}
	b, err := syscall.Mmap(-1, 0, int(4*count), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]uint32, count), false
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), count), true
}

// freeWords unmaps words lazyWords mapped (mapped true; never Go memory).
func freeWords(w []uint32) {
	if len(w) > 0 {
		_ = syscall.Munmap(unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), 4*len(w)))
	}
}
