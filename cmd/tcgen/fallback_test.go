package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tcgen/tcgen/ir"
	"github.com/tcgen/tcgen/runtime/executor"
)

// TestPrepareChosen: a plan tcgen chose that cannot take the graph is
// replaced by the first fallback that can, with a one-line notice naming
// the plan, the reason and the replacement; a plan the user named, and
// failures of other kinds, keep their error.
func TestPrepareChosen(t *testing.T) {
	def, err := PlanArg{}.plan()
	if err != nil {
		t.Fatal(err)
	}
	small, _ := PlanArg{Spec: "small.yaml"}.plan()
	even, _ := PlanArg{Spec: "even.yaml"}.plan()
	limit := &executor.LimitError{Why: "570319006818 wedges: too many (test)"}
	large := &executor.TooLargeError{Plan: "x", Device: "fake", Need: 3 << 30, Have: 1 << 30}
	other := errors.New("compile failed (test)")
	for _, tc := range []struct {
		name, source string
		fails        map[string]error // by plan name
		want         string           // the plan that runs, "" for an error
		wantErr      error
		notices      []string
	}{
		{name: "fits", source: "default", want: def.Name()},
		{name: "named", source: "", fails: map[string]error{def.Name(): limit}, wantErr: limit},
		{name: "limit", source: "default", fails: map[string]error{def.Name(): fmt.Errorf("plan %s: %w", def.Name(), limit)}, want: small.Name(),
			notices: []string{fmt.Sprintf("plan: %s (default) cannot take this graph: %s; counting with %s (examples/small.yaml) instead", def.Name(), limit.Why, small.Name())}},
		{name: "too large twice", source: "store", fails: map[string]error{def.Name(): large, small.Name(): large}, want: even.Name(),
			notices: []string{
				fmt.Sprintf("plan: %s (store) cannot take this graph: needs 3072 MiB of device memory, fake has 1024 MiB usable; counting with %s (examples/small.yaml) instead", def.Name(), small.Name()),
				fmt.Sprintf("plan: %s (fallback) cannot take this graph: needs 3072 MiB of device memory, fake has 1024 MiB usable; counting with %s (examples/even.yaml) instead", small.Name(), even.Name())}},
		{name: "none fits", source: "model", fails: map[string]error{def.Name(): large, small.Name(): large, even.Name(): large}, wantErr: large,
			notices: []string{fmt.Sprintf("plan: %s (model) cannot take this graph: needs 3072 MiB", def.Name())}},
		{name: "other", source: "default", fails: map[string]error{def.Name(): other}, wantErr: other},
		{name: "fallback fails otherwise", source: "default", fails: map[string]error{def.Name(): limit, small.Name(): other}, wantErr: other,
			notices: []string{fmt.Sprintf("plan: %s (default) cannot take this graph: %s", def.Name(), limit.Why)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			g := &Globals{ctx: context.Background(), stderr: &stderr}
			var tried []string
			_, p, src, err := g.prepareChosen(def, tc.source, func(p ir.Plan) (*executor.Prepared, error) {
				tried = append(tried, p.Name())
				return nil, tc.fails[p.Name()]
			})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v (tried %v)", err, tc.wantErr, tried)
				}
			} else if err != nil || p.Name() != tc.want {
				t.Fatalf("ran %s (%s), err %v; want %s", p.Name(), src, err, tc.want)
			} else if wantSrc := map[bool]string{true: tc.source, false: "fallback"}[tc.want == def.Name()]; src != wantSrc {
				t.Errorf("source %q, want %q", src, wantSrc)
			}
			got := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
			ok := len(tc.notices) == 0 && stderr.Len() == 0 || len(got) >= len(tc.notices)
			for i := range tc.notices {
				ok = ok && strings.HasPrefix(got[i], tc.notices[i])
			}
			if !ok {
				t.Errorf("notices:\n%s\nwant:\n%s", stderr.String(), strings.Join(tc.notices, "\n"))
			}
		})
	}
}
