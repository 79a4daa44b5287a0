package store

import (
	"errors"
	"os"
	"sync"
	"testing"
	"time"
)

// TestClaimOnce: of many owners claiming one key at once, through separate
// connections to one file, exactly one wins; the others see its lease.
func TestClaimOnce(t *testing.T) {
	s, path := openTemp(t)
	k := LeaseKey{Graph: "g", GPU: "h100", Version: "v", Plan: "p", Code: "c"}
	const owners = 8 // more claimants than the two cores, so they interleave
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		winners []string
		holders = map[string]bool{}
	)
	for i := range owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o, err := Open(path) // a process of its own, as far as SQLite knows
			if err != nil {
				t.Error(err)
				return
			}
			defer o.Close()
			owner := string(rune('a' + i))
			held, ok, err := o.Claim(k, owner, time.Minute)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				t.Error(err)
			case ok:
				winners = append(winners, owner)
			default:
				holders[held.Owner] = true
			}
		}()
	}
	wg.Wait()
	if len(winners) != 1 {
		t.Fatalf("winners %v, want exactly one", winners)
	}
	for h := range holders {
		if h != winners[0] {
			t.Errorf("a loser saw holder %q, the winner is %q", h, winners[0])
		}
	}
	l, found, err := s.LeaseOf(k)
	if err != nil || !found || l.Owner != winners[0] || time.Until(l.Expires) < 50*time.Second {
		t.Errorf("lease %+v %v %v, want %s's for a minute", l, found, err, winners[0])
	}
}

// TestLeaseLifecycle: renewal by the owner, refusal of another, takeover of
// an expired lease (a crashed owner's, written by hand), release.
func TestLeaseLifecycle(t *testing.T) {
	s, _ := openTemp(t)
	k := LeaseKey{Graph: "g", GPU: "h100", Version: "v", Plan: "p", Code: "c"}
	if _, ok, err := s.Claim(k, "a", time.Minute); !ok || err != nil {
		t.Fatalf("first claim: %v %v", ok, err)
	}
	if _, ok, err := s.Claim(k, "a", time.Minute); !ok || err != nil {
		t.Errorf("the owner's second claim: %v %v, want it held", ok, err)
	}
	if held, ok, err := s.Claim(k, "b", time.Minute); ok || err != nil || held.Owner != "a" {
		t.Errorf("b's claim on a's live lease: %v %+v %v", ok, held, err)
	}
	if err := s.Renew(k, "a", time.Hour); err != nil {
		t.Error(err)
	}
	if err := s.Renew(k, "b", time.Hour); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("b renewing a's lease: %v, want ErrLeaseLost", err)
	}
	// A crashed owner's lease: expired a second ago.
	if _, err := s.db.Exec(`UPDATE leases SET owner = 'dead:1:00', expires = ?`, time.Now().Add(-time.Second).UnixNano()); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Claim(k, "b", time.Minute); !ok || err != nil {
		t.Fatalf("b's claim on an expired lease: %v %v, want it taken over", ok, err)
	}
	if err := s.Renew(k, "dead:1:00", time.Minute); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("the crashed owner renewing: %v, want ErrLeaseLost", err)
	}
	if err := s.Release(k, "a"); err != nil { // not a's: left alone
		t.Fatal(err)
	}
	if l, found, _ := s.LeaseOf(k); !found || l.Owner != "b" {
		t.Errorf("after a's release: %+v %v, want b's lease kept", l, found)
	}
	if err := s.Release(k, "b"); err != nil {
		t.Fatal(err)
	}
	if ls, err := s.Leases(); err != nil || len(ls) != 0 {
		t.Errorf("leases after release: %+v %v", ls, err)
	}
}

func TestNewOwner(t *testing.T) {
	a, b := NewOwner(), NewOwner()
	host, _ := os.Hostname()
	if a == b || len(a) < len(host)+3 || a[:len(host)] != host {
		t.Errorf("owners %q and %q: want host:pid:random, distinct", a, b)
	}
}

// TestHistory: a second measurement of a key is appended; the newest stands
// for the key in Get, Rows, Best and the best view, while History keeps both.
func TestHistory(t *testing.T) {
	s, _ := openTemp(t)
	first := row("g", "h100", "v", "p", 1)
	second := row("g", "h100", "v", "p", 2) // slower, but newer
	second.Time = first.Time.Add(time.Hour)
	put(t, s, first, second, row("g", "h100", "v", "q", 1.5))
	if all, err := s.Rows(Filter{Graph: "g", History: true}); err != nil || len(all) != 3 || all[0].MedianMs != 1 || all[1].MedianMs != 2 {
		t.Fatalf("history: %d rows %v, want both of p in order then q", len(all), err)
	}
	if cur, err := s.Rows(Filter{Graph: "g"}); err != nil || len(cur) != 2 || cur[0].MedianMs != 2 {
		t.Errorf("current rows: %+v %v, want p's newest and q", cur, err)
	}
	if r, ok, err := s.Get("g", "h100", "v", "p"); err != nil || !ok || r.MedianMs != 2 {
		t.Errorf("Get: %v %v %v, want the newest (2 ms)", r.MedianMs, ok, err)
	}
	if r, ok, err := s.GetCode("g", "h100", "v", "p", "code-p", false); err != nil || !ok || r.MedianMs != 2 {
		t.Errorf("GetCode: %v %v %v, want the newest (2 ms)", r.MedianMs, ok, err)
	}
	if _, ok, err := s.GetCode("g", "h100", "v", "p", "other", false); err != nil || ok {
		t.Errorf("GetCode of other code: %v %v, want none", ok, err)
	}
	if r, _, ok, err := s.Best("g", "h100", current()); err != nil || !ok || r.Plan != "q" {
		t.Errorf("Best = %s (%v %v), want q: p's old 1 ms is history", r.Plan, ok, err)
	}
	var plan string
	if err := s.db.QueryRow("SELECT plan FROM best WHERE graph = 'g'").Scan(&plan); err != nil || plan != "q" {
		t.Errorf("best view: %q %v, want q", plan, err)
	}
}

// TestUpgrade2: a schema 2 file (one row per key) becomes schema 3 with its
// rows, which then gain history instead of being replaced.
func TestUpgrade2(t *testing.T) {
	s := upgraded(t, "schema2.sql", nil)
	defer s.Close()
	rows, err := s.Rows(Filter{History: true})
	if err != nil || len(rows) != 2 || rows[0].Plan != "a" || rows[0].MedianMs != 2.5 || rows[1].Code != "code-b" {
		t.Fatalf("old rows after the upgrade: %+v %v", rows, err)
	}
	// Numbered in time order: b (older) first.
	var ids []string
	r, err := s.db.Query("SELECT plan FROM measurements ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var p string
		r.Scan(&p) //nolint:errcheck // checked by the comparison below
		ids = append(ids, p)
	}
	r.Close()
	if len(ids) != 2 || ids[0] != "b" {
		t.Errorf("ids in order %v, want b then a (time order)", ids)
	}
	if b, _, ok, err := s.Best("g", "h100", current()); err != nil || !ok || b.Plan != "b" {
		t.Errorf("Best after the upgrade: %s %v %v, want b", b.Plan, ok, err)
	}
	again := row("g", "h100", "dev", "b", 3)
	put(t, s, again)
	if all, _ := s.Rows(Filter{History: true}); len(all) != 3 {
		t.Errorf("%d rows after re-measuring b, want 3 (history kept)", len(all))
	}
	if b, _, ok, _ := s.Best("g", "h100", current()); !ok || b.Plan != "a" {
		t.Errorf("Best after b's slower re-measurement: %s, want a", b.Plan)
	}
	if _, ok, err := s.Claim(LeaseKey{Graph: "g", GPU: "h100", Plan: "a"}, "o", time.Minute); !ok || err != nil {
		t.Errorf("claim on an upgraded store: %v %v", ok, err)
	}
}
