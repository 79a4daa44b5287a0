package main

import (
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progressDelay: a bar appears only for work that runs longer than this, so
// quick commands print nothing extra.
const progressDelay = time.Second

// progress is a lazily shown progress bar on stderr. It stays silent when
// stderr is not a terminal or --quiet is given. Safe for concurrent use.
type progress struct {
	mu      sync.Mutex
	enabled bool
	desc    string
	bytes   bool
	start   time.Time
	bar     *progressbar.ProgressBar
	stop    chan struct{} // closes the spinner goroutine, when there is one
	done    bool
}

func newProgress(quiet bool, desc string, bytes bool) *progress {
	return &progress{
		enabled: !quiet && term.IsTerminal(int(os.Stderr.Fd())),
		desc:    desc,
		bytes:   bytes,
		start:   time.Now(),
	}
}

// newSpinner is a progress indicator for work that reports no progress of
// its own (generating, counting): after progressDelay it shows a spinner
// with the elapsed time until Done.
func newSpinner(quiet bool, desc string) *progress {
	p := newProgress(quiet, desc, false)
	if !p.enabled {
		return p
	}
	p.stop = make(chan struct{})
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.Update(-1, -1)
			}
		}
	}()
	return p
}

// Update reports done out of total (total <= 0: unknown).
func (p *progress) Update(done, total int64) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	if p.bar == nil {
		if time.Since(p.start) < progressDelay {
			return
		}
		if total <= 0 {
			total = -1 // spinner
		}
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription(p.desc),
			progressbar.OptionShowBytes(p.bytes),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionSetWidth(30),
		)
	}
	if done >= 0 {
		_ = p.bar.Set64(done)
	} else {
		_ = p.bar.Add(1) // spinner tick
	}
}

// Done removes the bar.
func (p *progress) Done() {
	if p == nil {
		return
	}
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = true
	if p.bar != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
		p.bar = nil
	}
}

// Describe changes the bar's text (a tune's best so far).
func (p *progress) Describe(desc string) {
	if p == nil || !p.enabled {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.desc = desc
	if p.bar != nil {
		p.bar.Describe(desc)
	}
}
