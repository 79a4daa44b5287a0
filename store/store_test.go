package store

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tcgen/tcgen/graph"
)

// row makes a complete ok row; tests change what they need.
func row(g, gpu, version, plan string, median float64) Row {
	return Row{
		Graph:     g,
		GraphName: "name-" + g,
		Features: graph.Features{
			Vertices: 100, Edges: 250, DegreeMax: 17, DegreeMean: 5, DegreeStddev: 1.5,
			DegreeHist: []uint64{3, 40, 57}, WedgesUndirected: 900,
		},
		GPU: gpu, GPUName: "NVIDIA H100", CC: "9.0", SMs: 132, Driver: 13000, NVRTC: "13.0",
		L2Bytes: 50 << 20, SharedPerSM: 228 << 10, BandwidthGBs: 3352,
		Version: version, Code: "code-" + plan, Plan: plan, Spec: `{"plan":"` + plan + `"}`,
		Space: "default", Point: "p-" + plan, Source: "tune",
		Status: StatusOK, Triangles: 1234, Reference: 1234,
		Warmup: 2, Runs: 3, Samples: []float64{median, median * 1.1, median * 0.9},
		MedianMs: median, MinMs: median * 0.9, MaxMs: median * 1.1,
		KernelMs: median * 0.8, CompileMs: 120.5, PrepareMs: 3.25,
		ClockSMMHz: 1980, ClockMemMHz: 2619, TempC: 41,
		Time: time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.FixedZone("X", 3600)),
	}
}

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sub dir", "tuning#1.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func put(t *testing.T, s *Store, rows ...Row) {
	t.Helper()
	for _, r := range rows {
		if err := s.Put(r); err != nil {
			t.Fatal(err)
		}
	}
}

// sameRow compares rows, times by instant (the store keeps UTC).
func sameRow(t *testing.T, got, want Row) {
	t.Helper()
	if !got.Time.Equal(want.Time) {
		t.Errorf("time: got %v, want %v", got.Time, want.Time)
	}
	got.Time, want.Time = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("row mismatch:\n got  %+v\n want %+v", got, want)
	}
}

func TestPutGet(t *testing.T) {
	s, _ := openTemp(t)
	want := row("g1", "h100", "v1", "planA", 2.5)
	want.Triangles = 1<<63 + 5 // above int64: must survive the bit cast
	put(t, s, want)
	got, ok, err := s.Get("g1", "h100", "v1", "planA")
	if err != nil || !ok {
		t.Fatalf("Get: %v %v", ok, err)
	}
	sameRow(t, got, want)

	if _, ok, err := s.Get("g1", "h100", "v2", "planA"); ok || err != nil {
		t.Fatalf("Get of a missing key: %v %v", ok, err)
	}

	// Upsert: a later measurement of the same key replaces the earlier.
	later := row("g1", "h100", "v1", "planA", 1.5)
	later.Samples = nil
	later.Status, later.Reason = StatusLaunch, "CUDA_ERROR_ILLEGAL_ADDRESS"
	put(t, s, later)
	got, _, _ = s.Get("g1", "h100", "v1", "planA")
	sameRow(t, got, later)
	all, err := s.Rows(Filter{})
	if err != nil || len(all) != 1 {
		t.Fatalf("Rows after upsert: %d rows, %v", len(all), err)
	}
}

func TestPutRejects(t *testing.T) {
	s, _ := openTemp(t)
	bad := []Row{
		row("", "h100", "v1", "p", 1),
		row("g", "", "v1", "p", 1),
		row("g", "h100", "v1", "", 1),
	}
	r := row("g", "h100", "v1", "p", 1)
	r.Status = "fast"
	bad = append(bad, r)
	r = row("g", "h100", "v1", "p", 1)
	r.Samples[1] = nanValue()
	bad = append(bad, r)
	for i, r := range bad {
		if err := s.Put(r); err == nil {
			t.Errorf("bad row %d stored", i)
		}
	}
}

func nanValue() float64 {
	zero := 0.0
	return zero / zero
}

func TestRowsFilter(t *testing.T) {
	s, _ := openTemp(t)
	a := row("g1", "h100", "v1", "b", 1)
	b := row("g1", "h100", "v1", "a", 2)
	c := row("g2", "h200", "v2", "a", 3)
	c.Space = "sweep"
	d := row("g2", "h100", "v1", "c", 4)
	d.Status = StatusWrong
	put(t, s, a, b, c, d)

	plans := func(f Filter) string {
		t.Helper()
		rows, err := s.Rows(f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Graph+"/"+r.Plan)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		f    Filter
		want string
	}{
		{Filter{}, "g1/a g1/b g2/a g2/c"},
		{Filter{Graph: "g2"}, "g2/a g2/c"},
		{Filter{GPU: "h100"}, "g1/a g1/b g2/c"},
		{Filter{Version: "v2"}, "g2/a"},
		{Filter{Space: "sweep"}, "g2/a"},
		{Filter{Status: StatusWrong}, "g2/c"},
		{Filter{OnlyOK: true}, "g1/a g1/b g2/a"},
		{Filter{OnlyOK: true, Status: StatusWrong}, ""},
		{Filter{Graph: "nope"}, ""},
	} {
		if got := plans(tc.f); got != tc.want {
			t.Errorf("Rows(%+v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

// current accepts rows whose code hash is what row gives its plan, as if
// this build generated them; stale lists plans whose code has changed since.
func current(stale ...string) func(Row) bool {
	return func(r Row) bool { return r.Code == "code-"+r.Plan && !slices.Contains(stale, r.Plan) }
}

func TestBest(t *testing.T) {
	s, _ := openTemp(t)
	if _, _, ok, err := s.Best("g", "h100", current()); ok || err != nil {
		t.Fatalf("Best on an empty store: %v %v", ok, err)
	}
	wrong := row("g", "h100", "v1", "wrong", 0.1) // fastest, but wrong
	wrong.Status = StatusWrong
	tooLarge := row("g", "h100", "v2", "big", 0.2)
	tooLarge.Status = StatusTooLarge
	put(t, s,
		wrong, tooLarge,
		row("g", "h100", "v1", "old-fast", 1),
		row("g", "h100", "v1", "old-slow", 5),
		row("g", "h200", "v2", "other-gpu", 0.5),
	)
	best := func(cur func(Row) bool, wantSkipped int) string {
		t.Helper()
		r, skipped, ok, err := s.Best("g", "h100", cur)
		if err != nil || !ok || skipped != wantSkipped {
			t.Fatalf("Best: %v %v, %d skipped, want %d", ok, err, skipped, wantSkipped)
		}
		return r.Plan
	}
	// Versions do not matter, the code does: the fastest current row.
	if got := best(current(), 0); got != "old-fast" {
		t.Errorf("Best = %s, want old-fast", got)
	}
	put(t, s, row("g", "h100", "v2", "new-slow", 3), row("g", "h100", "v2", "new-fast", 2))
	if got := best(current(), 0); got != "old-fast" {
		t.Errorf("Best after slower v2 rows = %s, want old-fast", got)
	}
	// old-fast's code changed since it was measured: it is skipped.
	if got := best(current("old-fast"), 1); got != "new-fast" {
		t.Errorf("Best with old-fast stale = %s, want new-fast", got)
	}
	// A row without a code hash (schema 1) is never current ...
	nocode := row("g", "h100", "v0", "nocode", 0.5)
	nocode.Code = ""
	put(t, s, nocode)
	if got := best(func(Row) bool { return true }, 1); got != "old-fast" {
		t.Errorf("Best with a row without code = %s, want old-fast", got)
	}
	// ... unless nothing is checked (nil).
	if got := best(nil, 0); got != "nocode" {
		t.Errorf("Best(nil) = %s, want nocode", got)
	}
	// Nothing current: no best, every ok row skipped.
	if _, skipped, ok, err := s.Best("g", "h100", func(Row) bool { return false }); ok || err != nil || skipped != 5 {
		t.Errorf("Best with nothing current: %v %v, %d skipped, want 5", ok, err, skipped)
	}
	// A graph with only failed rows has no best.
	put(t, s, wrong, func() Row { r := row("g3", "h100", "v1", "x", 1); r.Status = StatusCompile; return r }())
	wrong.Graph = "g3"
	put(t, s, wrong)
	if r, _, ok, err := s.Best("g3", "h100", current()); ok || err != nil {
		t.Errorf("Best of failed rows: %s %v %v", r.Plan, ok, err)
	}
}

// Best: only the current rows with the most passes compete, so successive
// halving's 1- and 3-pass screenings never win over a full measurement,
// however fast they looked.
func TestBestMostPasses(t *testing.T) {
	s, _ := openTemp(t)
	runs := func(r Row, n int) Row {
		r.Runs, r.Samples = n, slices.Repeat([]float64{r.MedianMs}, n)
		return r
	}
	put(t, s,
		runs(row("g", "h100", "v1", "screen", 0.01), 1),
		runs(row("g", "h100", "v1", "rung", 0.02), 3),
		runs(row("g", "h100", "v1", "full-slow", 0.1258), 10),
		runs(row("g", "h100", "v1", "default", 0.0516), 10),
	)
	if r, _, ok, err := s.Best("g", "h100", current()); err != nil || !ok || r.Plan != "default" || r.Runs != 10 {
		t.Errorf("Best = %s (%d passes), want default (10)", r.Plan, r.Runs)
	}
	// A faster full measurement wins; the screenings still do not.
	put(t, s, runs(row("g", "h100", "v1", "tuned", 0.04), 10))
	if r, _, _, _ := s.Best("g", "h100", current()); r.Plan != "tuned" {
		t.Errorf("Best = %s, want tuned", r.Plan)
	}
	// Full measurements of older code do not keep a current rung out.
	if r, skipped, _, _ := s.Best("g", "h100", current("tuned", "default", "full-slow")); r.Plan != "rung" || skipped != 3 {
		t.Errorf("Best with the full rows stale = %s (%d skipped), want rung (3)", r.Plan, skipped)
	}
}

// A schema 1 file opens, is upgraded to the current schema in place, and
// its rows read back with an empty code hash: kept, but never current.
func TestUpgrade1(t *testing.T) {
	s := upgraded(t, "schema1.sql", nil)
	defer s.Close()
	old, ok, err := s.Get("g", "h100", "dev", "polak_1")
	if err != nil || !ok || old.Code != "" || old.MedianMs != 1.5 || old.Runs != 10 {
		t.Fatalf("old row after the upgrade: %+v %v %v", old, ok, err)
	}
	if _, skipped, ok, err := s.Best("g", "h100", func(Row) bool { return true }); ok || skipped != 1 || err != nil {
		t.Errorf("Best of a schema 1 row: %v, %d skipped, %v; want none, 1 skipped", ok, skipped, err)
	}
	// New rows carry their code; the best view has the column.
	put(t, s, row("g", "h100", "v2", "new", 2))
	if r, _, ok, _ := s.Best("g", "h100", current()); !ok || r.Plan != "new" || r.Code != "code-new" {
		t.Errorf("Best after the upgrade = %+v, want new with its code", r)
	}
	var code string
	if err := s.db.QueryRow("SELECT code FROM best WHERE graph = 'g'").Scan(&code); err != nil || code != "" {
		t.Errorf("best view: code %q, %v (the old row is faster)", code, err)
	}
	// Reopening a current file changes nothing.
	s.Close()
	if s, err = Open(s.path); err != nil {
		t.Fatal(err)
	}
	if rows, err := s.Rows(Filter{Graph: "g"}); err != nil || len(rows) != 2 {
		t.Errorf("%d rows after reopening, want 2: %v", len(rows), err)
	}
}

func TestBestView(t *testing.T) {
	s, path := openTemp(t)
	wrong := row("g1", "h100", "v1", "wrong", 0.1)
	wrong.Status = StatusWrong
	put(t, s, wrong,
		row("g1", "h100", "v1", "slow", 3),
		row("g1", "h100", "v2", "fast", 1),
		row("g1", "h200", "v1", "h200", 2),
		row("g2", "h100", "v1", "tie-b", 4),
		row("g2", "h100", "v1", "tie-a", 4),
	)
	// A second, plain connection: the view must work for any SQLite client.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT graph, gpu, plan, median_ms, vertices FROM best ORDER BY graph, gpu")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var g, gpu, plan string
		var ms float64
		var v int64
		if err := rows.Scan(&g, &gpu, &plan, &ms, &v); err != nil {
			t.Fatal(err)
		}
		if v != 100 {
			t.Errorf("vertices = %d", v)
		}
		got = append(got, g+"/"+gpu+"/"+plan)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := "g1/h100/fast g1/h200/h200 g2/h100/tie-a"
	if strings.Join(got, " ") != want {
		t.Errorf("best view = %q, want %q", strings.Join(got, " "), want)
	}
	// SELECT * works and has every column scanRow reads plus the three
	// derived ones.
	cols, err := db.Query("SELECT * FROM best")
	if err != nil {
		t.Fatal(err)
	}
	names, _ := cols.Columns()
	cols.Close()
	if len(names) != 40 {
		t.Errorf("best has %d columns: %v", len(names), names)
	}
}

func TestGraphs(t *testing.T) {
	s, _ := openTemp(t)
	old := row("g1", "h100", "v1", "a", 1)
	newer := row("g1", "h100", "v1", "b", 1)
	newer.GraphName = "renamed"
	newer.Features.Vertices = 7
	newer.Time = old.Time.Add(time.Second)
	put(t, s, old, newer, row("g2", "h100", "v1", "a", 1), row("g3", "h200", "v1", "a", 1))
	gs, err := s.Graphs("h100")
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 2 || gs[0].Graph != "g2" || gs[1].Graph != "g1" {
		t.Fatalf("Graphs(h100) = %+v", gs)
	}
	if gs[1].GraphName != "renamed" || gs[1].Features.Vertices != 7 {
		t.Errorf("g1 not reported with its latest row: %+v", gs[1])
	}
	if !reflect.DeepEqual(gs[0].Features, old.Features) {
		t.Errorf("features = %+v", gs[0].Features)
	}
	all, err := s.Graphs("")
	if err != nil || len(all) != 3 {
		t.Errorf("Graphs(\"\") = %d graphs, %v", len(all), err)
	}
}

func TestReopen(t *testing.T) {
	s, path := openTemp(t)
	want := row("g", "h100", "v1", "p", 1)
	put(t, s, want)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	got, ok, err := s2.Get("g", "h100", "v1", "p")
	if err != nil || !ok {
		t.Fatalf("after reopen: %v %v", ok, err)
	}
	sameRow(t, got, want)
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()

	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte("this is not a database, just some text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short.db")
	if err := os.WriteFile(short, []byte("SQL"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{garbage, short, dir} {
		s, err := Open(p)
		if err == nil {
			s.Close()
			t.Errorf("Open(%s) succeeded", p)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, p) || strings.Contains(msg, "\n") {
			t.Errorf("Open(%s) error does not name the file on one line: %q", p, msg)
		}
	}

	// A file from a newer tcgen is refused, naming the file.
	newer := filepath.Join(dir, "newer.db")
	db, err := sql.Open("sqlite", newer)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s, err := Open(newer)
	if err == nil {
		s.Close()
		t.Fatal("Open of a newer schema succeeded")
	}
	if !strings.Contains(err.Error(), newer) || !strings.Contains(err.Error(), "newer") {
		t.Errorf("newer-schema error: %v", err)
	}

	// An empty file is a new database.
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = Open(empty)
	if err != nil {
		t.Fatalf("Open of an empty file: %v", err)
	}
	s.Close()
}

func TestPragmas(t *testing.T) {
	s, _ := openTemp(t)
	var mode string
	var v int
	if err := s.db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if err := s.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" || v != SchemaVersion {
		t.Errorf("journal_mode %s, user_version %d", mode, v)
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/xdg")
	if p, err := DefaultPath(); err != nil || p != "/xdg/tcgen/tuning.db" {
		t.Errorf("with XDG_DATA_HOME: %q %v", p, err)
	}
	t.Setenv("XDG_DATA_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if p, err := DefaultPath(); err != nil || p != "/home/u/.local/share/tcgen/tuning.db" {
		t.Errorf("with a relative XDG_DATA_HOME: %q %v", p, err)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	a := row("g1", "h100", "v1", "a", 1)
	b := row("g2", "h100", "v1", "b", 2)
	b.Status, b.Reason, b.Samples = StatusCompile, "nvrtc: error <&>", nil
	var buf bytes.Buffer
	if err := WriteJSON(&buf, []Row{a, b}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Fatalf("%d lines:\n%s", n, buf.String())
	}
	// Blank lines are allowed.
	in := strings.Replace(buf.String(), "\n", "\n\n", 1)
	got, err := ReadJSON(strings.NewReader(in), "rec.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("read %d rows", len(got))
	}
	sameRow(t, got[0], a)
	sameRow(t, got[1], b)

	// No trailing newline is fine too.
	got, err = ReadJSON(strings.NewReader(strings.TrimSuffix(buf.String(), "\n")), "rec.jsonl")
	if err != nil || len(got) != 2 {
		t.Fatalf("without a final newline: %d rows, %v", len(got), err)
	}
}

func TestReadJSONErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, []Row{row("g1", "h100", "v1", "a", 1)}); err != nil {
		t.Fatal(err)
	}
	good := strings.TrimSpace(buf.String())
	for _, tc := range []struct {
		in, want string
	}{
		{good + "\n{not json\n", "rec.jsonl:2:"},
		{good + "\n\n" + `{"graph":"g","gpu":"x","plan":"p","status":"ok","bogus":1}` + "\n", "rec.jsonl:3:"},
		{`{"graph":"g","gpu":"x","plan":"p","status":"maybe"}`, "rec.jsonl:1:"},
		{`{"graph":"g","gpu":"x","plan":"p","status":"ok"} {}`, "rec.jsonl:1:"},
		{`[1,2]`, "rec.jsonl:1:"},
	} {
		_, err := ReadJSON(strings.NewReader(tc.in), "rec.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ReadJSON(%q) error %v, want prefix %q", tc.in, err, tc.want)
		}
	}
}

func TestWriteT4(t *testing.T) {
	statuses := map[Status]string{
		StatusOK:       "correct",
		StatusCompile:  "compile",
		StatusLaunch:   "runtime",
		StatusInvalid:  "constraints",
		StatusWrong:    "correctness",
		StatusTooLarge: "runtime",
	}
	var rows []Row
	for st := range statuses {
		r := row("g", "h100", "v1", "plan-"+string(st), 2)
		r.Status = st
		rows = append(rows, r)
	}
	var buf bytes.Buffer
	if err := WriteT4(&buf, rows); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("T4 output is not JSON: %v", err)
	}
	var version string
	if err := json.Unmarshal(doc["schema_version"], &version); err != nil || version != "1.0.0" {
		t.Errorf("schema_version %q %v", version, err)
	}
	var results []map[string]json.RawMessage
	if err := json.Unmarshal(doc["results"], &results); err != nil {
		t.Fatal(err)
	}
	if len(results) != len(rows) {
		t.Fatalf("%d results for %d rows", len(results), len(rows))
	}
	for i, res := range results {
		for _, k := range []string{"configuration", "times", "invalidity", "correctness", "timestamp", "measurements", "objectives"} {
			if _, ok := res[k]; !ok {
				t.Errorf("result %d has no %q", i, k)
			}
		}
		var inv string
		var corr int
		var conf map[string]string
		var times struct {
			CompilationTime *float64  `json:"compilation_time"`
			Runtimes        []float64 `json:"runtimes"`
		}
		var meas []struct {
			Name  string  `json:"name"`
			Value float64 `json:"value"`
			Unit  string  `json:"unit"`
		}
		var obj []string
		for k, v := range map[string]any{"invalidity": &inv, "correctness": &corr, "configuration": &conf,
			"times": &times, "measurements": &meas, "objectives": &obj} {
			if err := json.Unmarshal(res[k], v); err != nil {
				t.Fatalf("result %d %s: %v", i, k, err)
			}
		}
		r := rows[i]
		if want := statuses[r.Status]; inv != want {
			t.Errorf("%s: invalidity %q, want %q", r.Status, inv, want)
		}
		if conf["plan"] != r.Plan || conf["gpu"] != "h100" || conf["graph_name"] != r.GraphName {
			t.Errorf("configuration %v", conf)
		}
		if len(obj) != 1 || obj[0] != "time" {
			t.Errorf("objectives %v", obj)
		}
		if times.CompilationTime == nil || *times.CompilationTime != r.CompileMs || times.Runtimes == nil {
			t.Errorf("times %s", res["times"])
		}
		if r.Status == StatusOK {
			if corr != 1 || len(times.Runtimes) != 3 || len(meas) == 0 ||
				meas[0].Name != "time" || meas[0].Value != 2 || meas[0].Unit != "ms" {
				t.Errorf("ok result: correctness %d, times %s, measurements %s", corr, res["times"], res["measurements"])
			}
		} else if corr != 0 || len(meas) != 0 {
			t.Errorf("%s result: correctness %d, measurements %s", r.Status, corr, res["measurements"])
		}
	}

	bad := row("g", "h100", "v1", "p", 1)
	bad.Status = "odd"
	if err := WriteT4(&buf, []Row{bad}); err == nil {
		t.Error("WriteT4 accepted an unknown status")
	}
}

func FuzzReadJSON(f *testing.F) {
	var buf bytes.Buffer
	r := row("g1", "h100", "v1", "a", 1)
	if err := WriteJSON(&buf, []Row{r, row("g2", "h100", "v1", "b", 2)}); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.String())
	f.Add("")
	f.Add("\n\n")
	f.Add(`{"graph":"g","gpu":"x","plan":"p","status":"ok","samples_ms":[1e400]}`)
	f.Add(`{"graph":"g","gpu":"x","plan":"p","status":"ok","time":"not a time"}`)
	f.Add(`{"triangles":-1}` + "\n" + `null`)
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := ReadJSON(strings.NewReader(in), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Errorf("error does not name the input: %v", err)
			}
			return
		}
		// Whatever reads must write and read back the same.
		var out bytes.Buffer
		if err := WriteJSON(&out, rows); err != nil {
			t.Fatalf("WriteJSON of read rows: %v", err)
		}
		again, err := ReadJSON(&out, "again")
		if err != nil {
			t.Fatalf("reread: %v", err)
		}
		if len(again) != len(rows) {
			t.Fatalf("reread %d rows, read %d", len(again), len(rows))
		}
		if err := WriteT4(&out, rows); err != nil {
			t.Fatalf("WriteT4 of read rows: %v", err)
		}
	})
}

// Import adds rows oldest first, so the newest measurement of a key stands
// for it whatever order the file lists them in, and skips the rows the
// store holds already; an invalid row adds nothing.
func TestImport(t *testing.T) {
	s, _ := openTemp(t)
	older, newer := row("g", "h100", "v1", "a", 2), row("g", "h100", "v1", "a", 1)
	newer.Time = older.Time.Add(time.Hour)
	put(t, s, older)
	added, err := s.Import([]Row{newer, older, row("g", "h100", "v1", "b", 3)})
	if err != nil || added != 2 {
		t.Fatalf("import: %d added, %v; want 2 (the older row is there)", added, err)
	}
	if r, ok, err := s.Get("g", "h100", "v1", "a"); err != nil || !ok || r.MedianMs != 1 {
		t.Errorf("a's current row: %+v %v %v, want the newer (1 ms)", r, ok, err)
	}
	if added, err := s.Import([]Row{newer}); err != nil || added != 0 {
		t.Errorf("importing again: %d added, %v", added, err)
	}
	bad := row("g", "h100", "v1", "c", 1)
	bad.Graph = ""
	if added, err := s.Import([]Row{row("g", "h100", "v1", "d", 1), bad}); err == nil || added != 0 {
		t.Errorf("an invalid row: %d added, %v; want an error and nothing added", added, err)
	}
	if _, ok, _ := s.Get("g", "h100", "v1", "d"); ok {
		t.Error("the import with an invalid row added d")
	}
}
