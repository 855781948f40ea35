package render

import (
	"strconv"
	"strings"
)

// appendPlainFrontMatter appends fields written without the encoder when every
// value reads back unchanged as a YAML plain scalar: the common case (a name, a
// one-line title, a flag), and the encoder plus the read-back are most of a render.
// It writes what the encoder would (plain_test.go checks that) and reports false,
// with dst as it was, for anything else.
func appendPlainFrontMatter(dst []byte, fields []field) ([]byte, bool) {
	out := dst
	for _, f := range fields {
		out = append(out, f.key...)
		out = append(out, ": "...)
		switch v := f.value.(type) {
		case string:
			if !isPlainSafe(v) {
				return dst, false
			}
			out = append(out, v...)
		case bool:
			out = strconv.AppendBool(out, v)
		default:
			return dst, false
		}
		out = append(out, '\n')
	}
	return out, true
}

// isPlainSafe accepts text that every YAML reader takes for the same string when
// written plain: it starts with a letter (or the < of an argument hint such as
// <text>, never the merge key <<), holds only letters, digits, spaces and
// punctuation that is inert mid-scalar in a block mapping, has no ": ", " #" or
// trailing space, and is no word YAML 1.1 reads as a boolean or null. Its length
// is not bounded: the encoder does not fold a plain scalar, and a skill's
// description, up to 1 024 characters, is most often longer than a line.
func isPlainSafe(s string) bool {
	if s == "" || !(isASCIILetter(s[0]) || len(s) > 1 && s[0] == '<' && isASCIILetter(s[1])) || s[len(s)-1] == ' ' || s[len(s)-1] == ':' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isASCIILetter(c), c >= '0' && c <= '9':
		case c == ' ':
			if i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '#') {
				return false
			}
		case strings.IndexByte(".,()/_-'<>?!#*&[]{}\"@%|=+;~$^`\\", c) >= 0:
		case c == ':':
			if i+1 < len(s) && s[i+1] == ' ' {
				return false
			}
		default:
			return false
		}
	}
	return !yaml11Word(s) && !strings.Contains(s, delimiter)
}

// yaml11Word says a YAML 1.1 reader takes s, written plain, for a boolean or
// null rather than the string.
func yaml11Word(s string) bool {
	if len(s) > len("false") {
		return false // a description, not a word: no lower-case copy of it
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~":
		return true
	}
	return false
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
