package main

import (
	"strings"
	"testing"

	"github.com/tcgen/tcgen/sweep"
)

// --shard K/N keeps the graphs at places K, K+N, ...: N shards take every
// graph once; a malformed or out-of-range K/N is a usage error.
func TestSweepShard(t *testing.T) {
	var srcs []sweep.Source
	for _, l := range strings.Fields("a b c d e f g") {
		srcs = append(srcs, sweep.Source{Label: l})
	}
	seen := map[string]int{}
	for _, k := range []string{"0/3", "1/3", "2/3"} {
		got, err := (&SweepCmd{Shard: k}).shard(srcs)
		if err != nil {
			t.Fatal(err)
		}
		var ls []string
		for _, s := range got {
			ls = append(ls, s.Label)
			seen[s.Label]++
		}
		if k == "1/3" && strings.Join(ls, "") != "be" {
			t.Errorf("shard 1/3: %v", ls)
		}
	}
	if len(seen) != len(srcs) {
		t.Errorf("the shards took %v", seen)
	}
	for l, n := range seen {
		if n != 1 {
			t.Errorf("%s in %d shards", l, n)
		}
	}
	if got, _ := (&SweepCmd{}).shard(srcs); len(got) != len(srcs) {
		t.Errorf("no --shard kept %d of %d", len(got), len(srcs))
	}
	for _, bad := range []string{"3/3", "-1/2", "1/0", "01/2", "1", "a/b", "1/2/3"} {
		if _, err := (&SweepCmd{Shard: bad}).shard(srcs); err == nil || !strings.Contains(err.Error(), "want K/N") {
			t.Errorf("--shard %s: %v", bad, err)
		}
	}
}
