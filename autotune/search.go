// Package autotune searches the design space for the fastest exact plan of a
// graph on a GPU: a finite space of candidate plans (space.go,
// space_expand.go), strategies that choose which to measure
// (strategy_*.go), evaluators that verify and time a candidate on the GPU or
// replay recorded measurements (eval.go, replay.go), and a model that predicts a plan for an unseen graph from the
// tuning store (model.go).
package autotune

import (
	"strconv"
	"strings"
)

// Dim is one axis of a search space.
type Dim struct {
	Name string `json:"name"`
	// Values are the labels of the axis's values, in order.
	Values []string `json:"values"`
	// Ordered axes (thresholds, sizes, counts) are searched as ordered
	// values: line search and bisection apply; the others are categories.
	Ordered bool `json:"ordered,omitempty"`
	// Parent names the dimension whose value decides what this one means:
	// a class slot's width and parameters belong to its strategy, a cut and
	// the second slot to the class count, a generated plan's axes to the
	// plan axis (-1 there: a generated plan). The axes form a tree: where
	// Parent is set, -1 here means the branch does not have this axis.
	// "" for a root axis, where -1 is a value like the others.
	Parent string `json:"parent,omitempty"`
}

// Point gives each dimension of a space the index of its value, or -1 where
// the dimension does not apply to the point (a parameter of a strategy the
// point does not use, the cut of a class it does not have).
type Point []int

// Key is the point's stable text form ("3,-1,0").
func (p Point) Key() string {
	var b strings.Builder
	for i, x := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(x))
	}
	return b.String()
}

// Candidates is a finite search space after its restrictions: the axes and
// every valid point, each with the name of the plan it stands for
// (ir.Plan.Name(); two points never share a plan).
type Candidates struct {
	Name   string   `json:"name"`
	Dims   []Dim    `json:"dims"`
	Points []Point  `json:"points"`
	Plans  []string `json:"plans"`
	// Culled lists the points the restrictions removed, with the reason
	// (sweep --dry-run prints them).
	Culled []Culled `json:"culled,omitempty"`
}

// Culled is a point a restriction removed before anything was compiled.
type Culled struct {
	Point  Point  `json:"point"`
	Label  string `json:"label"`
	Reason string `json:"reason"`
}

// Result is one evaluation of a candidate.
type Result struct {
	// Score is the median pass time in ms; +Inf when not OK, so a failure
	// is never chosen.
	Score float64
	OK    bool
	// Reason says why a candidate failed (wrong count, compile or launch
	// error), empty when OK.
	Reason  string
	Samples []float64 // the timed passes, ms
	// Cached: the measurement came from the store or an earlier
	// evaluation in this search; it costs no GPU time.
	Cached bool
}

// Evaluator measures candidate i of the space with runs timed passes (after
// its warm-ups). The error is only for what must stop the search (the
// context cancelled, the GPU lost); a candidate's own failure is a Result
// with OK false.
type Evaluator interface {
	Evaluate(i, runs int) (Result, error)
}

// Prefetcher is implemented by evaluators that can prepare candidates ahead
// (generate and compile them in parallel goroutines while the GPU times
// another). Strategies call Session.Prefetch with what they will evaluate
// next; it is only a hint.
type Prefetcher interface {
	Prefetch(is []int)
}

// Paralleler is implemented by prefetchers that prepare several candidates
// at once (compile workers): in-order strategies hint twice that many ahead.
type Paralleler interface {
	Parallel() int
}

// Busier is implemented by evaluators that know when another process is
// measuring a candidate (a live lease in a shared tuning store): in-order
// strategies measure other candidates first and come back to it, when its
// evaluation reads the other's row.
type Busier interface {
	Busy(i int) bool
}
