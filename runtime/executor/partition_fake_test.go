package executor_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/examples"
	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
)

// The fake device's half of a count in partitions (runtime/executor/
// partition.go): the helper kernels of templates/partition.cu as the CPU
// computations they stand for, and an allocation limit that fails any
// allocation beyond the cap, so that the partition is shown to stay under
// it.

func isPartKernel(name string) bool {
	return name == executor.PartSrcKernel || name == executor.PartListKernel || name == executor.PartAddKernel || name == executor.PartRebaseKernel ||
		name == executor.PartPivotCountKernel || name == executor.PartPivotScatterKernel
}

// partLaunch runs a partition helper; false for another kernel.
func partLaunch(name string, args []any) (bool, error) {
	switch name {
	case executor.PartSrcKernel: // off, lo, nv, src
		off, lo, nv, src := rxU64s(args[0]), args[1].(uint32), args[2].(uint32), rxU32s(args[3])
		for u := lo; u < lo+nv; u++ {
			for e := off[u]; e < off[u+1]; e++ {
				if e >= uint64(len(src)) {
					return true, fmt.Errorf("%s: entry %d past src of %d", name, e, len(src))
				}
				src[e] = u
			}
		}
	case executor.PartListKernel: // off, adj, lo, nv, tlo, thi, list, fill
		off, adj := rxU64s(args[0]), rxU32s(args[1])
		lo, nv, tlo, thi := args[2].(uint32), args[3].(uint32), args[4].(uint32), args[5].(uint32)
		list, fill := rxU64s(args[6]), rxU64s(args[7])
		// Last vertex first: the device's order is any, and the count must
		// not depend on it.
		for u := lo + nv; u > lo; u-- {
			for e := off[u-1]; e < off[u]; e++ {
				if v := adj[e]; v >= tlo && v < thi {
					if fill[0] >= uint64(len(list)) {
						return true, fmt.Errorf("%s: list of %d overflows", name, len(list))
					}
					list[fill[0]] = e
					fill[0]++
				}
			}
		}
	case executor.PartRebaseKernel: // off, lo, nv, base, at
		off, lo, nv, base, at := args[0].(*fakeBuf), uint64(args[1].(uint32)), uint64(args[2].(uint32)), args[3].(uint64), args[4].(uint64)
		binary.LittleEndian.PutUint64(off.data[8*lo:], at)
		for v := lo + 1; v <= lo+nv; v++ {
			binary.LittleEndian.PutUint64(off.data[8*v:], off.u64(v)-base+at)
		}
	case executor.PartAddKernel: // counts, slot, sum
		counts, slot, sum := rxU64s(args[0]), args[1].(uint32), rxU64s(args[2])
		sum[0] += counts[slot]
	default:
		return false, nil
	}
	return true, nil
}

// liveBytes is what the live buffers hold.
func (d *fakeDevice) liveBytes() uint64 {
	var b uint64
	for x := range d.live {
		b += uint64(len(x.data))
	}
	return b
}

// examplePlan reads examples/name.yaml.
func examplePlan(t *testing.T, name string) ir.Plan {
	t.Helper()
	data, err := examples.FS.ReadFile(name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ir.Parse(data, "examples/"+name+".yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runPartitioned counts g in partitions on a fake device that fails
// allocations beyond capBytes, and checks the memory held stayed below.
func runPartitioned(t *testing.T, p ir.Plan, g *graph.Graph, capBytes, chunk uint64) *executor.Result {
	t.Helper()
	dev := newFakeDevice(t, p, 1<<40)
	res, err := runPartitionedOn(t, dev, p, g, capBytes, chunk)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// runPartitionedOn is runPartitioned on dev; the run's error is returned.
func runPartitionedOn(t *testing.T, dev *fakeDevice, p ir.Plan, g *graph.Graph, capBytes, chunk uint64) (*executor.Result, error) {
	t.Helper()
	dev.limit = capBytes
	pt, err := executor.PreparePartitioned(context.Background(), dev, &fakeCompiler{}, p, g, executor.RunOptions{DeviceMemory: capBytes, ChunkBytes: chunk})
	if err != nil {
		t.Fatal(err)
	}
	res, runErr := pt.Run(context.Background(), executor.RunOptions{Repeat: 2, Warmup: 1})
	if err := pt.Close(); err != nil && runErr == nil {
		t.Fatal(err)
	}
	if len(dev.live) != 0 || dev.pinned != 0 {
		t.Errorf("%d buffers live, %d bytes pinned after Close", len(dev.live), dev.pinned)
	}
	if runErr != nil {
		return nil, runErr
	}
	if dev.peak > capBytes || res.DeviceBytes > capBytes || dev.peak != res.DeviceBytes {
		t.Errorf("peak %d bytes, planned %d, cap %d", dev.peak, res.DeviceBytes, capBytes)
	}
	return res, nil
}

// partitionCap is a cap whose room beside the offsets holds blocks of
// about 1/b of the rows (16 bytes an entry): b blocks or more.
func partitionCap(g *graph.Graph, b float64) uint64 {
	n, m := uint64(g.N()), g.Edges()
	return (n+1)*8 + 64 + uint64(float64(m)*16/b)
}

// TestPartitionFakeExact: counts in partitions equal the oracle on RMAT,
// hubs, a star (pairs without edges), a complete graph and a wheel,
// under caps that force 2 blocks or more and several chunk sizes, every
// allocation within the cap.
func TestPartitionFakeExact(t *testing.T) {
	graphs := map[string]graph.Generator{
		"rmat10": graph.DefaultRMAT(10),
		"rmat12": graph.DefaultRMAT(12),
		"star":   graph.Star{Leaves: 300},
		"wheel":  graph.Wheel{Rim: 500},
		"k40":    graph.Complete{N: 40},
	}
	p := examplePlan(t, "small")
	for name, gg := range graphs {
		g, _, err := graph.Generate(gg)
		if err != nil {
			t.Fatal(err)
		}
		want := graph.Oracle(g)
		for _, b := range []float64{1.5, 2.5, 5} {
			for _, chunk := range []uint64{0, 256} {
				t.Run(fmt.Sprintf("%s/%g/%d", name, b, chunk), func(t *testing.T) {
					if chunk > 0 {
						chunk = max(chunk, 4*maxOut(g)) // a row fits a chunk
					}
					res := runPartitioned(t, p, g, partitionCap(g, b), chunk)
					st := res.Partition
					t.Logf("%+v", *st)
					if res.Triangles != want {
						t.Errorf("%d triangles, want %d (%+v)", res.Triangles, want, st)
					}
					// blocks sized by their lists need less than 16 bytes an
					// entry: fewer than b, but never one under these caps
					if st == nil || st.Blocks < 2 || st.Pairs < st.Blocks || st.BytesCopied < 4*g.Edges() {
						t.Errorf("partition %+v: want 2 blocks or more, a pair each, the rows copied", st)
					}
				})
			}
		}
	}
}

// maxOut is the largest out-degree of g oriented by degree.
func maxOut(g *graph.Graph) uint64 {
	o := graph.Orient(g, graph.ByDegree, true)
	var d uint64
	for v := range o.N() {
		d = max(d, o.Degree(uint32(v)))
	}
	return d
}

// TestPartitionFakeRefusals: a cap that cannot hold the offsets, and a
// plan whose classes a count in partitions cannot launch, are refused
// before anything is allocated, the first as too large.
func TestPartitionFakeRefusals(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(8))
	if err != nil {
		t.Fatal(err)
	}
	small := examplePlan(t, "small")
	dev := newFakeDevice(t, small, 1<<40)
	_, err = executor.PreparePartitioned(context.Background(), dev, &fakeCompiler{}, small, g, executor.RunOptions{DeviceMemory: 1 << 10})
	if !errors.Is(err, executor.ErrTooLarge) || !strings.Contains(err.Error(), "does not hold the offsets") {
		t.Errorf("a 1 KiB cap: %v", err)
	}
	even := examplePlan(t, "even")
	dev = newFakeDevice(t, even, 1<<40)
	_, err = executor.PreparePartitioned(context.Background(), dev, &fakeCompiler{}, even, g, executor.RunOptions{DeviceMemory: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "launches an edge class without scratch") {
		t.Errorf("a vertex plan: %v", err)
	}
	if dev.allocs != 0 {
		t.Errorf("%d allocations before the refusals", dev.allocs)
	}
}

// TestDeviceMemoryCap: RunOptions.DeviceMemory refuses a plan above it
// as too large, naming the cap, and runs it at or above its need.
func TestDeviceMemoryCap(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(8))
	if err != nil {
		t.Fatal(err)
	}
	p := examplePlan(t, "small")
	dev := newFakeDevice(t, p, 1<<40)
	res, err := executor.Run(context.Background(), dev, &fakeCompiler{}, p, g, executor.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	need := res.DeviceBytes
	_, err = executor.Run(context.Background(), dev, &fakeCompiler{}, p, g, executor.RunOptions{DeviceMemory: need - 1})
	var te *executor.TooLargeError
	if !errors.As(err, &te) || te.Have != need-1 || te.Need < need {
		t.Errorf("cap %d below a need of %d: %v", need-1, need, err)
	}
	if _, err = executor.Run(context.Background(), dev, &fakeCompiler{}, p, g, executor.RunOptions{DeviceMemory: need}); err != nil {
		t.Errorf("cap %d at the need: %v", need, err)
	}
}

// TestPartitionFakeStreams: the copies and counts on their two streams
// count exactly whichever runs first when the events let it: the copy
// stream first (each chunk copied as early as its slot is free, two ahead
// of the counts) or the compute stream first (each pair counted as soon as
// its chunk is in). A stream that ignores its waits is caught: copies that
// overwrite a slot before its pair is counted, or counts of a chunk not
// yet copied, give a wrong count or a failed kernel.
func TestPartitionFakeStreams(t *testing.T) {
	p := examplePlan(t, "small")
	for gname, gg := range map[string]graph.Generator{"rmat12": graph.DefaultRMAT(12), "wheel": graph.Wheel{Rim: 500}} {
		g, _, err := graph.Generate(gg)
		if err != nil {
			t.Fatal(err)
		}
		want := graph.Oracle(g)
		capBytes, chunk := partitionCap(g, 2.5), max(256, 4*maxOut(g)) // chunks of a few rows: many a block
		for prefer, name := range []string{"copies first", "counts first"} {
			t.Run(gname+"/"+name, func(t *testing.T) {
				dev := newFakeDevice(t, p, 1<<40)
				dev.prefer = prefer
				res, err := runPartitionedOn(t, dev, p, g, capBytes, chunk)
				if err != nil {
					t.Fatal(err)
				}
				if st := res.Partition; res.Triangles != want || !st.Pinned || st.Chunks < st.Blocks+2 {
					t.Errorf("%d triangles, want %d (%+v: want the rows pinned, 2 chunks or more after a block)", res.Triangles, want, *st)
				}
				if ahead := copiesAhead(dev.ran); prefer == 0 && ahead < 6 {
					t.Errorf("%d copies before the first count, want the rows and offsets of the block and two chunks", ahead)
				}
			})
			t.Run(gname+"/"+name+"/no waits", func(t *testing.T) {
				dev := newFakeDevice(t, p, 1<<40)
				dev.prefer, dev.noWait = prefer, map[int]bool{prefer: true}
				res, err := runPartitionedOn(t, dev, p, g, capBytes, chunk)
				if err != nil {
					t.Log(err)
				} else {
					t.Logf("%d triangles, want %d", res.Triangles, want)
				}
				if err == nil && res.Triangles == want {
					t.Errorf("stream %d ignoring its waits still counted %d: the schedule does not test the events", prefer, want)
				}
			})
		}
	}
}

// copiesAhead is the number of copies of the copy stream (stream 0) that
// ran before the first count on the compute stream (stream 1).
func copiesAhead(ran []string) int {
	n := 0
	for _, r := range ran {
		if strings.HasPrefix(r, "1 launch ") && !strings.HasPrefix(r, "1 launch tcgen_part") {
			return n
		}
		if strings.HasPrefix(r, "0 write") {
			n++
		}
	}
	return n
}
