package printable

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Unsafe tells whether r would act on a terminal or reorder what is shown rather
// than be shown itself: C0 and C1 controls and DEL (tab and newline aside, which
// callers print on purpose), U+2028 and U+2029, and the bidi embeddings, overrides
// and isolates that can make text read differently from what it is.
func Unsafe(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// clean tells whether p needs no escape.
func clean(p []byte) bool {
	for i := 0; i < len(p); {
		if c := p[i]; c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' {
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if (r == utf8.RuneError && size == 1) || Unsafe(r) {
			return false
		}
		i += size
	}
	return true
}

func appendEscaped(dst, p []byte) []byte {
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = fmt.Appendf(dst, `\x%02x`, p[i])
		case Unsafe(r):
			dst = fmt.Appendf(dst, `\u%04x`, r)
		default:
			dst = append(dst, p[i:i+size]...)
		}
		i += size
	}
	return dst
}

// Writer writes every unsafe rune as \uXXXX and every byte that is not UTF-8 as
// \xNN. A \uXXXX escape is also valid inside a JSON string, so the same escaping
// serves text and JSON output. Every writer of human output goes through one, so
// nothing reaches the terminal raw even where a caller forgot to escape. A
// multi-byte character split across two writes is escaped as the bytes it was
// split into; every caller here writes whole strings.
type Writer struct{ w io.Writer }

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p, escaped; it reports len(p) when all of it was written.
func (pw *Writer) Write(p []byte) (int, error) {
	if clean(p) {
		if _, err := pw.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if _, err := pw.w.Write(appendEscaped(make([]byte, 0, len(p)+16), p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// String is s with every unsafe rune and byte that is not UTF-8 escaped as Writer
// escapes them, for text that goes into a message before it is written.
func String(s string) string {
	if clean([]byte(s)) {
		return s
	}
	return string(appendEscaped(nil, []byte(s)))
}

// OneLine tells whether s prints as itself on one line: valid UTF-8 without a
// tab, a line break or another unsafe rune. A name that does not would print as
// something else, or as more than one line, the next of which could pass for
// another line of output.
func OneLine(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return r == '\t' || r == '\n' || Unsafe(r) })
}

// Name is s as a message, a listing or a comment names it: s itself when it
// prints as itself on one line (OneLine), else quoted, with Go's escapes.
func Name(s string) string {
	if OneLine(s) {
		return s
	}
	return strconv.Quote(s)
}
