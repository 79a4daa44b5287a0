package executor

import (
	"fmt"
	"slices"

	"github.com/tcgen/tcgen/runtime/gpu"
)

// Measurement is what the timing routine reports of a run's timed passes,
// the same fields wherever passes are timed (count, tune, the interleaved
// finalists, sweep, bench; count's CPU oracle too): how the passes were
// taken (warm-ups, L2 flush), every pass, their median, min and max, and
// the distribution-free 95% confidence interval of the median (MedianCI).
type Measurement struct {
	Warmup    int       `json:"warmup"`
	Passes    int       `json:"passes"`
	SamplesMs []float64 `json:"samples_ms"`
	MedianMs  float64   `json:"median_ms"`
	MinMs     float64   `json:"min_ms"`
	MaxMs     float64   `json:"max_ms"`
	CILoMs    float64   `json:"ci_lo_ms"`
	CIHiMs    float64   `json:"ci_hi_ms"`
	// CI95 is false below 6 passes: the interval is then [min, max], which
	// covers the median with less than 95% probability.
	CI95 bool `json:"ci_95"`
	// FlushL2: a buffer of FlushBytes was written before each timed pass,
	// outside its timer, so every pass started with none of its data in
	// L2; FlushNote says why FlushBytes is not twice the device's L2.
	FlushL2    bool   `json:"flush_l2"`
	FlushBytes uint64 `json:"flush_bytes,omitempty"`
	FlushNote  string `json:"flush_note,omitempty"`
}

// Summarize is the Measurement of timed passes samples (ms, in order)
// taken after warmup untimed ones, without an L2 flush (Prepared.Run sets
// the flush fields). No samples give zeros.
func Summarize(samples []float64, warmup int) Measurement {
	m := Measurement{Warmup: warmup, Passes: len(samples), SamplesMs: slices.Clone(samples)}
	if len(samples) == 0 {
		return m
	}
	t := summarize(samples)
	m.MedianMs, m.MinMs, m.MaxMs = t.Median, t.Min, t.Max
	m.CILoMs, m.CIHiMs = MedianCI(samples)
	_, _, m.CI95 = MedianCIRanks(len(samples))
	return m
}

// flushFallbackBytes is the flush buffer when the device reports no L2
// size: 256 MiB is twice 128 MiB, well above the 50 MiB L2 of the GPUs
// tcgen is measured on (H100, H200), with room for larger ones.
const flushFallbackBytes = 256 << 20

// FlushBytes is how many bytes an L2 flush writes on a device with these
// facts: twice its L2, so a write of the whole buffer evicts every line a
// pass left there whatever the replacement policy keeps; note says why
// when the size is the fallback.
func FlushBytes(f gpu.DeviceFacts) (n uint64, note string) {
	if f.L2Bytes > 0 {
		return 2 * uint64(f.L2Bytes), ""
	}
	return flushFallbackBytes, fmt.Sprintf("the device reports no L2 size: %d MiB written", flushFallbackBytes>>20)
}

// flushL2 writes the flush buffer (allocated on first use, freed by
// Close): a memset, queued on the stream the pass timer's events and the
// kernels use, so it completes before the pass's start event and outside
// the timer. Device memory writes go through L2, so the memset leaves L2
// holding the buffer's lines and none of the graph's.
func (pr *Prepared) flushL2() error {
	if pr.flush == nil {
		n, _ := FlushBytes(pr.dev.Facts())
		b, err := pr.dev.Alloc(n)
		if err != nil {
			return fmt.Errorf("plan %s: allocating the L2 flush buffer (%d MiB): %w", pr.name, n>>20, err)
		}
		pr.buffers = append(pr.buffers, b)
		pr.flush = b
	}
	if err := pr.flush.Zero(); err != nil {
		return fmt.Errorf("plan %s: flushing L2: %w", pr.name, err)
	}
	return nil
}

// measurement is the Measurement of the whole passes a Run timed.
func (pr *Prepared) measurement(passes []float64, opt RunOptions) Measurement {
	m := Summarize(passes, max(opt.Warmup, 0))
	if opt.FlushL2 {
		m.FlushL2 = true
		m.FlushBytes, m.FlushNote = FlushBytes(pr.dev.Facts())
	}
	return m
}
