package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tcgen/tcgen/graph"

	_ "modernc.org/sqlite" // pure-Go driver "sqlite": no cgo, so tcgen stays one static binary
)

// SchemaVersion is the schema this package writes, kept in the file's
// PRAGMA user_version. A file with a larger one was written by a newer tcgen
// and is refused rather than misread. Version 2 added the code column;
// version 3 keeps every measurement (an id key instead of replacing the row
// of the same plan) and added the leases table; version 4 added the flushed
// column (the L2 flushed before each timed pass), part of the key, and the
// best view ranks by passes before time; version 5 added the GPU's facts
// (l2_bytes, shared_per_sm, bandwidth_gbs) the plan model places GPUs by.
// migrate upgrades older files in place, keeping their rows.
const SchemaVersion = 5

// timeLayout is RFC 3339 with a fixed nine-digit fraction, always in UTC:
// unlike time.RFC3339Nano (which trims trailing zeros) its strings sort in
// time order, so "order by time" works in SQL. time.RFC3339Nano parses it.
const timeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// sqliteHeader opens every SQLite 3 database file.
const sqliteHeader = "SQLite format 3\x00"

// schema creates the tables of SchemaVersion. Every column but samples_ms
// is NOT NULL with a default so rows added by hand with the sqlite3 CLI still
// scan. uint64 counts are stored as int64 bit patterns (SQLite integers are
// signed): exact for every value below 2^63, which any real count is.
const schema = measurementsTable + indexes + leasesTable + bestView

// measurementsTable is SchemaVersion's measurements table. id orders the
// measurements of one key (graph, gpu, version, plan, code, flushed): the newest
// stands for it, the older are history (see latestRows).
const measurementsTable = `
CREATE TABLE IF NOT EXISTS measurements (
	id            INTEGER PRIMARY KEY,
	graph         TEXT    NOT NULL,
	graph_name    TEXT    NOT NULL DEFAULT '',
	features      TEXT    NOT NULL DEFAULT '{}',
	vertices      INTEGER NOT NULL DEFAULT 0,
	edges         INTEGER NOT NULL DEFAULT 0,
	degree_max    INTEGER NOT NULL DEFAULT 0,
	gpu           TEXT    NOT NULL,
	gpu_name      TEXT    NOT NULL DEFAULT '',
	cc            TEXT    NOT NULL DEFAULT '',
	sms           INTEGER NOT NULL DEFAULT 0,
	driver        INTEGER NOT NULL DEFAULT 0,
	nvrtc         TEXT    NOT NULL DEFAULT '',
	version       TEXT    NOT NULL DEFAULT '',
	code          TEXT    NOT NULL DEFAULT '',
	plan          TEXT    NOT NULL,
	spec          TEXT    NOT NULL DEFAULT '',
	space         TEXT    NOT NULL DEFAULT '',
	point         TEXT    NOT NULL DEFAULT '',
	source        TEXT    NOT NULL DEFAULT '',
	status        TEXT    NOT NULL,
	reason        TEXT    NOT NULL DEFAULT '',
	triangles     INTEGER NOT NULL DEFAULT 0,
	reference     INTEGER NOT NULL DEFAULT 0,
	warmup        INTEGER NOT NULL DEFAULT 0,
	runs          INTEGER NOT NULL DEFAULT 0,
	flushed       INTEGER NOT NULL DEFAULT 0,
	samples_ms    TEXT,
	median_ms     REAL    NOT NULL DEFAULT 0,
	min_ms        REAL    NOT NULL DEFAULT 0,
	max_ms        REAL    NOT NULL DEFAULT 0,
	kernel_ms     REAL    NOT NULL DEFAULT 0,
	compile_ms    REAL    NOT NULL DEFAULT 0,
	prepare_ms    REAL    NOT NULL DEFAULT 0,
	clock_sm_mhz  INTEGER NOT NULL DEFAULT 0,
	clock_mem_mhz INTEGER NOT NULL DEFAULT 0,
	temperature_c INTEGER NOT NULL DEFAULT 0,
	time          TEXT    NOT NULL DEFAULT '',
	l2_bytes      INTEGER NOT NULL DEFAULT 0,
	shared_per_sm INTEGER NOT NULL DEFAULT 0,
	bandwidth_gbs REAL    NOT NULL DEFAULT 0
);
`

// indexes are the measurements table's indexes.
const indexes = `
-- (graph, gpu) leads, as asked; status and median_ms after it let Best and
-- the best view read the fastest ok row straight from the index.
CREATE INDEX IF NOT EXISTS measurements_graph_gpu ON measurements (graph, gpu, status, median_ms);
CREATE INDEX IF NOT EXISTS measurements_space ON measurements (space);
-- The key then id: finds a key's newest row (GetCode, latestRows).
CREATE INDEX IF NOT EXISTS measurements_key ON measurements (graph, gpu, version, plan, code, flushed, id);
`

// bestView is the best view; a migration recreates it, since a view keeps
// the column list it was created with.
const bestView = `
-- best: per (graph, gpu), among the newest rows of each key, the ok row
-- Store.Best returns without its code check: unflushed rows before flushed
-- ones (not rivals), then the most passes, then the smallest median_ms;
-- ties go to the smaller plan name, then version, so the answer is stable.
CREATE VIEW IF NOT EXISTS best AS
	SELECT ` + columns + `, vertices, edges, degree_max FROM (
		SELECT *, row_number() OVER (
			PARTITION BY graph, gpu ORDER BY ` + bestOrder + `
		) AS best_rank
		FROM (` + latestRows + `) WHERE status = 'ok'
	) WHERE best_rank = 1;
`

// columns lists the measurements columns in scanRow's order.
const columns = columnsV3 + `, flushed, l2_bytes, shared_per_sm, bandwidth_gbs`

// columnsV3 are the columns of schema version 3 (upgrade2 copies them).
const columnsV3 = `graph, graph_name, features, gpu, gpu_name, cc, sms, driver, nvrtc,
	version, code, plan, spec, space, point, source, status, reason, triangles, reference,
	warmup, runs, samples_ms, median_ms, min_ms, max_ms, kernel_ms, compile_ms, prepare_ms,
	clock_sm_mhz, clock_mem_mhz, temperature_c, time`

// bestOrder ranks a graph's ok rows on one GPU for Best and the best view:
// rows measured without an L2 flush (the default, what count's plan choice
// compares) before flushed ones, which answer only where no unflushed row
// does, as the two kinds of time are not comparable; then the most timed
// passes, so a row enters best only with at least as many passes as its
// rivals; then the fastest.
const bestOrder = `flushed, runs DESC, median_ms, plan, version`

// putSQL appends one row; id numbers it after every earlier one. The
// derived columns vertices, edges and degree_max come last.
const putSQL = `INSERT INTO measurements (` + columns + `, vertices, edges, degree_max)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// Store is an open tuning store. Its methods are safe for concurrent use,
// and several processes may share one file (WAL mode, busy timeout).
type Store struct {
	db   *sql.DB
	path string
}

// Filter selects rows; empty fields match everything.
type Filter struct {
	Graph, GPU, Version, Space string
	Status                     Status
	// OnlyOK keeps StatusOK rows only (with Status set as well, a non-ok
	// Status then matches nothing).
	OnlyOK bool
	// History keeps every measurement; without it only the newest row of
	// each key (graph, gpu, version, plan, code) is returned.
	History bool
}

// GraphInfo is one graph measured on a GPU: what the model trains on.
type GraphInfo struct {
	Graph     string         `json:"graph"`
	GraphName string         `json:"graph_name"`
	Features  graph.Features `json:"features"`
}

// DefaultPath is where the tuning store lives unless told otherwise:
// $XDG_DATA_HOME/tcgen/tuning.db when XDG_DATA_HOME is set to an absolute
// path (the XDG spec says to ignore a relative one), else
// ~/.local/share/tcgen/tuning.db under os.UserHomeDir.
func DefaultPath() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "tcgen", "tuning.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("store: no default path: %w", err)
	}
	return filepath.Join(home, ".local", "share", "tcgen", "tuning.db"), nil
}

// Open opens the store at path, creating the file and its parent
// directories if needed. It refuses a file that is not a SQLite database or
// that has a newer schema than SchemaVersion, with an error naming path.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("store: empty database path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("store: %s: creating its directory: %w", path, err)
	}
	// SQLite's own complaint ("file is not a database (26)") does not say
	// which file; checking the header first gives a clearer one-line error.
	if err := checkHeader(abs); err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}

	// WAL plus synchronous=FULL makes every committed Put durable even
	// across a power loss, and a crash mid-write rolls back only the
	// unfinished transaction. The busy timeout lets a tune and a sweep
	// share the file; _txlock=immediate takes the write lock at BEGIN so
	// two writers wait instead of failing on a lock upgrade.
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(wal)")
	q.Add("_pragma", "synchronous(full)")
	q.Set("_txlock", "immediate")
	// A file: URI with an escaped path, so '?' or '#' in a file name is
	// not taken for the query.
	dsn := "file:" + (&url.URL{Path: abs}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %s: %w", path, err)
	}
	return s, nil
}

// checkHeader reports an error if path exists and is not a SQLite file. A
// missing or empty file is fine: SQLite makes it a new database.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return errors.New("is a directory, not a SQLite database")
	}
	buf := make([]byte, len(sqliteHeader))
	n, err := io.ReadFull(f, buf)
	if n == 0 && (err == io.EOF || err == nil) {
		return nil
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	if !bytes.Equal(buf[:n], []byte(sqliteHeader)) {
		return errors.New("not a SQLite database (bad file header)")
	}
	return nil
}

// upgrade1 turns a schema version 1 file into version 2; upgrade2 then
// makes it current.
const upgrade1 = `ALTER TABLE measurements ADD COLUMN code TEXT NOT NULL DEFAULT '';`

// migrate creates the schema in a new file, upgrades an older one and
// refuses a newer one. It runs
// in one immediate transaction so two processes opening a new file at once
// do not both create it.
func (s *Store) migrate() error {
	ctx := context.Background()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("opening: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("reading schema version: %w", err)
	}
	switch {
	case v > SchemaVersion:
		return fmt.Errorf("schema version %d is newer than this tcgen's %d: use a newer tcgen", v, SchemaVersion)
	case v == SchemaVersion:
		return nil
	case v == 3 || v == 4:
		if v == 3 {
			if _, err := tx.ExecContext(ctx, upgrade3); err != nil {
				return fmt.Errorf("upgrading schema 3 to %d: %w", SchemaVersion, err)
			}
		}
		if _, err := tx.ExecContext(ctx, upgrade4); err != nil {
			return fmt.Errorf("upgrading schema %d to %d: %w", v, SchemaVersion, err)
		}
	case v == 1 || v == 2:
		// Version 1 rows get an empty code hash, which matches no plan:
		// they stay as history but are never reused as current.
		if v == 1 {
			if _, err := tx.ExecContext(ctx, upgrade1); err != nil {
				return fmt.Errorf("upgrading schema 1 to %d: %w", SchemaVersion, err)
			}
		}
		if _, err := tx.ExecContext(ctx, upgrade2); err != nil {
			return fmt.Errorf("upgrading schema %d to %d: %w", v, SchemaVersion, err)
		}
	default:
		if _, err := tx.ExecContext(ctx, schema); err != nil {
			return fmt.Errorf("creating schema: %w", err)
		}
	}
	// PRAGMA takes no parameters; SchemaVersion is a constant.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion)); err != nil {
		return fmt.Errorf("setting schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("creating schema: %w", err)
	}
	return nil
}

// Path is the path the store was opened with.
func (s *Store) Path() string { return s.path }

// Close closes the database; every Put before it is already on disk.
func (s *Store) Close() error {
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: %s: closing: %w", s.path, err)
	}
	return nil
}

// Valid reports whether st is one of the Status constants.
func (st Status) Valid() bool {
	switch st {
	case StatusOK, StatusWrong, StatusCompile, StatusLaunch, StatusInvalid, StatusTooLarge:
		return true
	}
	return false
}

// Validate reports what makes r unfit to store: an empty key field (Version
// may be empty: a build without version information), an unknown status,
// or a non-finite time (SQLite would turn NaN into NULL and JSON cannot
// hold it).
func (r Row) Validate() error {
	switch {
	case r.Graph == "":
		return errors.New("row has no graph")
	case r.GPU == "":
		return errors.New("row has no gpu")
	case r.Plan == "":
		return errors.New("row has no plan")
	case !r.Status.Valid():
		return fmt.Errorf("row has unknown status %q", r.Status)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"median_ms", r.MedianMs}, {"min_ms", r.MinMs}, {"max_ms", r.MaxMs},
		{"kernel_ms", r.KernelMs}, {"compile_ms", r.CompileMs}, {"prepare_ms", r.PrepareMs},
		{"features.degree_mean", r.Features.DegreeMean},
		{"features.degree_stddev", r.Features.DegreeStddev},
	} {
		if !finite(f.v) {
			return fmt.Errorf("row has non-finite %s", f.name)
		}
	}
	for _, v := range r.Samples {
		if !finite(v) {
			return errors.New("row has a non-finite sample")
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Put appends r; an earlier row of the same key stays as history (Filter's
// History). It is one statement and so its own committed transaction: once Put
// returns, a crash cannot lose r.
func (s *Store) Put(r Row) error {
	args, err := putArgs(r)
	if err != nil {
		return err
	}
	if _, err = s.db.Exec(putSQL, args...); err != nil {
		return fmt.Errorf("store: %s: put %s on %s: %w", s.path, r.Plan, r.GraphName, err)
	}
	return nil
}

// putArgs are putSQL's arguments for r, once r is valid.
func putArgs(r Row) ([]any, error) {
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("store: put: %w", err)
	}
	features, err := json.Marshal(r.Features)
	if err != nil {
		return nil, fmt.Errorf("store: put: features: %w", err)
	}
	var samples any // NULL for no samples, so nil reads back as nil
	if r.Samples != nil {
		b, err := json.Marshal(r.Samples)
		if err != nil {
			return nil, fmt.Errorf("store: put: samples: %w", err)
		}
		samples = string(b)
	}
	t := timeText(r.Time)
	return []any{
		r.Graph, r.GraphName, string(features), r.GPU, r.GPUName, r.CC, r.SMs, r.Driver, r.NVRTC,
		r.Version, r.Code, r.Plan, r.Spec, r.Space, r.Point, r.Source, string(r.Status), r.Reason,
		int64(r.Triangles), int64(r.Reference), r.Warmup, r.Runs, samples,
		r.MedianMs, r.MinMs, r.MaxMs, r.KernelMs, r.CompileMs, r.PrepareMs,
		r.ClockSMMHz, r.ClockMemMHz, r.TempC, t, r.Flushed, r.L2Bytes, r.SharedPerSM, r.BandwidthGBs,
		int64(r.Features.Vertices), int64(r.Features.Edges), int64(r.Features.DegreeMax)}, nil
}

// scanner is *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// scanRow reads one row selected with columns.
func scanRow(sc scanner) (Row, error) {
	var (
		r                    Row
		features, status, t  string
		samples              sql.NullString
		triangles, reference int64
	)
	err := sc.Scan(&r.Graph, &r.GraphName, &features, &r.GPU, &r.GPUName, &r.CC, &r.SMs, &r.Driver, &r.NVRTC,
		&r.Version, &r.Code, &r.Plan, &r.Spec, &r.Space, &r.Point, &r.Source, &status, &r.Reason,
		&triangles, &reference, &r.Warmup, &r.Runs, &samples,
		&r.MedianMs, &r.MinMs, &r.MaxMs, &r.KernelMs, &r.CompileMs, &r.PrepareMs,
		&r.ClockSMMHz, &r.ClockMemMHz, &r.TempC, &t, &r.Flushed, &r.L2Bytes, &r.SharedPerSM, &r.BandwidthGBs)
	if err != nil {
		return Row{}, err
	}
	r.Status = Status(status)
	r.Triangles, r.Reference = uint64(triangles), uint64(reference)
	if err := json.Unmarshal([]byte(features), &r.Features); err != nil {
		return Row{}, fmt.Errorf("row %s/%s: features: %w", r.GraphName, r.Plan, err)
	}
	if samples.Valid {
		if err := json.Unmarshal([]byte(samples.String), &r.Samples); err != nil {
			return Row{}, fmt.Errorf("row %s/%s: samples_ms: %w", r.GraphName, r.Plan, err)
		}
	}
	if t != "" {
		if r.Time, err = time.Parse(time.RFC3339Nano, t); err != nil {
			return Row{}, fmt.Errorf("row %s/%s: time: %w", r.GraphName, r.Plan, err)
		}
	}
	return r, nil
}

// Get returns the newest row of plan on graph, gpu and version, whatever
// its code hash; ok is false if there is none.
func (s *Store) Get(graph, gpu, version, plan string) (Row, bool, error) {
	r, err := scanRow(s.db.QueryRow(`SELECT `+columns+` FROM measurements
		WHERE graph = ? AND gpu = ? AND version = ? AND plan = ?
		ORDER BY id DESC LIMIT 1`, graph, gpu, version, plan))
	if errors.Is(err, sql.ErrNoRows) {
		return Row{}, false, nil
	}
	if err != nil {
		return Row{}, false, fmt.Errorf("store: %s: get: %w", s.path, err)
	}
	return r, true, nil
}

// Rows returns the rows f selects, ordered by graph name and plan (then
// graph, GPU and version, so the order is total).
func (s *Store) Rows(f Filter) ([]Row, error) {
	var (
		where []string
		args  []any
	)
	add := func(col, v string) {
		if v != "" {
			where = append(where, col+" = ?")
			args = append(args, v)
		}
	}
	add("graph", f.Graph)
	add("gpu", f.GPU)
	add("version", f.Version)
	add("space", f.Space)
	add("status", string(f.Status))
	if f.OnlyOK {
		add("status", string(StatusOK))
	}
	q := `SELECT ` + columns + ` FROM measurements`
	if !f.History {
		q = `SELECT ` + columns + ` FROM (` + latestRows + `)`
	}
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY graph_name, plan, graph, gpu, version, id"
	return s.query("rows", q, args...)
}

// query runs a SELECT of columns and scans every row.
func (s *Store) query(what, q string, args ...any) ([]Row, error) {
	rows, err := s.db.Query(q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %s: %w", s.path, what, err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return nil, fmt.Errorf("store: %s: %s: %w", s.path, what, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: %s: %w", s.path, what, err)
	}
	return out, nil
}

// Best returns the row count runs for graph on gpu: among the newest rows
// of its keys (an older measurement of a key is history, see latestRows),
// the StatusOK ones that current accepts (nil accepts all) of one kind,
// unflushed rows if any is accepted, else rows measured with the L2
// flushed before each pass (bestOrder: the two are not rivals), only those
// measured with the most timed passes (Runs) compete, and the fastest
// (smallest MedianMs) of them wins; ties go to the smaller plan name, then
// version. So a row with fewer
// passes never wins over one with more: a 1-pass screening of successive
// halving cannot outrank a full measurement by a lucky pass. (A tune
// measures the plans count would otherwise run with its full passes, so they
// compete too.) current is how a caller keeps out rows whose generated code
// is not what this build generates (CodeMatcher in package autotune); a row
// without a code hash is never current. skipped is how many ok rows ranked
// ahead of the answer were rejected by current; ok is false if no row is
// accepted.
func (s *Store) Best(graph, gpu string, current func(Row) bool) (best Row, skipped int, ok bool, err error) {
	rows, err := s.db.Query(`SELECT `+columns+` FROM (`+latestRows+`)
		WHERE graph = ? AND gpu = ? AND status = 'ok'
		ORDER BY `+bestOrder, graph, gpu)
	if err != nil {
		return Row{}, 0, false, fmt.Errorf("store: %s: best: %w", s.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRow(rows)
		if err != nil {
			return Row{}, 0, false, fmt.Errorf("store: %s: best: %w", s.path, err)
		}
		if current == nil || r.Code != "" && current(r) {
			return r, skipped, true, nil
		}
		skipped++
	}
	if err := rows.Err(); err != nil {
		return Row{}, 0, false, fmt.Errorf("store: %s: best: %w", s.path, err)
	}
	return Row{}, skipped, false, nil
}

// Graphs returns each distinct graph measured on gpu (every GPU if gpu is
// empty), ordered by name. A graph measured under several names or feature
// versions is reported with those of its latest row.
func (s *Store) Graphs(gpu string) ([]GraphInfo, error) {
	rows, err := s.db.Query(`SELECT graph, graph_name, features FROM (
			SELECT graph, graph_name, features, row_number() OVER (
				PARTITION BY graph ORDER BY time DESC, graph_name
			) AS latest
			FROM measurements WHERE ? = '' OR gpu = ?
		) WHERE latest = 1 ORDER BY graph_name, graph`, gpu, gpu)
	if err != nil {
		return nil, fmt.Errorf("store: %s: graphs: %w", s.path, err)
	}
	defer rows.Close()
	var out []GraphInfo
	for rows.Next() {
		var (
			g        GraphInfo
			features string
		)
		if err := rows.Scan(&g.Graph, &g.GraphName, &features); err != nil {
			return nil, fmt.Errorf("store: %s: graphs: %w", s.path, err)
		}
		if err := json.Unmarshal([]byte(features), &g.Features); err != nil {
			return nil, fmt.Errorf("store: %s: graphs: %s: features: %w", s.path, g.GraphName, err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: graphs: %w", s.path, err)
	}
	return out, nil
}
