package main

import (
	"fmt"

	"github.com/tcgen/tcgen/runtime/executor"
)

// flushText says whether the L2 was flushed before each timed pass.
func flushText(flushed bool) string {
	if flushed {
		return "L2 flushed before each pass"
	}
	return "L2 not flushed between passes"
}

// ciText is a measurement's confidence interval, passes, warm-ups and,
// on the GPU, L2 flush, as count prints them under the median.
func ciText(m *executor.Measurement, gpu bool) string {
	ci := "95% CI of the median"
	if !m.CI95 {
		ci = "min-max (below 6 runs no interval reaches 95%)"
	}
	line := fmt.Sprintf("%s %.4f-%.4f, %d runs after %d warm-ups", ci, m.CILoMs, m.CIHiMs, m.Passes, m.Warmup)
	if !gpu {
		return line
	}
	flush := flushText(m.FlushL2)
	if m.FlushL2 {
		flush = fmt.Sprintf("%s (%d MiB written)", flush, m.FlushBytes>>20)
		if m.FlushNote != "" {
			flush += ": " + m.FlushNote
		}
	}
	return line + ", " + flush
}
