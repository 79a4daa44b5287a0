package executor_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
	"github.com/tcgen/tcgen/templates"
)

// isCheckKernel reports whether name is one of the fixed kernels of
// templates/check_lists.cu, which the fake device emulates.
func isCheckKernel(name string) bool {
	return name == executor.CheckListsKernel || name == executor.DegreesKernel || name == executor.UnpackKernel
}

// checkLaunch emulates the list check and the degrees' sums of
// templates/check_lists.cu (ok false for another kernel), with their
// arguments' types and sizes checked as the GPU would not.
func (d *fakeDevice) checkLaunch(name string, args []any) (ok bool, err error) {
	switch name {
	case executor.DegreesKernel:
		off, adj, n, m, deg := args[0].(*fakeBuf), args[1].(*fakeBuf), args[2].(uint64), args[3].(uint64), args[4].(*fakeBuf)
		if uint64(len(deg.data)) < 4*n || slices.ContainsFunc(deg.data, func(b byte) bool { return b != 0 }) {
			return true, fmt.Errorf("degrees: %d bytes for %d vertices, or not zeroed", len(deg.data), n)
		}
		add := func(i uint64, k uint32) {
			binary.LittleEndian.PutUint32(deg.data[4*i:], deg.u32(i)+k)
		}
		for i := uint64(0); i < m || i < n; i++ {
			if i < m {
				if w := adj.u32(i); uint64(w) < n {
					add(uint64(w), 1)
				}
			}
			if i < n {
				add(i, uint32(off.u64(i+1)-off.u64(i)))
			}
		}
		return true, nil
	case executor.CheckListsKernel:
	default:
		return false, nil
	}
	off, adj, n, order, bad := args[0].(*fakeBuf), args[1].(*fakeBuf), args[2].(uint64), graph.ArcOrder(args[3].(uint32)), args[5].(*fakeBuf)
	deg, isBuf := args[4].(*fakeBuf)
	if order == graph.ArcsByDegree && (!isBuf || uint64(len(deg.data)) < 4*n) || order != graph.ArcsByDegree && args[4] != any(uint64(0)) {
		return true, fmt.Errorf("check of order %d with degrees %v", order, args[4])
	}
	if d.checkLies {
		binary.LittleEndian.PutUint64(bad.data, 0)
		return true, nil
	}
	for v := range n {
		var dv uint32
		if order == graph.ArcsByDegree {
			dv = deg.u32(v)
		}
		for e := off.u64(v); e < off.u64(v+1); e++ {
			w := adj.u32(e)
			wrong := uint64(w) >= n || uint64(w) == v || (e > off.u64(v) && adj.u32(e-1) >= w)
			switch {
			case wrong:
			case order == graph.ArcsUp:
				wrong = uint64(w) < v
			case order == graph.ArcsByDegree:
				dw := deg.u32(uint64(w))
				wrong = dw < dv || dw == dv && uint64(w) < v
			}
			if wrong {
				binary.LittleEndian.PutUint64(bad.data, min(bad.u64(0), e))
				break
			}
		}
	}
	return true, nil
}

// reverseArc returns o's lists with the first arc v -> w of the first
// vertex with one turned into w -> v, or, with both, w -> v added: lists
// still sorted, in range and loop-free, but no orientation.
func reverseArc(o *graph.Oriented, both bool) graph.CSR {
	lists := make([][]uint32, o.N())
	for v := range lists {
		lists[v] = slices.Clone(o.Neighbors(uint32(v)))
	}
	for v, l := range lists {
		if len(l) == 0 {
			continue
		}
		w := l[0]
		if !both {
			lists[v] = l[1:]
		}
		lists[w] = append(lists[w], uint32(v))
		slices.Sort(lists[w])
		break
	}
	c := graph.CSR{Offsets: []uint64{0}}
	for _, l := range lists {
		c.Adj = append(c.Adj, l...)
		c.Offsets = append(c.Offsets, uint64(len(c.Adj)))
	}
	return c
}

// TestExecFakeOrientationCheck: an oriented file read with its checks
// deferred has its arcs' order checked by the device check, for every
// orientation (the degrees summed on the device for a file oriented by
// degree and not relabelled): a sound file counts exactly, with the
// degrees' buffer predicted; one with an arc reversed or stored both ways
// (sorted, in range, under a valid checksum) gets the error reading the
// file gives, after the checks alone.
func TestExecFakeOrientationCheck(t *testing.T) {
	g, _, err := graph.Generate(graph.DefaultRMAT(10))
	if err != nil {
		t.Fatal(err)
	}
	want := graph.Oracle(g)
	path := filepath.Join(t.TempDir(), "o.tcsr")
	for _, c := range []struct {
		by      graph.Orientation
		relabel bool
	}{{graph.ByID, false}, {graph.ByID, true}, {graph.ByDegree, true}, {graph.ByDegree, false}} {
		p := orientPlan(t, c.by, c.relabel)
		o := graph.Orient(g, c.by, c.relabel)
		for _, packed := range []bool{false, true} {
			name := fmt.Sprintf("by %s, relabel %v, packed %v", c.by, c.relabel, packed)
			run := func(csr graph.CSR) (*fakeDevice, *executor.Result, error) {
				meta := graph.CacheMeta{Orientation: c.by, Relabelled: c.relabel, Packed: packed}
				if err := graph.WriteCSR(path, &graph.Graph{CSR: csr}, meta); err != nil {
					t.Fatal(err)
				}
				fg, rep, err := graph.Open(path, graph.ReadOptions{Map: true, DeferAdjCheck: true})
				if err != nil {
					t.Fatal(err)
				}
				d := newFakeDevice(t, p, 1<<40)
				res, err := executor.Run(context.Background(), d, &fakeCompiler{}, p, nil, executor.RunOptions{Oriented: graph.FileOriented(fg, rep)})
				return d, res, err
			}
			degrees := map[bool]int{false: 0, true: 1}[c.by == graph.ByDegree && !c.relabel]
			d, res, err := run(o.CSR)
			if err != nil || res.Triangles != want {
				t.Fatalf("%s: %v, %v triangles, want %d", name, err, res, want)
			}
			if k := launches(d.launch); k[executor.CheckListsKernel] != 1 || k[executor.DegreesKernel] != degrees || d.allocBytes > res.DeviceBytes {
				t.Fatalf("%s: launches %v, want 1 check and %d degrees; allocated %d bytes, predicted %d", name, k, degrees, d.allocBytes, res.DeviceBytes)
			}
			for _, both := range []bool{false, true} {
				d, _, err := run(reverseArc(o, both))
				_, _, wantErr := graph.ReadCSR(path)
				k := launches(d.launch)
				if wantErr == nil || err == nil || err.Error() != wantErr.Error() || !errors.Is(err, graph.ErrCorrupt) ||
					!onlyChecks(d.launch) || k[executor.CheckListsKernel] != 1 || k[executor.DegreesKernel] != degrees {
					t.Fatalf("%s, an arc reversed (both ways %v): %v after launches %v, want %v after the checks alone", name, both, err, d.launch, wantErr)
				}
			}
		}
	}
}

// TestCheckListsArcOrders: the device check's orders are graph.ArcOrder's
// values, which the executor passes it.
func TestCheckListsArcOrders(t *testing.T) {
	for name, v := range map[string]graph.ArcOrder{"TCGEN_ARCS_ANY": graph.ArcsAny, "TCGEN_ARCS_UP": graph.ArcsUp, "TCGEN_ARCS_BY_DEGREE": graph.ArcsByDegree} {
		if def := fmt.Sprintf("#define %s %d\n", name, v); !strings.Contains(templates.CheckLists, def) {
			t.Errorf("templates/check_lists.cu lacks %q", def)
		}
	}
}

// orientPlan is a one-class plan on graphs oriented by by, relabelled or
// not, that reads no lists on the host: their checks go to the device.
func orientPlan(t *testing.T, by graph.Orientation, relabel bool) ir.Plan {
	t.Helper()
	spec := fmt.Sprintf("prefix: o\norientation: %s\nrelabel: %v\nclasses:\n  - select: {key: outdeg, lo: 0}\n    iterator: vertex\n    intersection: merge\n", by, relabel)
	p, err := ir.Parse([]byte(spec), "o.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// launches counts the launches of each kernel.
func launches(names []string) map[string]int {
	k := map[string]int{}
	for _, n := range names {
		k[n]++
	}
	return k
}
