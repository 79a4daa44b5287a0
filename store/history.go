package store

import (
	"database/sql"
	"errors"
	"fmt"
)

// latestRows selects the newest row (largest id) of each key (graph, gpu,
// version, plan, code, flushed): the measurement that stands for the key. Older rows
// of a key are history: `store export` and Filter.History keep them, Best,
// the best view and the evaluator's reuse do not. The newest row wins even
// when it is slower or failed: a re-measurement is taken because the old one
// no longer answers (another reference, more passes, a crashed lease), so
// the old number must not outrank it. A NOT EXISTS on the key's index, not
// a window, so an outer WHERE on graph and gpu still narrows by index.
const latestRows = `SELECT * FROM measurements AS m WHERE NOT EXISTS (
		SELECT 1 FROM measurements AS n WHERE n.graph = m.graph AND n.gpu = m.gpu
		AND n.version = m.version AND n.plan = m.plan AND n.code = m.code
		AND n.flushed = m.flushed AND n.id > m.id)`

// upgrade2 turns a schema version 2 file into version 3: the table is
// rebuilt with an id key (SQLite cannot change a primary key in place) and
// every old row is kept, numbered in time order. The best view goes first,
// since it names the table being renamed; the old indexes go with the old
// table and are made again on the new one.
const upgrade2 = `DROP VIEW IF EXISTS best;
ALTER TABLE measurements RENAME TO measurements_v2;` + measurementsTable + `
INSERT INTO measurements (` + columnsV3 + `, vertices, edges, degree_max)
	SELECT ` + columnsV3 + `, vertices, edges, degree_max FROM measurements_v2 ORDER BY time, rowid;
DROP TABLE measurements_v2;` + indexes + leasesTable + bestView

// upgrade3 turns a schema version 3 file into version 4: every older row
// was measured without an L2 flush (flushed 0) and the key's index takes
// the new column; upgrade4 follows and makes the best view again with
// bestOrder (version 3's ranked by median_ms alone, unlike Best).
const upgrade3 = `ALTER TABLE measurements ADD COLUMN flushed INTEGER NOT NULL DEFAULT 0;
DROP INDEX IF EXISTS measurements_key;` + indexes

// upgrade4 turns a schema version 4 file into version 5: the GPU facts the
// model measures a GPU by (L2, shared memory per SM, DRAM bandwidth), 0 for
// the older rows, which did not record them; the best view is made again
// with the new columns.
const upgrade4 = `ALTER TABLE measurements ADD COLUMN l2_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN shared_per_sm INTEGER NOT NULL DEFAULT 0;
ALTER TABLE measurements ADD COLUMN bandwidth_gbs REAL NOT NULL DEFAULT 0;
DROP VIEW IF EXISTS best;` + bestView

// GetCode returns the newest row of plan on graph, gpu and version that
// measured the code with hash code, with the L2 flushed before each pass
// or not as flushed says; ok is false if there is none.
func (s *Store) GetCode(graph, gpu, version, plan, code string, flushed bool) (Row, bool, error) {
	r, err := scanRow(s.db.QueryRow(`SELECT `+columns+` FROM measurements
		WHERE graph = ? AND gpu = ? AND version = ? AND plan = ? AND code = ? AND flushed = ?
		ORDER BY id DESC LIMIT 1`, graph, gpu, version, plan, code, flushed))
	if errors.Is(err, sql.ErrNoRows) {
		return Row{}, false, nil
	}
	if err != nil {
		return Row{}, false, fmt.Errorf("store: %s: get: %w", s.path, err)
	}
	return r, true, nil
}
