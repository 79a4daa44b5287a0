package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

// The version line and the stores' version key, from fake build info: a
// module version and the VCS revision, time and modified flag, "dev" for
// what the build lacks.
func TestBuildVersion(t *testing.T) {
	vcs := func(mod string, kv ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/tcgen/tcgen", Version: mod}}
		for i := 0; i+1 < len(kv); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return bi
	}
	const rev = "abc123456789def0123456789abcdef012345678"
	pseudo := "v0.0.0-20261126160000-abc123456789"
	for _, tc := range []struct {
		bi        *debug.BuildInfo
		line, key string
	}{
		{nil, "tcgen dev", "dev"},
		{vcs("(devel)"), "tcgen dev", "dev"},
		{vcs("v1.2.0"), "tcgen v1.2.0", "v1.2.0"},
		{vcs("(devel)", "vcs.revision", rev, "vcs.time", "2026-11-26T16:00:00Z", "vcs.modified", "false"),
			"tcgen dev (git abc123456789, 2026-11-26T16:00:00Z)", "abc123456789"},
		{vcs(pseudo+"+dirty", "vcs.revision", rev, "vcs.time", "2026-11-26T16:00:00Z", "vcs.modified", "true"),
			"tcgen " + pseudo + "+dirty (git abc123456789, 2026-11-26T16:00:00Z, modified)", pseudo + "+dirty"},
		{vcs(pseudo, "vcs.revision", rev), "tcgen " + pseudo + " (git abc123456789)", pseudo},
		{vcs("v1.2.0", "vcs.revision", rev, "vcs.modified", "true"), "tcgen v1.2.0 (git abc123456789, modified)", "v1.2.0+abc123456789-dirty"},
	} {
		b := readBuildVersion(tc.bi)
		if got := b.Line(); got != tc.line {
			t.Errorf("Line = %q, want %q", got, tc.line)
		}
		if got := b.Key(); got != tc.key {
			t.Errorf("Key = %q, want %q", got, tc.key)
		}
	}
}

// tcgen version and --version print the line of the running build.
func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		if got := strings.TrimSpace(out.String()); got != versionLine() || !strings.HasPrefix(got, "tcgen ") {
			t.Errorf("%v printed %q, want %q", args, got, versionLine())
		}
	}
}
