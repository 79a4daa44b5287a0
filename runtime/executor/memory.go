package executor

import (
	"errors"
	"fmt"

	"github.com/tcgen/tcgen/gen"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/runtime/gpu"
)

// The memory plan: every device buffer of a run is a bufferSpec, listed by
// the executor (commonBuffers) and by each family (family.buffers);
// Prepare sums the lists before anything is allocated (Result.DeviceBytes,
// TooLargeError.Need), and the same lists are walked to allocate. Where the
// device decides a size (the bit slices, bitwise.go) the plan lists a
// bound, and the family allocates at that bound.

// bufferSpec is one device buffer: its name (in errors), its size and
// where allocate puts it.
type bufferSpec struct {
	name  string
	bytes uint64
	// dst receives the buffer; nil for one allocated elsewhere at this
	// size or below it (by the graph's upload, upload.go).
	dst  *gpu.Buffer
	zero bool // zeroed once allocated
}

// sumBytes is the device memory of specs.
func sumBytes(specs []bufferSpec) uint64 {
	var b uint64
	for _, s := range specs {
		b += s.bytes
	}
	return b
}

// allocate allocates, in order, every spec that has a dst.
func (pr *Prepared) allocate(specs []bufferSpec) error {
	for _, s := range specs {
		if s.dst == nil {
			continue
		}
		b, err := pr.alloc(s.bytes)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		*s.dst = b
		if s.zero {
			if err := b.Zero(); err != nil {
				return fmt.Errorf("zeroing the %s: %w", s.name, err)
			}
		}
	}
	return nil
}

func (pr *Prepared) alloc(bytes uint64) (gpu.Buffer, error) {
	b, err := pr.dev.Alloc(bytes)
	if err != nil {
		return nil, err
	}
	pr.buffers = append(pr.buffers, b)
	return b, nil
}

// commonBuffers lists the buffers of every plan, families apart: the graph
// (allocated by its upload), the counters, src (with edge classes), the
// work lists uploaded from the host, what the device check of deferred
// list checks needs (upload.go), and the per-group scratch and the dense
// rows' matrix of sp (scratch.go).
func (pr *Prepared) commonBuffers(needSrc bool, lists []WorkList, ck *graph.AdjCheck, sp scratchPlan) []bufferSpec {
	n, m := uint64(pr.n), pr.m
	b := []bufferSpec{
		{name: "offsets", bytes: (n + 1) * 8},
		{name: "adjacency", bytes: adjBytes(m)},
		// Accumulators and tickets start at zero; self-resetting kernels
		// leave them so after every pass (gen.Class.SelfReset).
		{name: "counts", bytes: uint64(gen.CountsWords(len(pr.classes))) * 8, dst: &pr.counts, zero: true},
	}
	if needSrc {
		b = append(b, bufferSpec{name: "src", bytes: m * 4, dst: &pr.srcBuf})
	}
	if w := gen.LocalWords(pr.manifest.Output, n, m); w > 0 { // zeroed before each pass (local.go)
		b = append(b, bufferSpec{name: "local counts", bytes: w * 8, dst: &pr.local})
	}
	for i := range pr.classes {
		if l := &lists[i]; l.Bytes() > 0 { // not skipped, not every item, some items
			bytes := listOffset(pr.classes[i].c, l) + l.Bytes() // a carry class's widened in place (aligned.go)
			b = append(b, bufferSpec{name: "work list of class " + pr.classes[i].c.Name, bytes: bytes, dst: &pr.classes[i].list})
		}
	}
	if ck != nil {
		b = append(b, bufferSpec{name: "list check verdict", bytes: checkVerdictBytes})
		if ck.ArcOrder() == graph.ArcsByDegree {
			b = append(b, bufferSpec{name: "degrees (list check)", bytes: degreesBytes(n)})
		}
		if ck.Packed() {
			b = append(b, bufferSpec{name: "packed adjacency", bytes: packedUploadBytes(m)}) // until unpacked
		}
	}
	if sp.bytes > 0 {
		// Zeroed once: kernels that need it zeroed leave it so (gen.Scratch).
		b = append(b, bufferSpec{name: "scratch", bytes: sp.bytes, dst: &pr.scratch, zero: true})
	}
	if sp.square > 0 { // written by the rows kernel in every pass: never cleared
		b = append(b, bufferSpec{name: "dense rows", bytes: sp.square, dst: &pr.square})
	}
	return b
}

// adjBytes is the adjacency buffer's size for m entries: whole 32-byte
// tiles, since a tiled merge reads aligned tiles of up to 8 entries with
// 16-byte loads (templates/isect_merge.cu.tmpl) and masks what lies past a
// list. The upload writes the padding once (zeros), so those reads see
// defined bytes.
func adjBytes(m uint64) uint64 { return (m*4 + 31) &^ 31 }

// ErrTooLarge is matched (errors.Is) by every *TooLargeError.
var ErrTooLarge = errors.New("does not fit in GPU memory")

// TooLargeError says a plan's data do not fit in the device's memory. It is
// returned before anything is allocated.
type TooLargeError struct {
	Plan   string
	Device string
	Need   uint64 // bytes the run would allocate
	Have   uint64 // bytes it may use
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("plan %s: needs %d MiB of device memory, %s has %d MiB usable: %v",
		e.Plan, e.Need>>20, e.Device, e.Have>>20, ErrTooLarge)
}

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// ErrLimit is matched (errors.Is) by every *LimitError.
var ErrLimit = errors.New("the plan's encoding cannot hold this graph")

// LimitError says a plan cannot take a graph: a size beyond what its
// kernels pack or index (a pivot's counters, a tiled merge's padding ids).
// Another plan may; it is returned before anything is allocated.
type LimitError struct {
	Why string // the size and the limit it passes
}

func (e *LimitError) Error() string { return e.Why }

// Is makes errors.Is(err, ErrLimit) true.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// memoryHeadroom is kept free beyond the run's buffers: the context, the
// loaded module and the allocator's granularity take some of the memory the
// device reports.
const memoryHeadroom = 256 << 20

// memInfo is implemented by devices that can report free memory.
type memInfo interface {
	MemInfo() (free, total uint64, err error)
}

// usableMemory is the memory a run may allocate on dev: what it reports
// free (or its size), less the headroom.
func usableMemory(dev gpu.Device) uint64 {
	have := dev.Facts().MemoryBytes
	if mi, ok := dev.(memInfo); ok {
		if free, _, err := mi.MemInfo(); err == nil {
			have = free
		}
	}
	return max(have, memoryHeadroom) - memoryHeadroom
}
