package main

import (
	"slices"
	"strings"
	"testing"
)

// TestComplete: the words offered after what was typed (descriptions
// dropped), and whether file names fit there.
func TestComplete(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  []string // all of these, and nothing that lacks the prefix typed
		files bool
	}{
		{[]string{"co"}, []string{"count", "convert", "completion"}, false},
		{[]string{"graph", ""}, []string{"rmat", "er", "grid", "complete", "bipartite", "wheel"}, false},
		{[]string{"count", "--pre"}, []string{"--preset"}, false},
		{[]string{"count", "--preset", "tr"}, []string{"tricore", "trust"}, false},
		{[]string{"count", "--preset=tr"}, []string{"--preset=tricore", "--preset=trust"}, false},
		{[]string{"count", "--preset", "=", "tr"}, []string{"tricore", "trust"}, false}, // bash's split of --preset=tr
		{[]string{"count", "--backend", "="}, []string{"auto", "cpu", "gpu"}, false},
		{[]string{"count", "g.txt", "--backend", ""}, []string{"auto", "cpu", "gpu"}, false},
		{[]string{"count", "--spec", "two"}, []string{"two-class"}, true},
		{[]string{"tune", "g.txt", "--space", ""}, []string{"default", "large", "one_launch", "small"}, true},
		{[]string{"sweep", "rec"}, []string{"record", "record-large"}, true},
		{[]string{"count", ""}, nil, true},
		{[]string{"count", "g.txt", "--json", "--cache-dir", ""}, nil, true},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}, false},
		{[]string{"help", "graph", "r"}, []string{"rmat"}, false},
		{[]string{"count", "g.txt", "--q"}, []string{"--quiet"}, false}, // a global flag after the command
	} {
		var cli CLI
		parser := mustParser(t, &cli)
		words := c.words
		cands, files := completions(parser.Model, words[:len(words)-1], words[len(words)-1])
		var got []string
		for _, cand := range cands {
			w, _, _ := strings.Cut(cand, "\t")
			got = append(got, w)
		}
		prefix := strings.TrimPrefix(words[len(words)-1], "=")
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: %q not offered (got %q)", c.words, w, got)
			}
		}
		for _, w := range got {
			if !strings.HasPrefix(w, prefix) {
				t.Errorf("%q: %q does not start with %q", c.words, w, prefix)
			}
		}
		if c.want == nil && len(got) > 0 {
			t.Errorf("%q: offered %q, want nothing", c.words, got)
		}
		if files != c.files {
			t.Errorf("%q: files %v, want %v", c.words, files, c.files)
		}
	}
}

// TestCompleteCommand: the hidden command prints candidates, then the
// directive line.
func TestCompleteCommand(t *testing.T) {
	code, out, _ := runCLI(t, completeCommand, "count", "--backend", "g")
	if code != exitOK || out != "gpu\n:words\n" {
		t.Errorf("exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, "completion", "zsh")
	if code != exitOK || !strings.HasPrefix(out, "#compdef tcgen\n") || !strings.Contains(out, completeCommand) {
		t.Errorf("completion zsh: exit %d\n%s", code, out)
	}
}
