package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// revLen is how many hex digits of the VCS revision tcgen shows and keys
// rows by: git's full 40 are noise, 12 are unique in any real history.
const revLen = 12

// buildVersion is what the Go toolchain stamped into the binary: the main
// module's version and, for a build inside a checkout, its VCS revision,
// commit time and whether the work tree had uncommitted changes.
type buildVersion struct {
	Module   string // "" for none or "(devel)"
	Revision string // at most revLen hex digits
	Time     string // commit time, RFC 3339
	Modified bool
}

// readBuildVersion reads bi (nil: no build information).
func readBuildVersion(bi *debug.BuildInfo) buildVersion {
	var b buildVersion
	if bi == nil {
		return b
	}
	if v := bi.Main.Version; v != "(devel)" {
		b.Module = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value[:min(len(s.Value), revLen)]
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// Line is what `tcgen version` prints, e.g.
// "tcgen v0.0.0-... (git abc123456789, 2026-11-26T16:00:00Z, modified)";
// "dev" stands for a part the build information lacks.
func (b buildVersion) Line() string {
	mod := b.Module
	if mod == "" {
		mod = "dev"
	}
	if b.Revision == "" {
		return "tcgen " + mod
	}
	parts := []string{"git " + b.Revision}
	if b.Time != "" {
		parts = append(parts, b.Time)
	}
	if b.Modified {
		parts = append(parts, "modified")
	}
	return fmt.Sprintf("tcgen %s (%s)", mod, strings.Join(parts, ", "))
}

// Key is the version written into caches and tuning store rows: the module
// version and the VCS revision (a pseudo-version already holds it), with
// "-dirty" for a modified tree; "dev" when the build has neither. It changes
// with every commit, so a cache from another build is stale.
func (b buildVersion) Key() string {
	v := b.Module
	switch {
	case v == "" && b.Revision == "":
		return "dev"
	case v == "":
		v = b.Revision
	case b.Revision != "" && !strings.Contains(v, b.Revision):
		v += "+" + b.Revision
	}
	if b.Modified && !strings.HasSuffix(v, "dirty") { // Go 1.24 pseudo-versions end "+dirty" already
		v += "-dirty"
	}
	return v
}

// thisBuild is the running binary's buildVersion.
func thisBuild() buildVersion {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return readBuildVersion(nil)
	}
	return readBuildVersion(bi)
}

// toolVersion is thisBuild's Key.
func toolVersion() string { return thisBuild().Key() }

// versionLine is thisBuild's Line.
func versionLine() string { return thisBuild().Line() }
