package graph

import (
	"strings"
	"testing"
)

// TestLongTokenErrors: an offending token of 100,000 bytes is quoted in
// part, so the error stays one short line that still names file and line.
func TestLongTokenErrors(t *testing.T) {
	digits := strings.Repeat("9", 100000)
	cases := []struct {
		name, file, in string
		line           int64
		msg            string
	}{
		{"huge id", "in.txt", "1 2\n1 " + digits + "\n", 2, "vertex id " + digits[:40] + "... (100000 bytes) exceeds 2^63-1"},
		{"huge first id", "in.txt", digits + " 1\n", 1, "vertex id " + digits[:40] + "... (100000 bytes) exceeds"},
		{"huge negative id", "in.txt", "1 2\n-" + digits + " 1\n", 2, `negative vertex id "-` + digits[:39] + `"... (100001 bytes)`},
		{"long bad line", "in.txt", "1 2\n" + strings.Repeat("x", 100000) + " 1\n", 2, `got "` + strings.Repeat("x", 60) + `"...`},
		{"huge mtx size", "in.mtx", "%%MatrixMarket matrix coordinate pattern general\n" + digits + " 1 1\n", 2, `got "` + digits[:40] + `"... (100000 bytes)`},
		{"huge mtx field", "in.mtx", "%%MatrixMarket matrix coordinate " + strings.Repeat("q", 100000) + " general\n", 1, `field "` + strings.Repeat("q", 40) + `"...`},
		{"huge mtx index", "in.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n" + digits + " 1\n", 3, "row index " + digits[:40] + "... (100000 bytes) exceeds"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Read(strings.NewReader(c.in), c.file, ReadOptions{})
			wantInputError(t, err, c.file, c.line, c.msg)
			if len(err.Error()) > 200 {
				t.Fatalf("error of %d bytes: %.300s", len(err.Error()), err)
			}
		})
	}
}
