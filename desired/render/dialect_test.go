package render

import (
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/clients"
)

// Text without a character of substituteStarts is taken as holding nothing a
// reader replaces or runs, unsearched: every match of every target's pattern
// must begin with one of them.
func TestEverySubstituteBeginsWithAnEscapedCharacter(t *testing.T) {
	checked := 0
	for _, target := range clients.Targets {
		d, ok := dialectOf(target.Name)
		if !ok || d.Substitutes == nil {
			continue
		}
		re, err := syntax.Parse(d.Substitutes.String(), syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		starts, known := firstRunes(re.Simplify())
		if !known {
			t.Errorf("%s: cannot tell what a match of %s begins with", target.Name, d.Substitutes)
			continue
		}
		for _, r := range starts {
			if !strings.ContainsRune(substituteStarts, r) {
				t.Errorf("%s: a match of %s may begin with %q, which is not in %q", target.Name, d.Substitutes, r, substituteStarts)
			}
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no target has a pattern of substitutes to check")
	}
}

// firstRunes are the runes a match of re can begin with, when re is made of
// literals, alternations, concatenations and groups, and matches no empty text.
func firstRunes(re *syntax.Regexp) ([]rune, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune[:1], re.Flags&syntax.FoldCase == 0
	case syntax.OpCapture:
		return firstRunes(re.Sub[0])
	case syntax.OpConcat:
		if len(re.Sub) == 0 {
			return nil, false
		}
		return firstRunes(re.Sub[0])
	case syntax.OpAlternate:
		var out []rune
		for _, sub := range re.Sub {
			rs, ok := firstRunes(sub)
			if !ok {
				return nil, false
			}
			out = append(out, rs...)
		}
		return out, true
	case syntax.OpCharClass:
		var out []rune
		for i := 0; i < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				out = append(out, r)
			}
		}
		return out, len(out) <= 64
	}
	return nil, false
}
