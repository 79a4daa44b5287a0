// Package mpi reaches an MPI library through dlopen (no cgo: tcgen builds
// and runs without MPI): init, rank and size of MPI_COMM_WORLD, sums and
// maxima across the ranks, finalize. Open MPI (libmpi.so.40) and MPICH
// (libmpi.so.12) are supported; their handles differ (see handles).
package mpi

import (
	"errors"
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// ErrNoMPI: no MPI library could be loaded.
var ErrNoMPI = errors.New("mpi: no MPI library")

// libNames are the libraries tried, in order: Open MPI's soname, MPICH's.
var libNames = []string{"libmpi.so.40", "libmpi.so.12"}

// threadSerialized is MPI_THREAD_SERIALIZED in both libraries' mpi.h:
// goroutines may call from any OS thread, one at a time (mu).
const threadSerialized = 2

// MPICH's handles are integer constants (its mpi.h).
const (
	mpichCommWorld = 0x44000000
	mpichSum       = 0x58000003
	mpichMax       = 0x58000001
	mpichUint64    = 0x4c00083e
	mpichDouble    = 0x4c00080b
)

// handles are the library's MPI_COMM_WORLD, MPI_SUM, MPI_MAX,
// MPI_UINT64_T and MPI_DOUBLE as passed to its functions: Open MPI's are
// the addresses of exported objects, MPICH's integers.
type handles struct {
	world, sum, max, u64, f64 uintptr
}

// Comm is MPI_COMM_WORLD of an initialised library.
type Comm struct {
	Rank, Size int
	Library    string

	mu        sync.Mutex
	h         handles
	allreduce func(send, recv unsafe.Pointer, count int32, dtype, op, comm uintptr) int32
	finalize  func() int32
	abort     func(comm uintptr, code int32) int32
}

// dlopen opens a library on one OS thread (dlerror's message belongs to
// the thread that called dlopen). RTLD_GLOBAL: Open MPI's plugins resolve
// the library's symbols through the global namespace.
func dlopen(path string) (uintptr, error) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
}

// Init loads the MPI library and initialises it; Finalize ends it. It
// fails with ErrNoMPI when no library loads.
func Init() (*Comm, error) {
	var tried []string
	for _, name := range libNames {
		h, err := dlopen(name)
		if err != nil {
			tried = append(tried, fmt.Sprintf("%s (%v)", name, err))
			continue
		}
		return initLib(h, name)
	}
	return nil, fmt.Errorf("%w: tried %s", ErrNoMPI, strings.Join(tried, "; "))
}

func initLib(lib uintptr, name string) (*Comm, error) {
	var hs handles
	if w, err := purego.Dlsym(lib, "ompi_mpi_comm_world"); err == nil {
		syms := []string{"ompi_mpi_op_sum", "ompi_mpi_op_max", "ompi_mpi_uint64_t", "ompi_mpi_double"}
		addrs := []*uintptr{&hs.sum, &hs.max, &hs.u64, &hs.f64}
		hs.world = w
		for i, s := range syms {
			if *addrs[i], err = purego.Dlsym(lib, s); err != nil {
				return nil, fmt.Errorf("mpi: %s has no %s", name, s)
			}
		}
	} else {
		hs = handles{world: mpichCommWorld, sum: mpichSum, max: mpichMax, u64: mpichUint64, f64: mpichDouble}
	}
	for _, s := range []string{"MPI_Init_thread", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Allreduce", "MPI_Finalize", "MPI_Abort"} {
		if _, err := purego.Dlsym(lib, s); err != nil {
			return nil, fmt.Errorf("mpi: %s has no %s", name, s)
		}
	}
	c := &Comm{Library: name, h: hs}
	var initThread func(argc, argv unsafe.Pointer, required int32, provided *int32) int32
	var commInt func(comm uintptr, out *int32) int32
	var commSize func(comm uintptr, out *int32) int32
	purego.RegisterLibFunc(&initThread, lib, "MPI_Init_thread")
	purego.RegisterLibFunc(&commInt, lib, "MPI_Comm_rank")
	purego.RegisterLibFunc(&commSize, lib, "MPI_Comm_size")
	purego.RegisterLibFunc(&c.allreduce, lib, "MPI_Allreduce")
	purego.RegisterLibFunc(&c.finalize, lib, "MPI_Finalize")
	purego.RegisterLibFunc(&c.abort, lib, "MPI_Abort")
	var provided, rank, size int32
	if rc := initThread(nil, nil, threadSerialized, &provided); rc != 0 {
		return nil, fmt.Errorf("mpi: MPI_Init_thread of %s failed (error %d)", name, rc)
	}
	if rc := commInt(hs.world, &rank); rc != 0 {
		return nil, fmt.Errorf("mpi: MPI_Comm_rank failed (error %d)", rc)
	}
	if rc := commSize(hs.world, &size); rc != 0 {
		return nil, fmt.Errorf("mpi: MPI_Comm_size failed (error %d)", rc)
	}
	c.Rank, c.Size = int(rank), int(size)
	return c, nil
}

// SumUint64s replaces v, on every rank, with its element-wise sum over
// all ranks (exact: integers).
func (c *Comm) SumUint64s(v []uint64) error {
	if len(v) == 0 {
		return nil
	}
	return c.reduce(unsafe.Pointer(&v[0]), len(v), c.h.u64, c.h.sum)
}

// MaxFloat64s replaces v, on every rank, with its element-wise maximum
// over all ranks.
func (c *Comm) MaxFloat64s(v []float64) error {
	if len(v) == 0 {
		return nil
	}
	return c.reduce(unsafe.Pointer(&v[0]), len(v), c.h.f64, c.h.max)
}

// reduce is MPI_Allreduce in place: the send buffer is a copy of v.
func (c *Comm) reduce(v unsafe.Pointer, n int, dtype, op uintptr) error {
	send := make([]byte, n*8) // both types are 8 bytes
	copy(send, unsafe.Slice((*byte)(v), n*8))
	c.mu.Lock()
	defer c.mu.Unlock()
	if rc := c.allreduce(unsafe.Pointer(&send[0]), v, int32(n), dtype, op, c.h.world); rc != 0 {
		return fmt.Errorf("mpi: MPI_Allreduce failed (error %d)", rc)
	}
	return nil
}

// Finalize ends the library's use; no call may follow.
func (c *Comm) Finalize() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rc := c.finalize(); rc != 0 {
		return fmt.Errorf("mpi: MPI_Finalize failed (error %d)", rc)
	}
	return nil
}

// Abort ends every rank with code: a rank that fails alone would leave
// the others waiting in a collective call forever.
func (c *Comm) Abort(code int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.abort(c.h.world, int32(code))
}

// localRankVars name a process's rank among those of its host, as Open
// MPI, MPICH (Hydra) and Slurm set them.
var localRankVars = []string{"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}

// LocalRank is the process's rank on its host from the launcher's
// environment, or fallback (the world rank) when no launcher set one.
func LocalRank(fallback int) int {
	for _, v := range localRankVars {
		if k, err := strconv.Atoi(os.Getenv(v)); err == nil && k >= 0 {
			return k
		}
	}
	return fallback
}
