package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reportFiles are the files a full test report has.
var reportFiles = []string{fileCSV, fileJSONL, fileMD, fileProfileJSONL, fileTimes, fileHeatmap, fileSize, fileRate, fileBW, fileSpeedup, fileProfile}

// TestRebuildRoundTrip: a report rebuilt from its own results.jsonl,
// profile.jsonl and report.md is the same report, byte for byte, though
// the rows lost their samples (the intervals came back from the file).
func TestRebuildRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, ciRows(), testOptions()); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "again")
	st, err := Rebuild(dir, RebuildOptions{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if want := (RebuildStats{Rows: 20, Timed: 19, WithCI: 10, Profile: 3}); st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
	for _, f := range reportFiles {
		if a, b := readFile(t, dir, f), readFile(t, out, f); !bytes.Equal(a, b) {
			t.Errorf("%s differs after a rebuild", f)
		}
	}
}

// TestRebuildOldReport rebuilds a report as an older tcgen left it: no
// intervals in results.jsonl, no profile.jsonl (the profile is read from
// report.md's table), and store rows that hold the samples.
func TestRebuildOldReport(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, testRows(), testOptions()); err != nil {
		t.Fatal(err)
	}
	wantProfile := readFile(t, dir, fileProfileJSONL)
	if err := os.Remove(filepath.Join(dir, fileProfileJSONL)); err != nil {
		t.Fatal(err)
	}
	samples := ciRows()
	samples[len(samples)-1].MedianMs *= 1.5 // another measurement of the plan: not joined
	st, err := Rebuild(dir, RebuildOptions{Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	if want := (RebuildStats{Rows: 20, Timed: 19, WithCI: 9, Joined: 9, Profile: 3}); st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
	if got := readFile(t, dir, fileProfileJSONL); !bytes.Equal(got, wantProfile) {
		t.Errorf("profile from report.md:\n%s\nwant\n%s", got, wantProfile)
	}
	rows, _, err := ReadResults(bytes.NewReader(readFile(t, dir, fileJSONL)), fileJSONL)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 20 {
		t.Fatalf("%d rows", len(rows))
	}
	md := string(readFile(t, dir, fileMD))
	for _, s := range []string{"# Sweep: test space on H100", testOptions().Command, "(rate.svg)", "## Profile (ncu)"} {
		if !strings.Contains(md, s) {
			t.Errorf("rebuilt report.md lacks %q", s)
		}
	}
}

func TestRebuildErrors(t *testing.T) {
	good := string(readFile(t, writeTest(t), fileJSONL))
	first := good[:strings.IndexByte(good, '\n')+1]
	for _, tc := range []struct {
		name, results, want string
	}{
		{"missing", "", "no such file"},
		{"empty", "\n", "results.jsonl: no results (an empty file)"},
		{"not json", first + "{\"graph_name\": 3}\n", "results.jsonl:2: not a results record: json: cannot unmarshal number"},
		{"unknown field", `{"plan":"p","graph":"g","status":"ok","bogus":1}` + "\n", `results.jsonl:1: not a results record: json: unknown field "bogus"`},
		{"status", `{"plan":"p","graph":"g","status":"maybe"}` + "\n", `results.jsonl:1: plan p: unknown status "maybe"`},
		{"no plan", `{"graph":"g","status":"ok"}` + "\n", "results.jsonl:1: a record without a plan"},
		{"no graph", `{"plan":"p","status":"ok"}` + "\n", "results.jsonl:1: plan p: a record without a graph"},
		{"negative", `{"plan":"p","graph":"g","status":"ok","median_ms":-1}` + "\n", "results.jsonl:1: plan p: time -1 is not a duration"},
		{"two values", `{"plan":"p","graph":"g","status":"ok"} {}` + "\n", "results.jsonl:1: not a results record: more than one value on the line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.name != "missing" {
				if err := os.WriteFile(filepath.Join(dir, fileJSONL), []byte(tc.results), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Rebuild(dir, RebuildOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line with %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, fileJSONL)) {
				t.Errorf("error %v does not name the file", err)
			}
			if _, err := os.Stat(filepath.Join(dir, fileMD)); !os.IsNotExist(err) {
				t.Errorf("report.md written after an error (stat: %v)", err)
			}
		})
	}
}

func TestProfileTable(t *testing.T) {
	md := []byte("# x\n\n## Profile (ncu)\n\n| graph | plan | `a` | `b` |\n| --- | --- | --: | --: |\n" +
		"| g1 | cuts 16: x \\| y | 1.500 | — |\n| g2 | plain_plan | 2.000e+09 | 3 |\n\nafter\n")
	labels := map[string]string{"two_1": "cuts 16: x | y"}
	got, err := parseProfileTable(md, "report.md", labels)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Plan != "two_1" || got[0].Metrics["a"] != 1.5 || len(got[0].Metrics) != 1 ||
		got[1].Plan != "plain_plan" || got[1].Metrics["a"] != 2e9 || got[1].Metrics["b"] != 3 {
		t.Errorf("profile %+v", got)
	}
	for _, tc := range []struct{ md, want string }{
		{"## Profile (ncu)\n\n| graph | x |\n", "report.md:3: the profile table's header is not graph | plan | metrics"},
		{"## Profile (ncu)\n\n| graph | plan | `a` |\n| --- | --- | --: |\n| g | p |\n", "report.md:5: 2 cells, the profile table has 3 columns"},
		{"## Profile (ncu)\n\n| graph | plan | `a` |\n| --- | --- | --: |\n| g | p | fast |\n", `report.md:5: metric a: "fast" is not a number`},
		{"## Profile (ncu)\n\n| graph | plan | `a` |\n| --- | --- | --: |\n| g | same | 1 |\n", `report.md:5: label "same" names 2 plans`},
	} {
		_, err := parseProfileTable([]byte(tc.md), "report.md", map[string]string{"p1": "same", "p2": "same"})
		if err == nil || err.Error() != tc.want {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestMdHeading(t *testing.T) {
	title, cmd := mdHeading([]byte("# tcgen sweep a\\|b\n\n```sh\ntcgen sweep x\n# note\n```\n\n# later\n"))
	if title != "tcgen sweep a|b" || cmd != "tcgen sweep x\n# note" {
		t.Errorf("title %q command %q", title, cmd)
	}
}

// FuzzReadResults: any input is refused with an error or read into rows
// that write back and read again to the same rows.
func FuzzReadResults(f *testing.F) {
	var b bytes.Buffer
	m := build(ciRows(), testOptions())
	data, _ := encodeJSONL(m.records())
	b.Write(data)
	f.Add(b.Bytes())
	f.Add([]byte(`{"plan":"p","graph":"g","status":"ok","median_ms":1,"ci_lo_ms":0.9,"ci_hi_ms":1.2}`))
	f.Add([]byte("{\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, o, err := ReadResults(bytes.NewReader(in), "f")
		if err != nil {
			return
		}
		again, err := encodeJSONL(build(rows, o).records())
		if err != nil {
			t.Fatal(err)
		}
		rows2, _, err := ReadResults(bytes.NewReader(again), "g")
		if err != nil {
			t.Fatalf("rewritten results do not read back: %v\n%s", err, again)
		}
		if len(rows2) > len(rows) {
			t.Fatalf("%d rows became %d", len(rows), len(rows2))
		}
	})
}

func FuzzProfileTable(f *testing.F) {
	f.Add([]byte("## Profile (ncu)\n\n| graph | plan | `a` |\n| --- | --- | --: |\n| g | p \\| q | 1.5 |\n"))
	f.Add([]byte("## Profile (ncu)\n|"))
	f.Fuzz(func(t *testing.T, md []byte) {
		rows, err := parseProfileTable(md, "report.md", map[string]string{"x": "p | q"})
		if err != nil {
			return
		}
		for _, r := range rows {
			if r.Metrics == nil {
				t.Fatalf("row %+v without metrics", r)
			}
		}
	})
}
