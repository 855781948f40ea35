package registry

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

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
	if s.Dir != "" {
		v.problems = append(v.problems, Problem{Pos: Position{File: path.Join(s.Dir, "SKILL.md"), Line: s.bodyLine + line - 1},
			Message: fmt.Sprintf("the body of skill %s holds %s", s.Name, describeRune(r)), Hint: hint})
		return
	}
	if s.BodyPath != "" {
		v.problems = append(v.problems, Problem{Pos: Position{File: s.BodyPath, Line: line},
			Message: fmt.Sprintf("bodyFile of skill %s holds %s", s.Name, describeRune(r)), Hint: hint})
		return
	}
	v.add(s.doc.at("spec", "body"), hint, "body holds %s on its line %d", describeRune(r), line)
}

// maxFileValues bounds the values of one input file, counted by what can separate
// them (line breaks, commas, colons, dashes, brackets) before it is parsed: the
// parser's node tree takes about 200 bytes a value, so a file of 16 MiB of "1,"
// would take gigabytes. A registry of 10 000 capabilities in one file has about
// 400 000.
const maxFileValues = 500_000

// checkBytes finds what the YAML parser would refuse without a line, or count as a
// line break where an editor shows none: a byte that is not UTF-8, a control
// character other than tab and line feed, a carriage return outside CRLF, NEL,
// U+2028 and U+2029. It names the first at its line and column, counted as an
// editor counts them (lines end at \n only).
func checkBytes(file string, data []byte) *Problem {
	line, col, values := 1, 1, 0
	for i := 0; i < len(data); {
		c := data[i]
		if c == ',' || c == ':' || c == '-' || c == '[' || c == '{' {
			values++
		}
		if c >= 0x20 && c < 0x7f || c == '\t' {
			i, col = i+1, col+1
			continue
		}
		if values > maxFileValues {
			return tooManyValues(file, line)
		}
		if c == '\n' {
			i, line, col, values = i+1, line+1, 1, values+1
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		what := ""
		switch {
		case r == utf8.RuneError && size == 1:
			what = fmt.Sprintf("the byte 0x%02X, which is not UTF-8", c)
		case r == '\r' && i+1 < len(data) && data[i+1] == '\n':
		case r == '\r':
			what = "a carriage return that ends no line (CRLF is fine)"
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029:
			what = describeRune(r)
		}
		if what != "" {
			return &Problem{Pos: Position{File: file, Line: line, Column: col}, Message: "holds " + what,
				Hint: "a registry file is text; write a control character as an escape in a double-quoted string, like \"\\e\", if it is meant"}
		}
		i, col = i+size, col+1
	}
	if values > maxFileValues { // a last line with no line break after it
		return tooManyValues(file, line)
	}
	return nil
}

func tooManyValues(file string, line int) *Problem {
	return &Problem{Pos: Position{File: file, Line: line}, Message: fmt.Sprintf("holds more than %d values, the most skillsync reads from one file", maxFileValues),
		Hint: "split the registry into several files a glob matches"}
}
