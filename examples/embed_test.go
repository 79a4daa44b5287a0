package examples

import (
	"slices"
	"testing"
)

func TestLookup(t *testing.T) {
	for _, c := range []struct {
		dir, name, want string
	}{
		{Plans, "two-class", "two-class.yaml"},
		{Plans, "two-class.yaml", "two-class.yaml"},
		{Plans, "examples/two-class.yaml", "two-class.yaml"},
		{Plans, "./examples/hybrid.yaml", "hybrid.yaml"},
		{Spaces, "one_launch", "spaces/one_launch.yaml"},
		{Spaces, "examples/spaces/one_launch.yaml", "spaces/one_launch.yaml"},
		{Spaces, "spaces/small.yaml", "spaces/small.yaml"},
		{Sweeps, "record", "sweeps/record.yaml"},
		{Plans, "spaces", ""},            // a directory
		{Plans, "one_launch", ""},        // a space, not a plan
		{Plans, "../examples/small", ""}, // only the examples' own names
		{Plans, "", ""},
		{Sweeps, "nope", ""},
	} {
		got, ok := Lookup(c.dir, c.name)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Lookup(%q, %q) = %q, %v; want %q", c.dir, c.name, got, ok, c.want)
		}
	}
}

func TestNames(t *testing.T) {
	if got := Names(Spaces); !slices.Equal(got, []string{"default", "large", "model", "one_launch", "small"}) {
		t.Errorf("spaces %q", got)
	}
	if got := Names(Plans); !slices.Contains(got, "two-class") || !slices.Contains(got, "hybrid") || slices.Contains(got, "spaces") {
		t.Errorf("plans %q", got)
	}
}
