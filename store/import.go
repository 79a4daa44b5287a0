package store

import (
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"
)

// timeText is a row's time as the time column holds it ("" for none).
func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

// Import appends rows (another store's export, a recording) oldest first,
// in one transaction, and returns how many it added: a row the store
// already holds (the same key, time, passes and median) is skipped, so
// importing a file twice adds nothing. The newest row of a key still
// stands for it, whichever store it came from.
func (s *Store) Import(rows []Row) (added int, err error) {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b Row) int { return a.Time.Compare(b.Time) })
	tx, err := s.db.Begin()
	if err != nil {
		return 0, fmt.Errorf("store: %s: import: %w", s.path, err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	for _, r := range rows {
		args, err := putArgs(r)
		if err != nil {
			return 0, fmt.Errorf("store: import %s on %s: %w", r.Plan, r.GraphName, err)
		}
		var one int
		err = tx.QueryRow(`SELECT 1 FROM measurements WHERE graph = ? AND gpu = ? AND version = ? AND plan = ? AND code = ?
			AND flushed = ? AND time = ? AND runs = ? AND median_ms = ? LIMIT 1`,
			r.Graph, r.GPU, r.Version, r.Plan, r.Code, r.Flushed, timeText(r.Time), r.Runs, r.MedianMs).Scan(&one)
		switch {
		case err == nil:
			continue // already here
		case !errors.Is(err, sql.ErrNoRows):
			return 0, fmt.Errorf("store: %s: import: %w", s.path, err)
		}
		if _, err := tx.Exec(putSQL, args...); err != nil {
			return 0, fmt.Errorf("store: %s: import %s on %s: %w", s.path, r.Plan, r.GraphName, err)
		}
		added++
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("store: %s: import: %w", s.path, err)
	}
	return added, nil
}
