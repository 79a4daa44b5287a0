package gen

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/tcgen/tcgen/ir"
)

// hasWord finds what the regular expression \bw\b (\bw for a w ending in
// a non-word character) finds, on every generated class of the presets and
// of random plans, and on edge cases.
func TestHasWord(t *testing.T) {
	codes := []string{"", "TEAM", "xTEAM", "TEAMx", "TEAM_", "(TEAM)", "a TEAMS TEAM", "myglane(", "glane(x)", "_gsync(", " gsync(", "tmask", "ID_ORDERED;", "ID_ORDERED1 ID_ORDERED"}
	rng := rand.New(rand.NewPCG(3, 5))
	plans := ir.Presets()
	for range 40 {
		plans = append(plans, ir.RandomPlan(rng))
	}
	for _, p := range plans {
		if out, err := Generate(p, DefaultTarget()); err == nil {
			codes = append(codes, out.Source)
		}
	}
	for _, w := range []string{"TEAM", "ID_ORDERED", "glane(", "gindex(", "tmask(", "gsync("} {
		pat := `\b` + regexp.QuoteMeta(w)
		if isWordByte(w[len(w)-1]) {
			pat += `\b`
		}
		re := regexp.MustCompile(pat)
		for _, c := range codes {
			if got, want := hasWord(c, w), re.MatchString(c); got != want {
				t.Errorf("hasWord(%.40q, %q) = %v, the regular expression says %v", c, w, got, want)
			}
		}
	}
}
