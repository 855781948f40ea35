package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
	yaml "go.yaml.in/yaml/v3"
)

// capabilityYAML is a valid capability; the rows below break one line of it:
//
//	 1 apiVersion: skillsync/v1
//	 2 kind: Capability
//	 3 metadata: {name: notes.add}
//	 4 spec:
//	 5   title: Add a note
//	 6   effect: write
//	 7   input:
//	 8     type: object
//	 9     properties: {text: {type: string}}
//	10     required: [text]
//	11   mcp: {tool: notes_add}
//	12   skill: {alias: note, argument: text}
const capabilityYAML = "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: notes.add}\nspec:\n  title: Add a note\n  effect: write\n" +
	"  input:\n    type: object\n    properties: {text: {type: string}}\n    required: [text]\n  mcp: {tool: notes_add}\n  skill: {alias: note, argument: text}\n"

func brokenCapability(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(capabilityYAML, old) {
		t.Fatalf("%q is not in the capability", old)
	}
	return strings.Replace(capabilityYAML, old, new, 1)
}

// loadProblems loads a workspace whose one registry file is content, named file.
func loadProblems(t *testing.T, file, content string) Problems {
	t.Helper()
	cfg := strings.Replace(config, "[registry/*.json, registry/*.yaml]", "[registry/*]", 1)
	_, err := Load(workspacefs.OS{}, workspace(t, map[string]string{ConfigName: cfg, file: content}))
	var ps Problems
	if !errors.As(err, &ps) {
		t.Fatalf("Load = %v, want problems", err)
	}
	return ps
}

func TestSyntaxErrorsPointAtTheOffendingToken(t *testing.T) {
	for _, tc := range []struct {
		name, file, content string
		at                  string // file:line:column
		message, snippet    string
	}{
		{name: "unclosed double quote, before the next document",
			content: brokenCapability(t, "title: Add a note", `title: "Add a note`) + "---\nkind: Profile\n",
			at:      "registry/c.yaml:5:10", message: "cannot parse YAML: the quoted string that starts here is not closed before the document marker on line 13",
			snippet: "5 |   title: \"Add a note\n  |          ^"},
		{name: "unclosed single quote, at the end of the file",
			content: brokenCapability(t, "tool: notes_add}", "tool: 'notes_add}"),
			at:      "registry/c.yaml:11:15", message: "cannot parse YAML: the quoted string that starts here is not closed before the end of the file",
			snippet: "11 |   mcp: {tool: 'notes_add}\n   |               ^"},
		{name: "key indented deeper than the one before",
			content: brokenCapability(t, "  effect: write", "    effect: write"),
			at:      "registry/c.yaml:6:11", message: "cannot parse YAML: mapping values are not allowed in this context",
			snippet: "6 |     effect: write\n  |           ^"},
		{name: "key indented less than the ones beside it",
			content: brokenCapability(t, "  effect: write", " effect: write"),
			at:      "registry/c.yaml:6:2", message: "cannot parse YAML: did not find expected key",
			snippet: "6 |  effect: write\n  |  ^"},
		{name: "stray colon in a plain value",
			content: brokenCapability(t, "title: Add a note", "title: Add: a note"),
			at:      "registry/c.yaml:5:13", message: "cannot parse YAML: mapping values are not allowed in this context",
			snippet: "5 |   title: Add: a note\n  |             ^"},
		{name: "list item among keys",
			content: brokenCapability(t, "  effect: write", "  - effect: write"),
			at:      "registry/c.yaml:6:3", message: "cannot parse YAML: did not find expected key",
			snippet: "6 |   - effect: write\n  |   ^"},
		{name: "flow mapping left open on its line: where it opens",
			content: brokenCapability(t, "{text: {type: string}}", "{text: {type: string}"),
			at:      "registry/c.yaml:9:17", message: "cannot parse YAML: the { that opens here is not closed on its line",
			snippet: "9 |     properties: {text: {type: string}\n  |                 ^"},
		{name: "flow sequence over lines, a comma missing: both lines",
			content: brokenCapability(t, "required: [text]", "required: [\"text\",\n      \"count\"\n      \"more\"]"),
			at:      "registry/c.yaml:12:7", message: "cannot parse YAML: did not find expected ',' or ']' inside the [ opened at line 10, column 15",
			snippet: "10 |     required: [\"text\",\n   |               ^\n12 |       \"more\"]\n   |       ^"},
		{name: "flow sequence left open at the end of the file",
			content: capabilityYAML + "extra: [a, b\n",
			at:      "registry/c.yaml:13:8", message: "cannot parse YAML: the [ that opens here is not closed before the end of the file",
			snippet: "13 | extra: [a, b\n   |        ^"},
		{name: "flow mapping over lines, a comma missing, where closing its first line does not help: both lines",
			content: brokenCapability(t, "  mcp: {tool: notes_add}", "  cli: {command: [notes, add]\n        flag: --text}"),
			at:      "registry/c.yaml:12:9", message: "cannot parse YAML: did not find expected ',' or '}' inside the { opened at line 11, column 8",
			snippet: "11 |   cli: {command: [notes, add]\n   |        ^\n12 |         flag: --text}\n   |         ^"},
		{name: "tab at the start of a line",
			content: brokenCapability(t, "  effect: write", "\teffect: write"),
			at:      "registry/c.yaml:6:1", message: "cannot parse YAML: line 6 is indented with a tab; YAML allows only spaces",
			snippet: "6 | \teffect: write\n  | ^"},
		{name: "tab after spaces",
			content: brokenCapability(t, "  effect: write", "  \teffect: write"),
			at:      "registry/c.yaml:6:3", message: "cannot parse YAML: line 6 is indented with a tab; YAML allows only spaces",
			snippet: "6 |   \teffect: write\n  |   ^"},
		{name: "tab before the first key of a nested mapping",
			content: brokenCapability(t, "    type: object", "\ttype: object"),
			at:      "registry/c.yaml:8:1", message: "cannot parse YAML: line 8 is indented with a tab; YAML allows only spaces",
			snippet: "8 | \ttype: object\n  | ^"},
		{name: "tab indenting a block scalar",
			content: brokenCapability(t, "title: Add a note", "title: |\n  \tAdd a note"),
			at:      "registry/c.yaml:6:3", message: "cannot parse YAML: line 6 is indented with a tab; YAML allows only spaces",
			snippet: "6 |   \tAdd a note\n  |   ^"},
		{name: "JSON indented with tabs, a comma missing: not the tab's fault",
			file:    "registry/c.json",
			content: "{\n\t\"apiVersion\": \"skillsync/v1\"\n\t\"kind\": \"Profile\"\n}\n",
			at:      "registry/c.json:3:2", message: "cannot parse YAML: did not find expected ',' or '}' inside the { opened at line 1, column 1",
			snippet: "1 | {\n  | ^\n3 | \t\"kind\": \"Profile\"\n  | \t^"},
		{name: "second document: the line counts from the top of the file",
			content: capabilityYAML + "---\nkind: Profile\nspec: {capabilities: [a.b]]}\n",
			at:      "registry/c.yaml:15:27", message: "cannot parse YAML: did not find expected ',' or '}'",
			snippet: "15 | spec: {capabilities: [a.b]]}\n   |                           ^"},
		{name: "CRLF and a byte order mark change no column",
			content: "\ufeff" + strings.ReplaceAll(brokenCapability(t, "  effect: write", "\teffect: write"), "\n", "\r\n"),
			at:      "registry/c.yaml:6:1", message: "cannot parse YAML: line 6 is indented with a tab; YAML allows only spaces",
			snippet: "6 | \teffect: write\n  | ^"},
		{name: "first line after a byte order mark",
			content: "\ufeffa: b: c\n",
			at:      "registry/c.yaml:1:5", message: "cannot parse YAML: mapping values are not allowed in this context",
			snippet: "1 | a: b: c\n  |     ^"},
		{name: "a long line shows the part around the column",
			// The second ] is column 177 of 279; 100 characters from column 127 are shown.
			content: "apiVersion: skillsync/v1\nkind: Profile\nspec: {capabilities: [" + strings.Repeat("a.b, ", 30) + "a.b]] " + strings.Repeat("z", 100) + "}\n",
			at:      "registry/c.yaml:3:177", message: "cannot parse YAML: did not find expected ',' or '}'",
			snippet: "3 | …" + strings.Repeat("a.b, ", 30)[104:] + "a.b]] " + strings.Repeat("z", 48) + "…\n  | " + strings.Repeat(" ", 51) + "^"},
		{name: "an error yaml.v3 gives no place for",
			content: "apiVersion: skillsync/v1\nkind: Profile\nmetadata: {name: *nope}\n",
			at:      "registry/c.yaml", message: "cannot parse YAML: unknown anchor 'nope' referenced"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file
			if file == "" {
				file = "registry/c.yaml"
			}
			ps := loadProblems(t, file, tc.content)
			if len(ps) != 1 {
				t.Fatalf("problems:\n%v", ps)
			}
			p := ps[0]
			if p.Pos.String() != tc.at || p.Message != tc.message {
				t.Errorf("got  %s: %s\nwant %s: %s", p.Pos, p.Message, tc.at, tc.message)
			}
			if p.Snippet != tc.snippet {
				t.Errorf("snippet:\n%s\nwant:\n%s", p.Snippet, tc.snippet)
			}
		})
	}
}

// A duplicated key parses; strict decoding refuses it at the second one.
func TestDuplicateKeyIsAtTheSecondOne(t *testing.T) {
	ps := loadProblems(t, "registry/c.yaml", brokenCapability(t, "  effect: write\n", "  effect: write\n  effect: read\n"))
	if len(ps) != 1 || ps[0].Pos.String() != "registry/c.yaml:7:3" || ps[0].Message != "duplicate key spec.effect" || ps[0].Hint != "first defined at line 6" {
		t.Errorf("problems:\n%v", ps)
	}
}

// syntaxProblem reads yaml.v3's unexported record of where it stopped: an upgrade
// that moves it must fail here rather than quietly report the enclosing mapping.
func TestParserStopIsReadable(t *testing.T) {
	dec := yaml.NewDecoder(strings.NewReader("a:\n  b: 1\n c: 2\n"))
	var n yaml.Node
	err := dec.Decode(&n)
	stop, ok := readStop(dec, err)
	if want := (parserStop{problem: "did not find expected key", context: "while parsing a block mapping", at: mark{3, 2}, opened: mark{1, 1}}); !ok || stop != want {
		t.Errorf("readStop = %+v, %v; want %+v (error %v)", stop, ok, want, err)
	}
}
