package ir

import (
	"fmt"
	"reflect"
	"testing"
)

// TestNumbers: what yaml.v3 would read silently (16.5 as 16, width: 0 as
// the default width) is refused with the file, the line, the field and
// what is allowed, in YAML and JSON specs.
func TestNumbers(t *testing.T) {
	const two = "prefix: x\norientation: degree\nclasses:\n  - select: {key: outdeg, lo: 0, hi: %s}\n    iterator: edge\n    intersection: merge\n%s  - select: {key: outdeg, lo: 16}\n    iterator: edge\n    intersection: merge\n"
	cases := []struct{ name, data, want string }{
		{"a.yaml", sprintf(two, "16.5", ""), "a.yaml: line 4: classes[0].select.hi: 16.5 is not an integer; allowed: integers 1 and up"},
		{"a.yaml", sprintf(two, "0", ""), "a.yaml: line 4: classes[0].select.hi: 0 is out of range; allowed: integers 1 and up (leave hi out for the default)"},
		{"a.yaml", sprintf(two, "16", "    width: 0\n"), "a.yaml: line 7: classes[0].width: 0 is out of range; allowed: integers 1..1024 (leave width out for the default)"},
		{"a.yaml", sprintf(two, "16", "    block: 2048\n"), "a.yaml: line 7: classes[0].block: 2048 is out of range; allowed: integers 32..1024 (leave block out for the default)"},
		{"a.yaml", sprintf(two, "16", "    params: {buckets: 64.5}\n"), "a.yaml: line 7: classes[0].params.buckets: 64.5 is not an integer; allowed: integers"},
		{"a.yaml", "prefix: x\nclasses:\n  - select: {key: outdeg, lo: -1}\n", "a.yaml: line 3: classes[0].select.lo: -1 is out of range; allowed: integers 0 and up"},
		{"a.yaml", "prefix: x\nguard:\n  feature: edges\n  variants:\n    - lo: 0\n      classes:\n        - select: {key: outdeg, lo: 0}\n          width: 0\n",
			"a.yaml: line 8: guard.variants[0].classes[0].width: 0 is out of range; allowed: integers 1..1024 (leave width out for the default)"},
		{"a.json", "{\"prefix\": \"x\", \"classes\": [\n {\"select\": {\"key\": \"outdeg\", \"lo\": 0}, \"width\": 0}]}",
			"a.json: line 2: classes[0].width: 0 is out of range; allowed: integers 1..1024 (leave width out for the default)"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.data), c.name)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n%s\n got %v\nwant %s", c.name, c.data, err, c.want)
		}
	}
	// The same spec with integers in range reads as it says.
	p, err := Parse([]byte(sprintf(two, "16", "    width: 1\n    block: 1024\n")), "a.yaml")
	if err != nil || p.Classes[0].Select.Hi != 16 || p.Classes[0].Width != 1 || p.Classes[0].Block != 1024 || p.Validate() != nil {
		t.Errorf("valid spec: %+v, %v, %v", p.Classes, err, p.Validate())
	}
}

// TestRangeTags: every range tag of the spec, space and sweep types parses
// (a bad tag would panic on the first file that sets the field).
func TestRangeTags(t *testing.T) {
	var visit func(reflect.Type)
	seen := map[reflect.Type]bool{}
	visit = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			if tag := f.Tag.Get("range"); tag != "" {
				if _, _, ok := parseRange(tag); !ok {
					t.Errorf("%s.%s: bad range tag %q", ty.Name(), f.Name, tag)
				}
			}
			visit(f.Type)
		}
	}
	visit(reflect.TypeOf(Plan{}))
	if len(seen) < 5 {
		t.Errorf("visited %d types", len(seen))
	}
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
