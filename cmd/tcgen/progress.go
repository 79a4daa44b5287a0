package main

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// progressDelay: a line appears only for work that runs longer than this, so
// quick commands print nothing extra.
const progressDelay = time.Second

// progressTick is how often the line is redrawn: often enough to look live,
// rarely enough to cost nothing.
const progressTick = 200 * time.Millisecond

// unitBytes is the unit of progress counted in bytes; any other unit is a
// plural noun for items ("edges", "evals").
const unitBytes = "bytes"

// progress is a status line on stderr for long work: what is done, of how
// much when known, the rate and the time left. It stays silent when stderr
// is not a terminal or --quiet is given. Update is cheap and safe for
// concurrent use (the graph oracle calls it from every worker); a
// goroutine draws the line.
type progress struct {
	enabled     bool
	w           *os.File
	unit        string
	start       time.Time
	done, total atomic.Int64 // total <= 0: unknown
	desc        atomic.Pointer[string]
	stop        chan struct{}
	stopped     chan struct{}
	once        sync.Once
}

// newProgress counts work in unit (unitBytes or a plural noun).
func newProgress(quiet bool, desc, unit string) *progress {
	p := &progress{
		enabled: !quiet && term.IsTerminal(int(os.Stderr.Fd())),
		w:       os.Stderr,
		unit:    unit,
		start:   time.Now(),
	}
	p.desc.Store(&desc)
	p.done.Store(-1) // nothing reported yet
	if p.enabled {
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go p.draw()
	}
	return p
}

// newSpinner is a status line for work that reports no progress of its own
// (generating a graph): what runs and for how long.
func newSpinner(quiet bool, desc string) *progress { return newProgress(quiet, desc, "") }

// Update reports done out of total (total <= 0: unknown).
func (p *progress) Update(done, total int64) {
	if p == nil || !p.enabled {
		return
	}
	p.total.Store(total)
	p.done.Store(done)
}

// Describe changes the line's text (a tune's best so far).
func (p *progress) Describe(desc string) {
	if p == nil || !p.enabled {
		return
	}
	p.desc.Store(&desc)
}

// Done removes the line; it may be called more than once.
func (p *progress) Done() {
	if p == nil || !p.enabled {
		return
	}
	p.once.Do(func() {
		close(p.stop)
		<-p.stopped
	})
}

func (p *progress) draw() {
	defer close(p.stopped)
	t := time.NewTicker(progressTick)
	defer t.Stop()
	shown := false
	for {
		select {
		case <-p.stop:
			if shown {
				fmt.Fprint(p.w, "\r\x1b[K")
			}
			return
		case now := <-t.C:
			if now.Sub(p.start) < progressDelay {
				continue
			}
			width := 100
			if w, _, err := term.GetSize(int(p.w.Fd())); err == nil && w > 1 {
				width = w - 1 // the last column would wrap on some terminals
			}
			line := progressLine(*p.desc.Load(), p.unit, p.done.Load(), p.total.Load(), now.Sub(p.start))
			fmt.Fprint(p.w, "\r"+cut(line, width)+"\x1b[K")
			shown = true
		}
	}
}

// progressLine is the status: "reading g.txt  1.2 GiB / 3.4 GiB (35%)
// 410 MiB/s  6s left". Without a total it shows what is done and the rate;
// without progress (done < 0), the time so far.
func progressLine(desc, unit string, done, total int64, elapsed time.Duration) string {
	var b strings.Builder
	b.WriteString(desc)
	if done < 0 {
		fmt.Fprintf(&b, "  %s", elapsed.Round(time.Second))
		return b.String()
	}
	switch {
	case total > 0 && unit != unitBytes: // "4.0 M / 16.0 M edges"
		fmt.Fprintf(&b, "  %s / %s (%d%%)", shortCount(done), amount(total, unit), min(100*done/total, 100))
	case total > 0:
		fmt.Fprintf(&b, "  %s / %s (%d%%)", amount(done, unit), amount(total, unit), min(100*done/total, 100))
	default:
		fmt.Fprintf(&b, "  %s", amount(done, unit))
	}
	secs := elapsed.Seconds()
	if secs <= 0 || done == 0 {
		return b.String()
	}
	rate := float64(done) / secs
	if unit != unitBytes && rate < 10 {
		fmt.Fprintf(&b, "  %.2g %s/s", rate, unit) // a few evaluations a second
	} else {
		fmt.Fprintf(&b, "  %s/s", amount(int64(rate), unit))
	}
	if total > done {
		left := time.Duration(float64(total-done) / rate * float64(time.Second))
		fmt.Fprintf(&b, "  %s left", left.Round(time.Second))
	}
	return b.String()
}

// amount writes n of unit shortly: "1.5 GiB", "12.3 M edges", "7 evals".
func amount(n int64, unit string) string {
	if unit == unitBytes {
		const k = 1024
		if n < k {
			return fmt.Sprintf("%d B", n)
		}
		f, i := float64(n), -1
		for f >= k && i < 4 {
			f /= k
			i++
		}
		return fmt.Sprintf("%.1f %ciB", f, "KMGTP"[i])
	}
	return strings.TrimSpace(shortCount(n) + " " + unit)
}

// shortCount writes a number of items shortly: "7", "12.3 k", "4.0 M".
func shortCount(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f G", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f M", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.1f k", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// cut shortens s to n runes.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}
