package registry

import (
	"fmt"
	"strings"

	"github.com/skillsync/skillsync/internal/printable"
)

// firstUnsafe finds the first rune of s that may not appear in it: in one-line text
// any control character, tab and line break included; in multi-line text (a skill
// body) the controls printable.Unsafe names, a carriage return only as part of CRLF.
// It returns the rune and its line, 1-based, within s.
func firstUnsafe(s string, multiLine bool) (r rune, line int, found bool) {
	line = 1
	for i, c := range s {
		switch {
		case c == '\n':
			if !multiLine {
				return c, line, true
			}
			line++
			continue
		case c == '\r' && multiLine && strings.HasPrefix(s[i:], "\r\n"):
			continue
		case c == '\t' && multiLine:
			continue
		case c == '\t' || printable.Unsafe(c) || c == '\r':
			return c, line, true
		}
	}
	return 0, 0, false
}

// singleLineText tells whether s holds no line break and no control character.
func singleLineText(s string) bool {
	_, _, bad := firstUnsafe(s, false)
	return !bad
}

func describeRune(r rune) string {
	switch r {
	case '\n':
		return "a line break"
	case '\r':
		return "a carriage return"
	case '\t':
		return "a tab"
	}
	return fmt.Sprintf("the control character U+%04X", r)
}

// oneLine refuses a field that is written on one line of a skill (its front matter,
// a sentence of its body) and holds a line break or a control character: it would
// end the line early, forge the file's structure, or act on a terminal that shows it.
func (v *validator) oneLine(pos place, field, value string) bool {
	r, _, bad := firstUnsafe(value, false)
	if bad {
		v.add(pos, "write it as one line of plain text; a line break or control character would change the skill's structure",
			"%s holds %s", field, describeRune(r))
	}
	return !bad
}

// bodyText refuses a workflow skill's body with control characters that are not
// text: an escape sequence acts on the terminal of whoever reads the file, and a
// bidi override makes it read differently from what the model gets.
func (v *validator) bodyText(s Skill) {
	r, line, bad := firstUnsafe(s.Body, true)
	if !bad {
		return
	}
	hint := "remove it; a skill body is plain text (tabs and line breaks are fine)"
	if s.BodyPath != "" {
		v.problems = append(v.problems, Problem{Pos: Position{File: s.BodyPath, Line: line},
			Message: fmt.Sprintf("bodyFile of skill %s holds %s", s.Name, describeRune(r)), Hint: hint})
		return
	}
	v.add(s.doc.at("spec", "body"), hint, "body holds %s on its line %d", describeRune(r), line)
}
