package store

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"
)

// leasesTable marks the points being measured. A row is a lease: owner
// measures the key until expires (Unix nanoseconds) and renews it while it
// does; a lease past its expiry was left by an owner that died and may be
// taken over.
const leasesTable = `
CREATE TABLE IF NOT EXISTS leases (
	graph   TEXT    NOT NULL,
	gpu     TEXT    NOT NULL,
	version TEXT    NOT NULL,
	plan    TEXT    NOT NULL,
	code    TEXT    NOT NULL,
	owner   TEXT    NOT NULL,
	expires INTEGER NOT NULL,
	PRIMARY KEY (graph, gpu, version, plan, code)
);
`

// LeaseKey is what a lease covers: one measurement's key.
type LeaseKey struct {
	Graph, GPU, Version, Plan, Code string
}

// Lease is a claim on a key.
type Lease struct {
	LeaseKey
	Owner   string
	Expires time.Time
}

// ErrLeaseLost is Renew's error when owner no longer holds the lease: it
// expired and another owner took it over, or it was released.
var ErrLeaseLost = errors.New("lease lost")

// claimSQL takes a key's lease in one statement, so two claims cannot both
// win: it inserts a new lease, or replaces one that has expired or that the
// same owner holds; a live lease of another owner is left as it is and the
// statement changes no row.
const claimSQL = `INSERT INTO leases (graph, gpu, version, plan, code, owner, expires)
	VALUES (?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (graph, gpu, version, plan, code) DO UPDATE SET
	owner = excluded.owner, expires = excluded.expires
	WHERE leases.owner = excluded.owner OR leases.expires <= ?`

// NewOwner is a lease owner id unique to this process: host:pid:random (the
// random part tells apart two processes that reuse a pid, as in containers).
func NewOwner() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	var b [4]byte
	rand.Read(b[:]) //nolint:errcheck // crypto/rand.Read never fails
	return fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// Claim takes k's lease for owner until now+ttl. ok is false when another
// owner holds a live lease; held is then that lease. An expired lease is
// taken over.
func (s *Store) Claim(k LeaseKey, owner string, ttl time.Duration) (held Lease, ok bool, err error) {
	now := time.Now()
	exp := now.Add(ttl)
	res, err := s.db.Exec(claimSQL, k.Graph, k.GPU, k.Version, k.Plan, k.Code, owner, exp.UnixNano(), now.UnixNano())
	if err != nil {
		return Lease{}, false, fmt.Errorf("store: %s: claiming %s: %w", s.path, k.Plan, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return Lease{}, false, fmt.Errorf("store: %s: claiming %s: %w", s.path, k.Plan, err)
	}
	if n == 1 {
		return Lease{LeaseKey: k, Owner: owner, Expires: exp}, true, nil
	}
	held, found, err := s.LeaseOf(k)
	if err != nil {
		return Lease{}, false, err
	}
	if !found {
		// Released between the two statements: try again.
		return s.Claim(k, owner, ttl)
	}
	return held, false, nil
}

// Renew extends owner's lease on k to now+ttl; ErrLeaseLost if owner no
// longer holds it.
func (s *Store) Renew(k LeaseKey, owner string, ttl time.Duration) error {
	res, err := s.db.Exec(`UPDATE leases SET expires = ? WHERE graph = ? AND gpu = ? AND version = ?
		AND plan = ? AND code = ? AND owner = ?`,
		time.Now().Add(ttl).UnixNano(), k.Graph, k.GPU, k.Version, k.Plan, k.Code, owner)
	if err != nil {
		return fmt.Errorf("store: %s: renewing the lease on %s: %w", s.path, k.Plan, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("store: %s: renewing the lease on %s: %w", s.path, k.Plan, ErrLeaseLost)
	}
	return nil
}

// Release gives up owner's lease on k; a lease another owner took over is
// left alone.
func (s *Store) Release(k LeaseKey, owner string) error {
	_, err := s.db.Exec(`DELETE FROM leases WHERE graph = ? AND gpu = ? AND version = ?
		AND plan = ? AND code = ? AND owner = ?`, k.Graph, k.GPU, k.Version, k.Plan, k.Code, owner)
	if err != nil {
		return fmt.Errorf("store: %s: releasing the lease on %s: %w", s.path, k.Plan, err)
	}
	return nil
}

// LeaseOf returns k's lease, live or expired; found is false if there is
// none.
func (s *Store) LeaseOf(k LeaseKey) (l Lease, found bool, err error) {
	var exp int64
	err = s.db.QueryRow(`SELECT owner, expires FROM leases WHERE graph = ? AND gpu = ? AND version = ?
		AND plan = ? AND code = ?`, k.Graph, k.GPU, k.Version, k.Plan, k.Code).Scan(&l.Owner, &exp)
	if errors.Is(err, sql.ErrNoRows) {
		return Lease{}, false, nil
	}
	if err != nil {
		return Lease{}, false, fmt.Errorf("store: %s: reading the lease on %s: %w", s.path, k.Plan, err)
	}
	l.LeaseKey, l.Expires = k, time.Unix(0, exp)
	return l, true, nil
}

// Leases returns every lease in the store, live or expired, by plan.
func (s *Store) Leases() ([]Lease, error) {
	rows, err := s.db.Query(`SELECT graph, gpu, version, plan, code, owner, expires FROM leases
		ORDER BY plan, graph, gpu, version, code`)
	if err != nil {
		return nil, fmt.Errorf("store: %s: leases: %w", s.path, err)
	}
	defer rows.Close()
	var out []Lease
	for rows.Next() {
		var (
			l   Lease
			exp int64
		)
		if err := rows.Scan(&l.Graph, &l.GPU, &l.Version, &l.Plan, &l.Code, &l.Owner, &exp); err != nil {
			return nil, fmt.Errorf("store: %s: leases: %w", s.path, err)
		}
		l.Expires = time.Unix(0, exp)
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: leases: %w", s.path, err)
	}
	return out, nil
}
