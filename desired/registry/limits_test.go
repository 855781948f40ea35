package registry

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// bomb is a capability whose input schema is a billion-laughs alias bomb of levels
// levels, nine aliases each: 9^levels strings in about 40 bytes a level.
func bomb(levels int) string {
	var b strings.Builder
	b.WriteString("apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: bomb.one}\nspec:\n  title: Bomb\n  effect: read\n  input:\n")
	b.WriteString(`    l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i < levels; i++ {
		a := fmt.Sprintf("*l%d", i-1)
		fmt.Fprintf(&b, "    l%d: &l%d [%s]\n", i, i, strings.Repeat(a+",", 8)+a)
	}
	return b.String()
}

func TestAliasBombIsRefusedAtItsLine(t *testing.T) {
	// 9^12 values: far beyond memory if expanded; the check must not expand it.
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, ps := parseDocuments("registry/bomb.yaml", []byte(bomb(12)))
	runtime.ReadMemStats(&after)
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "aliases expand the document to more than 100000 values") {
		t.Fatalf("problems = %v, want one about aliases", ps)
	}
	// l5 stands for 9^6 values, past the limit: the first alias of it, on l6's
	// line, is where the document passes it.
	if ps[0].Pos.Line != 14 || ps[0].Pos.File != "registry/bomb.yaml" {
		t.Errorf("position %s, want registry/bomb.yaml:14", ps[0].Pos)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 10<<20 {
		t.Errorf("checking the bomb allocated %d bytes; the check must not expand it", grew)
	}
}

func TestAliasesWithinTheLimitAreRead(t *testing.T) {
	doc := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: merged.one}\nspec:\n  title: Merged\n  effect: read\n" +
		"  input:\n    $defs:\n      text: &text {type: string, maxLength: 100}\n    type: object\n    properties:\n      a: *text\n      b: {<<: *text, description: second}\n"
	docs, ps := parseDocuments("registry/ok.yaml", []byte(doc))
	if len(ps) > 0 || len(docs) != 1 {
		t.Fatalf("problems %v, documents %d", ps, len(docs))
	}
	// 5 levels of 9: 59 049 strings, under the limit.
	if _, ps := parseDocuments("registry/small.yaml", []byte(bomb(5))); len(ps) > 0 {
		t.Fatalf("a document of 59 049 values was refused: %v", ps)
	}
}

func TestNestingDeeperThanTheLimitIsRefusedWhereItPassesIt(t *testing.T) {
	nested := func(levels int) string {
		return "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: deep.one}\nspec:\n  title: Deep\n  effect: read\n  input:\n" +
			strings.Repeat("  ", 2) + strings.Repeat("{a: ", levels) + "1" + strings.Repeat("}", levels) + "\n"
	}
	// The document's mapping, spec and input are three levels; each {a: adds one,
	// and the scalar inside the last one more.
	if _, ps := parseDocuments("registry/deep.yaml", []byte(nested(maxDepth-4))); len(ps) > 0 {
		t.Fatalf("a document exactly %d levels deep was refused: %v", maxDepth, ps)
	}
	_, ps := parseDocuments("registry/deep.yaml", []byte(nested(5000)))
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "nests 5003 levels deep here, more than the 128") {
		t.Fatalf("problems = %v", ps)
	}
	// Past the limit about 126 "{a: " into line 8, not at the start of the document.
	if p := ps[0].Pos; p.Line != 8 || p.Column < 4*120 || p.Column > 4*130 {
		t.Errorf("position %s, want line 8 near column %d", p, 4*(maxDepth-2))
	}
}

func TestNestingThroughAnAliasIsRefusedAtTheAlias(t *testing.T) {
	doc := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: deep.two}\nspec:\n  title: Deep\n  effect: read\n" +
		"  input:\n    x: &deep " + strings.Repeat("[", 120) + strings.Repeat("]", 120) + "\n    y: [[[[[[[[[[*deep]]]]]]]]]]\n"
	_, ps := parseDocuments("registry/deep.yaml", []byte(doc))
	if len(ps) != 1 || ps[0].Pos.Line != 9 || !strings.Contains(ps[0].Message, "nests") {
		t.Fatalf("problems = %v, want one at the alias on line 9", ps)
	}
}

// Bytes the YAML parser refuses without a line, or takes for a line break where an
// editor shows none, are named at their line and column.
func TestRawControlBytesAreNamedWhereTheyAre(t *testing.T) {
	for _, c := range []struct {
		raw, what string
		col       int
	}{
		{"\x1b", "U+001B", 14}, {"\a", "U+0007", 14}, {"\x7f", "U+007F", 14}, {"\x00", "U+0000", 14},
		{"\xff", "0xFF, which is not UTF-8", 14}, {"\r", "a carriage return that ends no line", 14},
		{"\u0085", "U+0085", 14}, {"\u2028", "U+2028", 14},
	} {
		doc := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: x.y}\nspec:\n  title: Red " + c.raw + " alert\n"
		_, ps := parseDocuments("registry/zz.yaml", []byte(doc))
		if len(ps) != 1 || ps[0].Pos != (Position{File: "registry/zz.yaml", Line: 5, Column: c.col}) || !strings.Contains(ps[0].Message, c.what) {
			t.Errorf("%q: problems %v, want one at registry/zz.yaml:5:%d naming %s", c.raw, ps, c.col, c.what)
		}
	}
	crlf := "apiVersion: skillsync/v1\r\nkind: Capability\r\nmetadata: {name: x.y}\r\n"
	if _, ps := parseDocuments("registry/crlf.yaml", []byte(crlf)); len(ps) != 0 {
		t.Errorf("CRLF line ends refused: %v", ps)
	}
}

// A file of millions of values is refused before it is parsed, in little memory:
// the parser's tree of it would take gigabytes.
func TestAHugeFileIsRefusedBeforeItIsParsed(t *testing.T) {
	doc := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: big.one}\nspec:\n  title: Big\n  effect: read\n  input: {x: [" +
		strings.Repeat("1,", 2_000_000) + "1]}"
	// With and without a line break at the end of the file.
	for _, data := range []string{doc + "\n", doc} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, ps := parseDocuments("registry/big.yaml", []byte(data))
		runtime.ReadMemStats(&after)
		if len(ps) != 1 || !strings.Contains(ps[0].Message, "holds more than 500000 values") || ps[0].Pos.Line != 7 {
			t.Fatalf("problems = %v, want one about the values at line 7", ps)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 10<<20 {
			t.Errorf("refusing the file allocated %d bytes", grew)
		}
	}
	// Without aliases, a document past the limit is not called an alias bomb.
	flat := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: big.two}\nspec:\n  title: Big\n  effect: read\n  input:\n" +
		strings.Repeat("    - 1\n", 100_001)
	if _, ps := parseDocuments("registry/flat.yaml", []byte(flat)); len(ps) != 1 || strings.Contains(ps[0].Message, "alias") {
		t.Errorf("problems = %v, want one about the values, none about aliases", ps)
	}
}
