package autotune

import (
	"fmt"
	"sync"
	"time"

	"github.com/tcgen/tcgen/store"
)

// Leases: two tunes of one graph on one store share its candidates. Before
// measuring a candidate the GPU evaluator claims it in the store with a
// lease (store.Claim: one atomic statement) and renews the lease while it
// measures; another evaluator that finds a live lease does not measure the
// candidate: in-order strategies move on and come back to it (Busy), and an
// evaluation of it waits for the holder's row. A lease that expired (its
// owner crashed) is taken over.

// leaseCompile is a lease's allowance for generating and compiling the
// candidate: a cold NVRTC compile takes seconds, so 30 s is a wide margin.
const leaseCompile = 30 * time.Second

// leasePass is a lease's allowance per pass (the verifying one, warm-ups,
// timed ones): passes on the largest graphs take around a second.
const leasePass = 2 * time.Second

// leaseWait is how long an evaluation waits for another owner's row before
// measuring the candidate itself: far longer than a measurement's lease,
// so only a holder that renews but never finishes (hung) reaches it.
const leaseWait = 10 * time.Minute

// leasePoll is how often a waiting evaluation looks for the holder's row: a
// measurement takes seconds, so a quarter second adds little wait.
const leasePoll = 250 * time.Millisecond

// leaseMu guards the lazily made owner ids of every GPU evaluator.
var leaseMu sync.Mutex

// owner is e's lease owner id, made once.
func (e *GPU) owner() string {
	leaseMu.Lock()
	defer leaseMu.Unlock()
	if e.Owner == "" {
		e.Owner = store.NewOwner()
	}
	return e.Owner
}

func (e *GPU) leaseKey(i int) store.LeaseKey {
	return store.LeaseKey{Graph: e.Base.Graph, GPU: e.Base.GPU, Version: e.Base.Version,
		Plan: e.Space.Cands.Plans[i], Code: e.code(i)}
}

// leaseTTL is how long a lease on a measurement of runs passes lasts
// between renewals: in proportion to the measurement's expected length.
func (e *GPU) leaseTTL(runs int) time.Duration {
	if e.LeaseTTL > 0 {
		return e.LeaseTTL
	}
	return leaseCompile + time.Duration(e.Warmup+runs+1)*leasePass
}

// Busy reports whether another owner holds a live lease on candidate i: it
// is being measured elsewhere. A store error reads as not busy; the
// evaluation then reports it.
func (e *GPU) Busy(i int) bool {
	if e.Store == nil || i < 0 || i >= len(e.Space.Plans) {
		return false
	}
	l, found, err := e.Store.LeaseOf(e.leaseKey(i))
	return err == nil && found && l.Owner != e.owner() && time.Now().Before(l.Expires)
}

// leased measures candidate i under a lease, or answers it with the row of
// the owner that holds one.
func (e *GPU) leased(i, runs int) (Result, error) {
	k, owner, ttl := e.leaseKey(i), e.owner(), e.leaseTTL(runs)
	wait := e.LeaseWait
	if wait <= 0 {
		wait = leaseWait
	}
	deadline := time.Now().Add(wait)
	for {
		_, ok, err := e.Store.Claim(k, owner, ttl)
		if err != nil {
			return Result{}, fmt.Errorf("tuning store: %w", err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			// The holder renews but never stores: measure here too (both
			// rows are kept).
			return e.measure(i, runs, e.newRow(i))
		}
		select {
		case <-e.Ctx.Done():
			return Result{}, e.Ctx.Err()
		case <-time.After(leasePoll):
		}
		if r, ok, err := e.cached(i, runs); err != nil || ok {
			return r, err
		}
	}
	// The holder may have stored its row and released between the look
	// before the claim and the claim.
	r, ok, err := e.cached(i, runs)
	if err == nil && !ok {
		stop := e.renew(k, owner, ttl)
		r, err = e.measure(i, runs, e.newRow(i))
		stop()
	}
	if rerr := e.Store.Release(k, owner); rerr != nil && err == nil {
		return Result{}, fmt.Errorf("tuning store: %w", rerr)
	}
	return r, err
}

// renew renews the lease on k every third of ttl until the returned stop
// is called, so a live owner's lease never lapses. A lost lease (taken
// over after a stall longer than ttl) is not renewed again; the
// measurement goes on and both rows are kept.
func (e *GPU) renew(k store.LeaseKey, owner string, ttl time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if e.Store.Renew(k, owner, ttl) != nil {
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}
