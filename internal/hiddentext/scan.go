package hiddentext

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// The kinds of finding, as skillsync.yaml names them to allow one.
const (
	Tag       = "tag"        // U+E0000–U+E007F, invisible ASCII
	Bidi      = "bidi"       // embeddings, overrides, isolates and marks
	ZeroWidth = "zero-width" // zero-width spaces, joiners and the like
	Control   = "control"    // C0 and C1 controls but tab, newline and carriage return
	Invisible = "invisible"  // other code points that render as nothing
	NotUTF8   = "not-utf8"   // bytes that are no UTF-8
)

// Kinds are every kind of finding in text.
var Kinds = []string{Tag, Bidi, ZeroWidth, Control, Invisible, NotUTF8}

// Finding is one hidden code point: where it is (line and column counted in
// code points, from 1) and what it is.
type Finding struct {
	Line, Column int
	Rune         rune
	Kind         string
}

// String names the code point: U+200B ZERO WIDTH SPACE.
func (f Finding) String() string {
	if f.Kind == NotUTF8 {
		return fmt.Sprintf("byte 0x%02X, which is no UTF-8", f.Rune)
	}
	if name, ok := names[f.Rune]; ok {
		return fmt.Sprintf("U+%04X %s", f.Rune, name)
	}
	switch {
	case f.Rune >= 0xE0020 && f.Rune <= 0xE007E:
		return fmt.Sprintf("U+%04X TAG %q", f.Rune, rune(f.Rune-0xE0000))
	case f.Rune >= 0xFE00 && f.Rune <= 0xFE0F, f.Rune >= 0xE0100 && f.Rune <= 0xE01EF:
		return fmt.Sprintf("U+%04X VARIATION SELECTOR", f.Rune)
	}
	return fmt.Sprintf("U+%04X", f.Rune)
}

var names = map[rune]string{
	0x00AD: "SOFT HYPHEN", 0x034F: "COMBINING GRAPHEME JOINER", 0x061C: "ARABIC LETTER MARK",
	0x115F: "HANGUL CHOSEONG FILLER", 0x1160: "HANGUL JUNGSEONG FILLER", 0x17B4: "KHMER VOWEL INHERENT AQ",
	0x17B5: "KHMER VOWEL INHERENT AA", 0x180E: "MONGOLIAN VOWEL SEPARATOR",
	0x200B: "ZERO WIDTH SPACE", 0x200C: "ZERO WIDTH NON-JOINER", 0x200D: "ZERO WIDTH JOINER",
	0x200E: "LEFT-TO-RIGHT MARK", 0x200F: "RIGHT-TO-LEFT MARK",
	0x202A: "LEFT-TO-RIGHT EMBEDDING", 0x202B: "RIGHT-TO-LEFT EMBEDDING", 0x202C: "POP DIRECTIONAL FORMATTING",
	0x202D: "LEFT-TO-RIGHT OVERRIDE", 0x202E: "RIGHT-TO-LEFT OVERRIDE",
	0x2060: "WORD JOINER", 0x2061: "FUNCTION APPLICATION", 0x2062: "INVISIBLE TIMES", 0x2063: "INVISIBLE SEPARATOR",
	0x2064: "INVISIBLE PLUS", 0x2066: "LEFT-TO-RIGHT ISOLATE", 0x2067: "RIGHT-TO-LEFT ISOLATE",
	0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE",
	0x3164: "HANGUL FILLER", 0x2800: "BRAILLE PATTERN BLANK", 0x2028: "LINE SEPARATOR", 0x2029: "PARAGRAPH SEPARATOR", 0xFEFF: "ZERO WIDTH NO-BREAK SPACE", 0xFFA0: "HALFWIDTH HANGUL FILLER",
	0xFFF9: "INTERLINEAR ANNOTATION ANCHOR", 0xFFFA: "INTERLINEAR ANNOTATION SEPARATOR", 0xFFFB: "INTERLINEAR ANNOTATION TERMINATOR",
	0xE0001: "LANGUAGE TAG", 0xE007F: "CANCEL TAG", 0x0000: "NULL", 0x001B: "ESCAPE", 0x007F: "DELETE",
}

// kindOf is the kind of finding r is, "" for a code point a reader sees (or
// one only emoji sequences use, which Scan judges in context).
func kindOf(r rune) string {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return ""
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return Control
	case r >= 0xE0000 && r <= 0xE007F:
		return Tag
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return Bidi
	case r == 0x200B, r == 0x200C, r == 0x200D, r == 0x2060, r == 0xFEFF, r == 0x180E:
		return ZeroWidth
	case r == 0x2028, r == 0x2029:
		return Control
	case r == 0x00AD, r == 0x034F, r == 0x115F, r == 0x1160, r == 0x17B4, r == 0x17B5, r == 0x3164, r == 0xFFA0, r == 0x2800,
		r >= 0x180B && r <= 0x180D, r == 0x180F,
		r >= 0x2061 && r <= 0x2064, r >= 0xFFF9 && r <= 0xFFFB, r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return Invisible
	case unicode.Is(unicode.Cf, r):
		return Invisible
	}
	return ""
}

// emoji tells whether r is an emoji a joiner may join to another: the
// ranges of Extended_Pictographic.
func emoji(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF, r >= 0x2600 && r <= 0x27BF, r >= 0x2300 && r <= 0x23FF,
		r >= 0x2B00 && r <= 0x2BFF, r >= 0x2190 && r <= 0x21FF, r >= 0x2900 && r <= 0x297F,
		r == 0x00A9, r == 0x00AE, r == 0x203C, r == 0x2049, r == 0x2122, r == 0x2139, r == 0x3030, r == 0x303D,
		r == 0x3297, r == 0x3299:
		return true
	}
	return false
}

// presentable tells whether a text or emoji presentation selector (U+FE0E,
// U+FE0F) may follow r: an emoji, or a keycap's base.
func presentable(r rune) bool {
	return emoji(r) || (r >= '0' && r <= '9') || r == '#' || r == '*'
}

// Scan finds every hidden code point of text. Emoji sequences are what they
// look like, not hidden text: a zero-width joiner between two emoji, a
// variation selector after an emoji (U+FE0F, U+FE0E), and the tags of a
// subdivision flag (U+1F3F4, then tag letters and digits, then U+E007F).
func Scan(text []byte) []Finding { return scan(text, true) }

// ScanValue is Scan of a value that is no file of its own (a title, a name):
// a byte order mark at its start is hidden text too, since only a file's first
// bytes may hold one.
func ScanValue(text string) []Finding { return scan([]byte(text), false) }

// scan is Scan, a byte order mark at the start of text allowed when mark says.
func scan(text []byte, mark bool) []Finding {
	var out []Finding
	line, col := 1, 0
	// prev is the last code point a joiner or a selector may follow, -1 for
	// none; selected says a presentation selector followed it already.
	var prev rune = -1
	selected := false
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		col++
		if r == utf8.RuneError && size == 1 {
			out = append(out, Finding{Line: line, Column: col, Rune: rune(text[i]), Kind: NotUTF8})
			i++
			prev = -1
			continue
		}
		if r == '\n' {
			line, col, prev = line+1, 0, -1
			i += size
			continue
		}
		kind := kindOf(r)
		switch {
		case kind == "":
		case r == 0x200D && emoji(prev) && i+size < len(text) && emoji(nextRune(text[i+size:])):
			kind = ""
		case (r == 0xFE0F || r == 0xFE0E) && presentable(prev) && !selected:
			// One selector a base: more would be a channel of bits.
			kind, selected = "", true
			i += size
			continue
		case r == 0xFEFF && i == 0 && mark:
			kind = "" // a byte order mark, at the start alone
		case kind == Tag:
			if n := flagTags(text, i, prev); n > 0 {
				col += utf8.RuneCount(text[i:i+n]) - 1
				i += n
				prev = -1 // a flag ends with its cancel tag: no second one follows
				continue
			}
		}
		if kind != "" {
			out = append(out, Finding{Line: line, Column: col, Rune: r, Kind: kind})
		}
		if r != 0x200D {
			prev, selected = r, false
		}
		i += size
	}
	return out
}

func nextRune(b []byte) rune {
	r, _ := utf8.DecodeRune(b)
	return r
}

// flagTags is the length in bytes of the tag sequence of a subdivision flag
// that starts at text[i] after prev (U+1F3F4 for a flag), as Unicode writes
// one: a region's two tag letters, then one to four tag letters or digits of
// the subdivision, ended by U+E007F; 0 when it is none.
func flagTags(text []byte, i int, prev rune) int {
	if prev != 0x1F3F4 {
		return 0
	}
	n, tags := 0, 0
	for i+n < len(text) && tags <= 6 {
		r, size := utf8.DecodeRune(text[i+n:])
		switch {
		case r == 0xE007F && tags >= 3:
			return n + size
		case r >= 0xE0061 && r <= 0xE007A, r >= 0xE0030 && r <= 0xE0039 && tags >= 2:
			tags++
			n += size
		default:
			return 0
		}
	}
	return 0
}
