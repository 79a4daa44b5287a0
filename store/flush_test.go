package store

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// viewBest reads the best view's plan for graph g on h100.
func viewBest(t *testing.T, s *Store) string {
	t.Helper()
	var plan string
	if err := s.db.QueryRow("SELECT plan FROM best WHERE graph = 'g' AND gpu = 'h100'").Scan(&plan); err != nil {
		t.Fatalf("best view: %v", err)
	}
	return plan
}

// TestBestFlushed: a plan's flushed and unflushed measurements are two
// keys, both current; Best and the best view take unflushed rows over
// flushed ones whatever their times and passes, and flushed rows only
// where no unflushed row is accepted. Within a kind, the most passes win
// before the time (a row enters best only with as many passes as its
// rivals).
func TestBestFlushed(t *testing.T) {
	s, _ := openTemp(t)
	flushed := func(r Row, runs int) Row {
		r.Flushed, r.Runs, r.Samples = true, runs, slices.Repeat([]float64{r.MedianMs}, runs)
		return r
	}
	put(t, s,
		row("g", "h100", "v1", "a", 2),               // 3 passes, unflushed
		row("g", "h100", "v1", "b", 3),               // 3 passes, unflushed
		flushed(row("g", "h100", "v1", "a", 1), 10),  // a again, flushed: another key
		flushed(row("g", "h100", "v1", "c", 0.5), 1), // a flushed screening
	)
	if rows, err := s.Rows(Filter{Graph: "g"}); err != nil || len(rows) != 4 {
		t.Fatalf("%d current rows, want 4 (a flushed and unflushed both current): %v", len(rows), err)
	}
	if r, ok, err := s.GetCode("g", "h100", "v1", "a", "code-a", true); err != nil || !ok || !r.Flushed || r.MedianMs != 1 {
		t.Errorf("GetCode flushed: %+v %v %v, want the flushed row (1 ms)", r, ok, err)
	}
	if r, ok, err := s.GetCode("g", "h100", "v1", "a", "code-a", false); err != nil || !ok || r.Flushed || r.MedianMs != 2 {
		t.Errorf("GetCode unflushed: %+v %v %v, want the unflushed row (2 ms)", r, ok, err)
	}
	if r, skipped, ok, err := s.Best("g", "h100", current()); err != nil || !ok || r.Plan != "a" || r.Flushed || skipped != 0 {
		t.Errorf("Best = %s flushed=%v (%d skipped), want a unflushed (0)", r.Plan, r.Flushed, skipped)
	}
	if p := viewBest(t, s); p != "a" {
		t.Errorf("best view = %s, want a", p)
	}
	// No unflushed row current: the flushed rows answer, the most passes first.
	r, skipped, ok, err := s.Best("g", "h100", func(r Row) bool { return r.Flushed })
	if err != nil || !ok || r.Plan != "a" || !r.Flushed || r.Runs != 10 || skipped != 2 {
		t.Errorf("Best without unflushed rows = %s flushed=%v %d passes (%d skipped), want a flushed 10 (2)", r.Plan, r.Flushed, r.Runs, skipped)
	}
}

// TestUpgrade3: a schema 3 file becomes schema 4: its rows read back as
// unflushed, and its best view, which ranked a 1-pass screening first,
// now agrees with Best (the most passes).
func TestUpgrade3(t *testing.T) {
	s := upgraded(t, "schema3.sql", func(db *sql.DB) {
		var before string
		if err := db.QueryRow("SELECT plan FROM best").Scan(&before); err != nil || before != "screen" {
			t.Fatalf("schema 3 best view: %q %v, want screen (the bug version 4 fixes)", before, err)
		}
	})
	defer s.Close()
	rows, err := s.Rows(Filter{Graph: "g"})
	if err != nil || len(rows) != 2 || rows[0].Flushed || rows[1].Flushed {
		t.Fatalf("old rows after the upgrade: %+v %v", rows, err)
	}
	if p := viewBest(t, s); p != "full" {
		t.Errorf("best view after the upgrade = %s, want full (10 passes over 1)", p)
	}
	if r, _, ok, err := s.Best("g", "h100", nil); err != nil || !ok || r.Plan != "full" {
		t.Errorf("Best = %s %v %v, want full", r.Plan, ok, err)
	}
	// A flushed row of the same plan is a key of its own, beside the old one.
	fl := row("g", "h100", "v3", "full", 0.04)
	fl.Flushed = true
	put(t, s, fl)
	if all, err := s.Rows(Filter{Graph: "g"}); err != nil || len(all) != 3 {
		t.Errorf("%d current rows after a flushed one, want 3: %v", len(all), err)
	}
}

// TestUpgrade4: a schema 4 file becomes schema 5: its row reads back with
// the GPU facts unknown (0), a new row keeps them, and the best view, made
// again, has the new columns.
func TestUpgrade4(t *testing.T) {
	s := upgraded(t, "schema4.sql", nil)
	defer s.Close()
	rows, err := s.Rows(Filter{Graph: "g"})
	if err != nil || len(rows) != 1 || rows[0].L2Bytes != 0 || rows[0].BandwidthGBs != 0 || rows[0].MedianMs != 1.5 {
		t.Fatalf("old row after the upgrade: %+v %v", rows, err)
	}
	r := row("g", "h100", "v1", "b", 1)
	r.Runs = 20 // more passes than the old row's 10: the best
	if err := s.Put(r); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.GetCode("g", "h100", "v1", "b", r.Code, false)
	if err != nil || !ok || got.L2Bytes != r.L2Bytes || got.SharedPerSM != r.SharedPerSM || got.BandwidthGBs != r.BandwidthGBs {
		t.Fatalf("new row: %+v %v %v, want the GPU facts of %+v", got, ok, err, r)
	}
	var l2 int
	if err := s.db.QueryRow("SELECT l2_bytes FROM best WHERE graph = 'g' AND gpu = 'h100'").Scan(&l2); err != nil || l2 != r.L2Bytes {
		t.Errorf("best view's l2_bytes = %d (%v), want %d", l2, err, r.L2Bytes)
	}
}

// upgraded makes a store file from the old schema's fixture
// (testdata/fixture) through SQLite directly, runs before (nil: nothing) on
// it, and opens it with Open, which upgrades it in place to SchemaVersion.
func upgraded(t *testing.T, fixture string, before func(*sql.DB)) *Store {
	t.Helper()
	ddl, err := os.ReadFile("testdata/" + fixture)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(ddl)); err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before(db)
	}
	db.Close()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var v int
	if err := s.db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion {
		t.Fatalf("user_version %d after the upgrade, want %d (%v)", v, SchemaVersion, err)
	}
	return s
}
