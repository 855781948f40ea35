package schema

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/authoring/starter"
	"github.com/skillsync/skillsync/desired/registry"
)

// An input is one YAML file as an editor sees it: its path in its workspace, which
// decides the schema that applies, and its text.
type input struct {
	path string // slash-separated, from the repository root
	text string
}

// schemaFile is the schema an editor is told to use for the input: workspace.json
// for skillsync.yaml, registry.json for any other file.
func (in input) schemaFile() string {
	if path.Base(in.path) == registry.ConfigName {
		return "workspace.json"
	}
	return "registry.json"
}

// bundledInputs are the YAML files of the bundled workspaces and the starter
// `skillsync init` writes: all valid, so no schema may find fault with them.
func bundledInputs(t *testing.T) []input {
	t.Helper()
	var out []input
	for _, dir := range []string{"fixtures/example", "test/e2e/testdata/conformance"} {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		more, _ := filepath.Glob(filepath.Join("..", dir, "registry", "*.yaml"))
		for _, f := range append(files, more...) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, input{path: filepath.ToSlash(strings.TrimPrefix(f, ".."+string(filepath.Separator))), text: string(data)})
		}
	}
	// What init writes with no MCP server found and with one, and its example
	// capability uncommented.
	for dir, found := range map[string]starter.Found{"starter": {}, "starter-mcp": {Servers: []string{"github"}}} {
		for _, f := range starter.Plan(found, "main").Files {
			p := dir + "/" + f.Path
			// The modeline names the schema at its URL; with no network here, it
			// names the committed copy, the same file, by a relative path.
			local := strings.Repeat("../", strings.Count(p, "/")) + "schema/"
			out = append(out, input{path: p, text: strings.ReplaceAll(f.Content, starter.SchemaURL("main"), local)})
			if example := starter.Example(f.Content); example != "" {
				out = append(out, input{path: dir + "-example/" + f.Path, text: example})
			}
		}
	}
	if len(out) < 9 {
		t.Fatalf("found only %d bundled inputs", len(out))
	}
	return out
}

// acceptedInputs are odd but valid documents: the loader takes each, and so must
// the schemas.
var acceptedInputs = []input{
	{"accepted/bare/skillsync.yaml", "---\n# An empty document first.\n---\napiVersion: skillsync/v1\nkind: Workspace\n"},
	{"accepted/nulls/skillsync.yaml", `apiVersion: skillsync/v1
kind: Workspace
spec:
  registry: [registry/*.yaml]
  targets: []
  disabled:
  reservedNames: []
  mcp: {}
  unguardedClients: ""
`},
	{"accepted/nulls/registry/documents.yaml", `# Documents with what may be left out left out, or written as null.
apiVersion: skillsync/v1
kind: Capability
metadata: {name: files.list}
spec:
  title: List files
  description: ""
  effect: read
  input: true
  mcp: ~
  cli: {command: [ls], flag: ""}
  skill: null
---
---
apiVersion: skillsync/v1
kind: Skill
metadata: {name: tabs-and-lines}
spec:
  description: "A body with a tab, line breaks and CRLF."
  body: "one\tline\r\nand another\n"
  bodyFile: ""
  userInvocable: false
  paths: ["docs/**", a/..]
---
apiVersion: skillsync/v1
kind: Profile
metadata: {name: empty}
`},
}

// A brokenCase is a document the loader refuses for a reason its own file shows,
// and where and how an editor says so.
type brokenCase struct {
	name string
	in   input
	line int    // the line the editor marks, 1-based
	says string // part of what yaml-language-server says there
}

// capabilityHeader starts a capability document; its spec follows.
const capabilityHeader = "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: notes.add}\nspec:\n"

var brokenCases = []brokenCase{
	{
		name: "unknown key in skillsync.yaml",
		in:   input{"broken/unknown-key/skillsync.yaml", "apiVersion: skillsync/v1\nkind: Workspace\nmetadata: {name: x}\nspec: {}\n"},
		line: 3, says: `Property metadata is not allowed`,
	},
	{
		name: "unknown key in a capability",
		in:   input{"broken/unknown-key/registry/notes.yaml", capabilityHeader + "  title: Add a note\n  effect: write\n  colour: red\n"},
		line: 7, says: `Property colour is not allowed`,
	},
	{
		name: "effect outside its enum",
		in:   input{"broken/effect/registry/notes.yaml", capabilityHeader + "  title: Add a note\n  effect: delete\n"},
		line: 6, says: `Value is not accepted. Valid values: "read", "write", "destructive"`,
	},
	{
		name: "missing required field",
		in:   input{"broken/no-effect/registry/notes.yaml", capabilityHeader + "  title: Add a note\n"},
		line: 4, says: `Missing property "effect"`,
	},
	{
		name: "wrong type",
		in: input{"broken/wrong-type/registry/skills.yaml", `apiVersion: skillsync/v1
kind: Skill
metadata: {name: release-notes}
spec:
  description: Draft release notes.
  body: Draft them.
  disableModelInvocation: yes
`},
		line: 7, says: `Incorrect type. Expected one of boolean`,
	},
	{
		name: "unknown target in the second document of a file",
		in: input{"broken/target/registry/skills.yaml", `apiVersion: skillsync/v1
kind: Profile
metadata: {name: cli}
---
apiVersion: skillsync/v1
kind: Skill
metadata: {name: release-notes}
spec:
  description: Draft release notes.
  body: Draft them.
  targets: [claude-code, qwen]
`},
		line: 11, says: `Value is not accepted`,
	},
	{
		name: "skill without a way to call the capability",
		in:   input{"broken/unreachable/registry/notes.yaml", capabilityHeader + "  title: Add a note\n  effect: write\n  input: {type: object, properties: {text: {type: string}}}\n  skill: {alias: note, argument: text}\n"},
		line: 4, says: `Missing property "mcp"`,
	},
	{
		name: "alias that is no skill name",
		in:   input{"broken/alias/registry/notes.yaml", capabilityHeader + "  title: Add a note\n  effect: write\n  input: {type: object, properties: {text: {type: string}}}\n  mcp: {server: notes, tool: notes_add}\n  skill: {alias: Note, argument: text}\n"},
		line: 9, says: `must be lowercase letters, digits and single hyphens`,
	},
	{
		name: "title on two lines",
		in:   input{"broken/title/registry/notes.yaml", capabilityHeader + "  title: |\n    Add a note\n    to the journal\n  effect: write\n"},
		line: 5, says: `must be one line of text`,
	},
	{
		name: "description on two lines",
		in:   input{"broken/description/registry/notes.yaml", capabilityHeader + "  title: Add a note\n  description: \"Adds a note.\\nThen stops.\"\n  effect: write\n"},
		line: 6, says: `must be one line of text`,
	},
	{
		name: "skill with both body and bodyFile",
		in: input{"broken/two-bodies/registry/skills.yaml", `apiVersion: skillsync/v1
kind: Skill
metadata: {name: release-notes}
spec:
  description: Draft release notes.
  body: Draft them.
  bodyFile: release-notes.md
`},
		line: 5, says: `Matches multiple schemas`,
	},
	{
		name: "unknown kind",
		in:   input{"broken/kind/registry/notes.yaml", "apiVersion: skillsync/v1\nkind: Capabilty\nmetadata: {name: notes.add}\n"},
		line: 2, says: `Value must be`,
	},
	{
		name: "list where a target list is a string",
		in:   input{"broken/targets/skillsync.yaml", "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  targets: claude-code\n"},
		line: 4, says: `Incorrect type. Expected one of array`,
	},
	{
		name: "wrong apiVersion",
		in:   input{"broken/api-version/skillsync.yaml", "apiVersion: skillsync/v2\nkind: Workspace\n"},
		line: 1, says: `Value must be "skillsync/v1"`,
	},
}
