package schema

import (
	"strings"
	"unicode"

	"github.com/skillsync/skillsync/internal/printable"
)

// The patterns of text fields, built from the same rune classes the validator
// checks (desired/registry/text.go), as character classes of literal runes: Go's
// regular expressions and ECMA-262's read those alike.
var (
	lineChars    = "[^" + runeClass(breaksLine) + "]"
	notBlankLine = "^" + lineChars + "*[^" + runeClass(either(breaksLine, unicode.IsSpace)) + "]" + lineChars + "*$"
	wordPattern  = "^[^" + runeClass(either(breaksLine, oneOf("`<>"))) + "]+$"
	wordMessage  = "one line without control characters, backquotes, < or >"
	flagPattern  = orEmpty("^-[^" + runeClass(either(breaksLine, oneOf(" `<>"))) + "]*$")
	// A body may hold tabs and line breaks, a carriage return only before one.
	bodyPattern = "^(?:[^" + runeClass(printable.Unsafe) + "]|\r\n)*$"
)

// breaksLine tells the runes one line of text may not hold: every control
// character, tab and line break included, and those printable.Unsafe names.
func breaksLine(r rune) bool { return r == '\t' || r == '\n' || printable.Unsafe(r) }

func either(a, b func(rune) bool) func(rune) bool {
	return func(r rune) bool { return a(r) || b(r) }
}

func oneOf(chars string) func(rune) bool {
	return func(r rune) bool { return strings.ContainsRune(chars, r) }
}

// runeClass writes the runes in holds for as the inside of a character class, in
// ranges.
func runeClass(in func(rune) bool) string {
	var b strings.Builder
	write := func(r rune) {
		if strings.ContainsRune(`\]-^[`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !in(r) {
			continue
		}
		first := r
		for r < unicode.MaxRune && in(r+1) {
			r++
		}
		write(first)
		if r > first+1 {
			b.WriteByte('-')
		}
		if r > first {
			write(r)
		}
	}
	return b.String()
}
