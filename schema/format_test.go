package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"unicode"
	"unicode/utf16"
)

// format writes a schema as the committed file holds it: indented by two spaces,
// keys in the generator's order, and every string readable in a diff: <, > and &
// as themselves (encoding/json escapes them for HTML), and each rune that would
// not show, a control character, a bidi override or a space other than ' ', as a
// \u escape.
func format(t *testing.T, data []byte) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var b bytes.Buffer
	// count is the number of keys and values written at each open level.
	type level struct {
		object bool
		count  int
	}
	var open []level
	newline := func() { b.WriteString("\n" + indent(len(open))) }
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			empty := open[len(open)-1].count == 0
			open = open[:len(open)-1]
			if !empty {
				newline()
			}
			b.WriteRune(rune(d))
			continue
		}
		if len(open) > 0 {
			top := &open[len(open)-1]
			if top.object && top.count%2 == 1 {
				b.WriteString(": ")
			} else {
				if top.count > 0 {
					b.WriteByte(',')
				}
				newline()
			}
			top.count++
		}
		switch v := tok.(type) {
		case json.Delim:
			b.WriteRune(rune(v))
			open = append(open, level{object: v == '{'})
		case string:
			writeString(&b, v)
		case nil:
			b.WriteString("null")
		default: // json.Number, bool
			fmt.Fprint(&b, v)
		}
	}
	b.WriteByte('\n')
	return b.Bytes()
}

func indent(depth int) string { return string(bytes.Repeat([]byte("  "), depth)) }

func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case !unicode.IsPrint(r): // controls, bidi overrides, spaces other than ' '
			for _, u := range utf16.Encode([]rune{r}) {
				fmt.Fprintf(b, `\u%04x`, u)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
