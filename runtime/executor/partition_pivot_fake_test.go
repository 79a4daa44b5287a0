package executor_test

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/runtime/gpu"
	"github.com/tcgen/tcgen/templates"
)

// The fake device's half of the pivot in partitions (runtime/executor/
// partition_pivot.go): templates/partition.cu's count and scatter of a
// pair's in-edges as the CPU computations they stand for. The scatter's
// placements are checked against the in-edge offsets the plan's bin kernel
// wrote (pivot_fake_test.go), and the count's counters must start the pair
// zeroed, as the bin of the pair before leaves them.

// partLenBits is PART_LEN_BITS of templates/partition.cu, which must be
// the plan's LEN_BITS: the class kernels unpack the tails it packs.
var partLenBits = func() uint64 {
	m := regexp.MustCompile(`constexpr u32 PART_LEN_BITS = (\d+);`).FindStringSubmatch(templates.Partition)
	if m == nil {
		return 0
	}
	b, _ := strconv.ParseUint(m[1], 10, 64)
	return b
}()

// partPivotLaunch runs a pivot helper of a count in partitions; false for
// another kernel. The rebase of a block marks the plan's pivot as counting
// in partitions (its core kernel runs at a block's arrival).
func (d *fakeDevice) partPivotLaunch(name string, grid gpu.Dim3, args []any) (bool, error) {
	switch name {
	case executor.PartRebaseKernel:
		if d.pv != nil {
			d.pv.partitioned = true
		}
		return false, nil
	case executor.PartPivotCountKernel, executor.PartPivotScatterKernel:
	default:
		return false, nil
	}
	if d.pv == nil {
		return true, fmt.Errorf("%s: the plan has no pivot classes", name)
	}
	off, adj := rxU64s(args[0]), rxU32s(args[1])
	lo, nv, tlo, thi := args[2].(uint32), args[3].(uint32), args[4].(uint32), args[5].(uint32)
	if thi <= tlo || nv == 0 || grid.X == 0 {
		return true, fmt.Errorf("%s: block of %d vertices, targets [%d, %d), grid %d: nothing to do", name, nv, tlo, thi, grid.X)
	}
	// each in-edge of the pair: its position, target and row end
	var in [][3]uint64
	for u := lo; u < lo+nv; u++ {
		b := off[u+1]
		for e := off[u]; e+1 < b; e++ {
			if v := adj[e]; v >= tlo && v < thi {
				in = append(in, [3]uint64{e, uint64(v - tlo), b})
			}
		}
	}
	if name == executor.PartPivotCountKernel {
		return true, d.partPivotCount(name, in, thi-tlo, rxU64s(args[6]), uint64(args[7].(uint32)))
	}
	return true, d.partPivotScatter(name, in, thi-tlo, rxU64s(args[6]), rxU64s(args[7]))
}

// partPivotCount is tcgen_part_pivot_count: wrk[v - tlo] += tail << shift
// | 1 per in-edge.
func (d *fakeDevice) partPivotCount(name string, in [][3]uint64, nt uint32, wrk []uint64, shift uint64) error {
	if uint64(nt) > uint64(len(wrk)) {
		return fmt.Errorf("%s: %d targets, counters for %d", name, nt, len(wrk))
	}
	for x, w := range wrk[:nt] {
		if w != 0 {
			return fmt.Errorf("%s: wrk[%d] = %d at the start of a pair: the bin before did not zero it", name, x, w)
		}
	}
	for _, ie := range in {
		e, x, b := ie[0], ie[1], ie[2]
		wrk[x] += (b-e-1)<<shift | 1
	}
	d.pv.ready = false
	return nil
}

// partPivotScatter is tcgen_part_pivot_scatter: tails[--end[v - tlo]] =
// (e + 1) << PART_LEN_BITS | tail, each slot within the target's in-edge
// range and written once.
func (d *fakeDevice) partPivotScatter(name string, in [][3]uint64, nt uint32, end, tails []uint64) error {
	p := d.pv
	if p.inoff == nil || partLenBits != p.lenBits {
		return fmt.Errorf("%s: no bin before it, or PART_LEN_BITS %d against LEN_BITS %d", name, partLenBits, p.lenBits)
	}
	inoff := rxU64s(p.inoff)
	written := make([]bool, inoff[nt])
	for _, ie := range in {
		e, x, b := ie[0], ie[1], ie[2]
		k := end[x] - 1
		if end[x] <= inoff[x] || k >= inoff[x+1] || k >= uint64(len(tails)) || written[k] {
			return fmt.Errorf("%s: in-edge %d of target %d placed at %d, outside [%d, %d) or twice", name, e, x, k, inoff[x], inoff[x+1])
		}
		end[x]--
		written[k] = true
		tails[k] = (e+1)<<partLenBits | (b - e - 1)
	}
	for x := range uint64(nt) {
		if inoff[x+1] > inoff[x] && end[x] != inoff[x] {
			return fmt.Errorf("%s: left end[%d] = %d, want inoff %d", name, x, end[x], inoff[x])
		}
	}
	for k, w := range written {
		if !w {
			return fmt.Errorf("%s: in-edge slot %d of %d left unwritten", name, k, len(written))
		}
	}
	p.ready = true
	p.passes++
	return nil
}
