package registry

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// Each name matcher agrees with its pattern, compiled as a regular expression,
// on every short name of the bytes that matter to them and on random longer ones.
func TestNameMatchersAgreeWithTheirPatterns(t *testing.T) {
	matchers := []struct {
		pattern string
		match   func(string) bool
	}{
		{SkillNamePattern, isSkillName},
		{CapabilityIDPattern, isCapabilityID},
		{DottedNamePattern, isDottedName},
		{MCPNamePattern, isMCPName},
		{MCPToolNamePattern, isMCPToolName},
	}
	const alphabet = "aZ9._-/ \n\xff"
	var names []string
	var grow func(prefix string)
	grow = func(prefix string) {
		names = append(names, prefix)
		if len(prefix) == 4 {
			return
		}
		for i := 0; i < len(alphabet); i++ {
			grow(prefix + alphabet[i:i+1])
		}
	}
	grow("")
	rng := rand.New(rand.NewPCG(1, 2))
	const rich = "abcxyzABCXYZ0189._-é"
	runes := []rune(rich)
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(140) {
			b.WriteRune(runes[rng.IntN(len(runes))])
		}
		names = append(names, b.String())
	}
	names = append(names, strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("a", 128), strings.Repeat("a", 129),
		"a.b", "a..b", ".a.b", "a.b.", "-a.b", "a.-b", "a_b.c-d", "intents.propose", "propose-intent")
	for _, m := range matchers {
		re := regexp.MustCompile(m.pattern)
		matched := 0
		for _, name := range names {
			want := re.MatchString(name)
			if got := m.match(name); got != want {
				t.Errorf("%s: %q matched %v, the pattern says %v", m.pattern, name, got, want)
			}
			if want {
				matched++
			}
		}
		if matched == 0 || matched == len(names) {
			t.Errorf("%s: %d of %d names match: the names do not tell the matcher apart", m.pattern, matched, len(names))
		}
	}
}
