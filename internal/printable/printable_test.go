package printable

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestWriterEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text, tabs\tand\nnewlines", "plain text, tabs\tand\nnewlines"},
		{"ünï 🚀 — fine", "ünï 🚀 — fine"},
		{"\x1b[31mred\x1b[0m", `\u001b[31mred\u001b[0m`},
		{"bell\a and cr\r", `bell\u0007 and cr\u000d`},
		{"del\x7f", `del\u007f`},
		{"c1 \u009b csi, nel \u0085", `c1 \u009b csi, nel \u0085`},
		{"line\u2028para\u2029", `line\u2028para\u2029`},
		{"abc\u202edcba\u2066x\u2069", `abc\u202edcba\u2066x\u2069`},
		{"raw \x9b byte", `raw \x9b byte`},
		{"cut \xe2\x80", `cut \xe2\x80`},
	} {
		var buf bytes.Buffer
		if _, err := NewWriter(&buf).Write([]byte(c.in)); err != nil || buf.String() != c.want {
			t.Errorf("Write(%q) wrote %q (%v), want %q", c.in, buf.String(), err, c.want)
		}
	}
}

// An escaped JSON document is still JSON, and decodes to the unescaped text but for
// what JSON itself escapes: the writer can sit under -o json as well.
func TestWriterKeepsJSONValid(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	doc := map[string]string{"path": ".claude/skills/\x1b[2J\u202ex\x7f\u0085/SKILL.md"}
	if err := json.NewEncoder(w).Encode(doc); err != nil {
		t.Fatal(err)
	}
	if !clean(buf.Bytes()) {
		t.Fatalf("unsafe bytes left: %q", buf.String())
	}
	var back map[string]string
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("escaped output is no longer JSON: %v\n%s", err, buf.String())
	}
	if back["path"] != doc["path"] {
		t.Fatalf("decoded %q, want %q", back["path"], doc["path"])
	}
}

func TestWriterReportsWhatWasGiven(t *testing.T) {
	var buf bytes.Buffer
	n, err := NewWriter(&buf).Write([]byte("a\x1bb"))
	if err != nil || n != 3 {
		t.Fatalf("Write = %d, %v; want 3, nil", n, err)
	}
	if buf.String() != `a\u001bb` {
		t.Fatalf("wrote %q", buf.String())
	}
}

func TestANameThatWouldNotPrintAsOneLineIsQuoted(t *testing.T) {
	for s, want := range map[string]string{
		"registry/caps.yaml":    "registry/caps.yaml",
		"skills/café/a b.md":    "skills/café/a b.md",
		"a\n  disabled: [evil]": `"a\n  disabled: [evil]"`,
		"a\tb":                  `"a\tb"`,
		"a\rb":                  `"a\rb"`,
		"a\x1b[2J":              `"a\x1b[2J"`,
		"a\u2028b":              `"a\u2028b"`,
		"evil\u202egnp.md":      `"evil\u202egnp.md"`,
		"\xff.md":               `"\xff.md"`,
	} {
		if got := Name(s); got != want {
			t.Errorf("Name(%q) = %s, want %s", s, got, want)
		}
	}
}
