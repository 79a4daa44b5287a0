package executor_test

import (
	"context"
	"testing"

	"github.com/tcgen/tcgen/graph"
	"github.com/tcgen/tcgen/runtime/executor"
)

// TestPartitionFakeQuarter: RMAT-12 and RMAT-14 under a quarter of their
// in-memory plan's memory count exactly, and a pass copies under 7 times
// their rows (blocks sized by their lists copy about 6 times; sized at 16
// bytes an entry they copied 11 times).
func TestPartitionFakeQuarter(t *testing.T) {
	p := examplePlan(t, "small")
	for _, scale := range []int{12, 14} {
		g, _, err := graph.Generate(graph.DefaultRMAT(scale))
		if err != nil {
			t.Fatal(err)
		}
		dev := newFakeDevice(t, p, 1<<40)
		in, err := executor.Run(context.Background(), dev, &fakeCompiler{}, p, g, executor.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res := runPartitioned(t, p, g, in.DeviceBytes/4, 0)
		st := res.Partition
		t.Logf("rmat%d: in memory %d bytes, rows %d bytes; a quarter: %+v", scale, in.DeviceBytes, 4*g.Edges(), *st)
		if rows := 4 * g.Edges(); st.BytesCopied > 7*rows {
			t.Errorf("rmat%d: %d bytes copied a pass, over 7 times the rows' %d", scale, st.BytesCopied, rows)
		}
		if res.Triangles != in.Triangles {
			t.Errorf("rmat%d: %d triangles in partitions, %d in memory", scale, res.Triangles, in.Triangles)
		}
	}
}
