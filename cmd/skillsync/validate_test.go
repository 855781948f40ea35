package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/testkit"
)

// These tests hold the CLI to docs/registry.md, "Problems" and "Skill names": every invalid
// input is refused with exit 2, a message naming file:line, and a workspace left
// exactly as it was (fail closed: nothing written, nothing deleted, no mtime moved).

// testFile is the registry file most rows write; it sorts after the fixture's own files,
// so a declaration in it is the second one when a name is taken twice.
const testFile = "registry/zz-test.yaml"

// capabilityDoc is a valid capability for testFile. Rows break it with old/new string
// pairs, so the line numbers below are the ones a row names:
//
//	 1 apiVersion: skillsync/v1
//	 2 kind: Capability
//	 3 metadata: {name: test.thing}
//	 4 spec:
//	 5   title: Do the thing
//	 6   effect: write
//	 7   input:
//	 8     type: object
//	 9     properties:
//	10       text: {type: string}
//	11       count: {type: integer}
//	12     required: [text]
//	13   mcp: {tool: do_thing}
//	14   skill: {alias: do-thing, argument: text}
func capabilityDoc(oldNew ...string) string {
	return replaceAll(`apiVersion: skillsync/v1
kind: Capability
metadata: {name: test.thing}
spec:
  title: Do the thing
  effect: write
  input:
    type: object
    properties:
      text: {type: string}
      count: {type: integer}
    required: [text]
  mcp: {tool: do_thing}
  skill: {alias: do-thing, argument: text}
`, oldNew...)
}

// skillDoc is a valid workflow skill for testFile:
//
//	1 apiVersion: skillsync/v1
//	2 kind: Skill
//	3 metadata: {name: test-skill}
//	4 spec:
//	5   description: A test skill.
//	6   body: Do the test.
//	7   requiredCapabilities: [terminal.ansi]
//	8   targets: [claude-code]
//	9   disableModelInvocation: false
func skillDoc(oldNew ...string) string {
	return replaceAll(`apiVersion: skillsync/v1
kind: Skill
metadata: {name: test-skill}
spec:
  description: A test skill.
  body: Do the test.
  requiredCapabilities: [terminal.ansi]
  targets: [claude-code]
  disableModelInvocation: false
`, oldNew...)
}

// workspaceConfig is the fixture's skillsync.yaml, for rows that break it:
//
//	1 apiVersion: skillsync/v1
//	2 kind: Workspace
//	3 spec:
//	4   registry: [registry/*.yaml]
//	5   targets: [claude-code, qwen-code, agents]
//	6   profile: cli
//	7   disabled: []
//	8   reservedNames: []
//	9   mcp: {server: majordomus}
func workspaceConfig(oldNew ...string) string {
	return replaceAll(`apiVersion: skillsync/v1
kind: Workspace
spec:
  registry: [registry/*.yaml]
  targets: [claude-code, qwen-code, agents]
  profile: cli
  disabled: []
  reservedNames: []
  mcp: {server: majordomus}
`, oldNew...)
}

// replaceAll applies old/new pairs, each of which must match exactly once, so a
// typo in a row fails loudly instead of leaving the document valid.
func replaceAll(doc string, oldNew ...string) string {
	if len(oldNew)%2 != 0 {
		panic("replaceAll: odd number of arguments")
	}
	for i := 0; i < len(oldNew); i += 2 {
		if n := strings.Count(doc, oldNew[i]); n != 1 {
			panic(fmt.Sprintf("replaceAll: %q occurs %d times", oldNew[i], n))
		}
		doc = strings.Replace(doc, oldNew[i], oldNew[i+1], 1)
	}
	return doc
}

// problem is one expected line of the problem report: "  <at>:<col>: <msg> (<hint>)".
type problem struct {
	at   string // file:line (or the pseudo-file of a flag), exact
	msg  string // substring of the message
	hint string // substring of the hint; empty to skip
}

type validationCase struct {
	name  string
	files map[string]string             // workspace-relative path -> content, written over the valid copy
	setup func(t *testing.T, ws string) // anything files cannot say (symlinks)
	flags []string                      // global flags before the command, like --profile
	want  problem
}

func validationCases() []validationCase {
	reg := func(content string) map[string]string { return map[string]string{testFile: content} }
	long := strings.Repeat("a", 65)
	return []validationCase{
		// Alias and skill names: ^[a-z0-9]+(-[a-z0-9]+)*$, at most 64 characters.
		{name: "alias reserved by both clients", files: reg(capabilityDoc("alias: do-thing", "alias: review")),
			want: problem{testFile + ":14", `alias "review" is reserved by Claude Code and Qwen Code`, "pick another name"}},
		{name: "alias mcp reserved", files: reg(capabilityDoc("alias: do-thing", "alias: mcp")),
			want: problem{testFile + ":14", `alias "mcp" is reserved by Claude Code and Qwen Code`, "pick another name"}},
		{name: "alias with capital letter", files: reg(capabilityDoc("alias: do-thing", "alias: Intent")),
			want: problem{testFile + ":14", `alias "Intent" is not a valid skill name`, "lowercase letters, digits and single hyphens"}},
		{name: "alias with double hyphen", files: reg(capabilityDoc("alias: do-thing", "alias: my--skill")),
			want: problem{testFile + ":14", `alias "my--skill" is not a valid skill name`, "single hyphens"}},
		{name: "alias with path", files: reg(capabilityDoc("alias: do-thing", "alias: ../x")),
			want: problem{testFile + ":14", `alias "../x" is not a valid skill name`, "single hyphens"}},
		{name: "alias of 65 characters", files: reg(capabilityDoc("alias: do-thing", "alias: "+long)),
			want: problem{testFile + ":14", fmt.Sprintf("alias %q is 65 characters long", long), "shorten it to 64 characters"}},
		{name: "skill name reserved", files: reg(skillDoc("name: test-skill", "name: skills")),
			want: problem{testFile + ":3", `skill name "skills" is reserved by Claude Code and Qwen Code`, "pick another name"}},
		{name: "skill name invalid", files: reg(skillDoc("name: test-skill", "name: Test_Skill")),
			want: problem{testFile + ":3", `skill name "Test_Skill" is not a valid skill name`, "single hyphens"}},
		{name: "alias in reservedNames",
			files: map[string]string{
				"skillsync.yaml": workspaceConfig("reservedNames: []", "reservedNames: [do-thing]"),
				testFile:         capabilityDoc(),
			},
			want: problem{testFile + ":14", `alias "do-thing" is listed in reservedNames of skillsync.yaml`, "remove it from spec.reservedNames"}},

		{name: "unguardedClients not a known value",
			files: map[string]string{
				"skillsync.yaml": workspaceConfig("mcp: {server: majordomus}", "mcp: {server: majordomus}\n  unguardedClients: sometimes"),
			},
			want: problem{"skillsync.yaml:10", `unguardedClients "sometimes" is not valid`, "use withhold (the default) or allow"}},

		// Not taken by another capability or skill: both declarations named.
		{name: "alias taken by another capability", files: reg(capabilityDoc("alias: do-thing", "alias: intent")),
			want: problem{testFile + ":14", `alias "intent" is taken by capability/intents.propose at registry/intents.yaml:16`, "one namespace"}},
		{name: "skill name equal to an alias", files: reg(skillDoc("name: test-skill", "name: find-intent")),
			want: problem{testFile + ":3", `skill name "find-intent" is taken by capability/intents.search at registry/intents.yaml:31`, "one namespace"}},

		// skill.argument names a string property; input.required holds nothing else.
		{name: "argument not a property", files: reg(capabilityDoc("argument: text", "argument: txt")),
			want: problem{testFile + ":14", `argument "txt" is not a property of input`, `did you mean "text"?`}},
		{name: "argument an integer property", files: reg(capabilityDoc("argument: text", "argument: count")),
			want: problem{testFile + ":14", `argument "count" has type integer, not string`, "only fill a property of type string"}},
		{name: "input requires a second field", files: reg(capabilityDoc("required: [text]", "required: [text, count]")),
			want: problem{testFile + ":12", `input requires count, which the skill cannot supply`, `make count optional`}},
		{name: "argument a property that is no schema", files: reg(capabilityDoc("text: {type: string}", "text: string")),
			want: problem{testFile + ":14", `argument "text" is a property of input that is no schema`, "text: {type: string}"}},
		// Keys are matched exactly: JSON Schema's keywords are lower case.
		{name: "argument property with TYPE", files: reg(capabilityDoc("text: {type: string}", "text: {TYPE: string}")),
			want: problem{testFile + ":14", `argument "text" has type <nil>, not string`, "only fill a property of type string"}},
		{name: "argument property with type and Type", files: reg(capabilityDoc("text: {type: string}", "text: {type: integer, Type: string}")),
			want: problem{testFile + ":14", `argument "text" has type integer, not string`, "only fill a property of type string"}},
		{name: "input with PROPERTIES", files: reg(capabilityDoc("    properties:", "    PROPERTIES:")),
			want: problem{testFile + ":14", `argument "text" is not a property of input`, "declare it under spec.input.properties"}},
		{name: "input with required and Required", files: reg(capabilityDoc("required: [text]", "required: [text, count]\n    Required: [text]")),
			want: problem{testFile + ":12", `input requires count, which the skill cannot supply`, `make count optional`}},
		{name: "input required not a list", files: reg(capabilityDoc("required: [text]", "required: text")),
			want: problem{testFile + ":12", `input.required is not a list`, "write required as a list"}},
		// An input schema is kept and served as JSON (docs/decisions.md).
		{name: "input with an infinite number", files: reg(capabilityDoc("count: {type: integer}", "count: {type: integer, maximum: .inf}")),
			want: problem{testFile + ":8", `input: +Inf cannot be written as JSON`, "an input schema is JSON Schema"}},

		// An input schema is JSON Schema: checked against its dialect's metaschema.
		{name: "input type obj", files: reg(capabilityDoc("    type: object", "    type: obj")),
			want: problem{testFile + ":8", `input.type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'`, "input schema is JSON Schema"}},
		{name: "input property type integr", files: reg(capabilityDoc("count: {type: integer}", "count: {type: integr}")),
			want: problem{testFile + ":11", `input.properties.count.type: value must be one of`, "input schema is JSON Schema"}},
		{name: "input minimum not a number", files: reg(capabilityDoc("count: {type: integer}", `count: {type: integer, minimum: "x"}`)),
			want: problem{testFile + ":11", `input.properties.count.minimum: got string, want number`, "input schema is JSON Schema"}},
		{name: "input $schema unknown", files: reg(capabilityDoc("    type: object", "    $schema: https://example.com/my-dialect\n    type: object")),
			want: problem{testFile + ":8", `input.$schema: "https://example.com/my-dialect" is not a JSON Schema dialect skillsync checks`, ""}},
		{name: "input draft-07 items list with a bad member", files: reg(capabilityDoc("    type: object", "    $schema: http://json-schema.org/draft-07/schema#\n    type: object", "count: {type: integer}", "count: {type: array, items: [{type: integer}, {type: strin}]}")),
			want: problem{testFile + ":12", `input.properties.count.items.1.type`, ""}},

		// A capability with a skill can be reached.
		{name: "skill without mcp tool or cli command", files: reg(capabilityDoc("  mcp: {tool: do_thing}\n", "")),
			want: problem{testFile + ":13", `capability test.thing has a skill but no way to call it`, "add spec.mcp.tool or spec.cli.command"}},

		// Capability ids unique; effect one of three.
		{name: "duplicate capability id", files: reg(capabilityDoc("name: test.thing", "name: intents.propose")),
			want: problem{testFile + ":3", `capability id "intents.propose" is also declared at registry/intents.yaml:4`, "must be unique"}},
		{name: "effect delete", files: reg(capabilityDoc("effect: write", "effect: delete")),
			want: problem{testFile + ":6", `effect "delete" is not valid`, "read, write, destructive"}},

		// A command must reach the model as written; a client would replace these.
		{name: "cli word with a placeholder", files: reg(capabilityDoc("  mcp: {tool: do_thing}\n", "  cli: {command: [run, '$1']}\n")),
			want: problem{testFile + ":13", `cli holds "$1", which a client reading .claude/skills replaces in the skill`, "leave it out of the command"}},
		{name: "cli word that runs a command", files: reg(capabilityDoc("  mcp: {tool: do_thing}\n", "  cli: {command: [run, '!`rm -rf ~`']}\n")),
			want: problem{testFile + ":13", "cli holds \"!`\", which a client reading .claude/skills replaces in the skill", "leave claude-code out of spec.skill.targets"}},
		{name: "cli word with CLAUDE_SKILL_DIR", files: reg(capabilityDoc("  mcp: {tool: do_thing}\n", "  cli: {command: [run, '${CLAUDE_SKILL_DIR}']}\n")),
			want: problem{testFile + ":13", `cli holds "${CLAUDE_", which a client reading .claude/skills replaces`, "leave it out of the command"}},

		// One-line fields hold one line of text; bodies hold no control characters.
		{name: "title with a line break", files: reg(capabilityDoc("title: Do the thing", `title: "Do the thing\n---\nname: evil"`)),
			want: problem{testFile + ":5", "title holds a line break", "one line of plain text"}},
		{name: "title with an escape sequence", files: reg(capabilityDoc("title: Do the thing", `title: "Do the \e[31mthing"`)),
			want: problem{testFile + ":5", "title holds the control character U+001B", "one line of plain text"}},
		{name: "title with a bidi override", files: reg(capabilityDoc("title: Do the thing", "title: Do the \u202ething")),
			want: problem{testFile + ":5", "title holds the control character U+202E", "one line of plain text"}},
		{name: "capability description with a line break", files: reg(capabilityDoc("title: Do the thing", "title: Do the thing\n  description: \"Does it.\\nThen stops.\"")),
			want: problem{testFile + ":6", "description holds a line break", "one line of plain text"}},
		{name: "capability description too long", files: reg(capabilityDoc("title: Do the thing", "title: Do the thing\n  description: "+strings.Repeat("x", 1025))),
			want: problem{testFile + ":6", "description is 1025 characters long", "shorten it to 1024 characters"}},
		{name: "capability description blank", files: reg(capabilityDoc("title: Do the thing", "title: Do the thing\n  description: ' '")),
			want: problem{testFile + ":6", "description is blank", "leave description out to use the title"}},
		{name: "skill description with a tab", files: reg(skillDoc("description: A test skill.", `description: "A test\tskill."`)),
			want: problem{testFile + ":5", "description holds a tab", "one line of plain text"}},
		{name: "argument with a closing tag", files: reg(capabilityDoc("text: {type: string}", "'te>xt': {type: string}", "argument: text", "argument: te>xt")),
			want: problem{testFile + ":14", `argument "te>xt" holds a backquote, < or >`, "rename the property"}},
		{name: "cli word with a redirection", files: reg(capabilityDoc("  mcp: {tool: do_thing}\n", "  cli: {command: [run, '<text>']}\n")),
			want: problem{testFile + ":13", `cli command word "<text>" is not valid`, "control characters, backquotes, < or >"}},
		{name: "cli flag with a bell", files: reg(capabilityDoc("  mcp: {tool: do_thing}\n", "  cli: {command: [run], flag: \"--text\\a\"}\n")),
			want: problem{testFile + ":13", `cli flag "--text\a" is not valid`, ""}},
		{name: "body with an escape sequence", files: reg(skillDoc("body: Do the test.", "body: \"Do\\nthe \\e]0;pwned\\a test.\"")),
			want: problem{testFile + ":6", "body holds the control character U+001B on its line 2", "a skill body is plain text"}},
		{name: "bodyFile with a lone carriage return",
			files: map[string]string{testFile: skillDoc("body: Do the test.", "bodyFile: body.md"), "registry/body.md": "Line one.\r\nLine two.\rOverwritten.\n"},
			want:  problem{"registry/body.md:2", "bodyFile of skill test-skill holds a carriage return", "a skill body is plain text"}},

		// requiredCapabilities: dotted, and announced by some profile.
		{name: "required capability unknown", files: reg(skillDoc("[terminal.ansi]", "[markdown.codeBlock.echarts-fulldat]")),
			want: problem{testFile + ":7", `required capability "markdown.codeBlock.echarts-fulldat" is announced by no profile`, `did you mean "markdown.codeBlock.echarts-fulldata"`}},
		{name: "required capability not dotted", files: reg(skillDoc("[terminal.ansi]", "[echarts]")),
			want: problem{testFile + ":7", `required capability "echarts" is not a dotted name`, "dotted names"}},
		{name: "capability skill requires unknown capability",
			files: reg(capabilityDoc("argument: text}", "argument: text, requiredCapabilities: [terminal.ansii]}")),
			want:  problem{testFile + ":14", `required capability "terminal.ansii" is announced by no profile`, `did you mean "terminal.ansi"`}},
		{name: "profile capability not dotted",
			files: reg("apiVersion: skillsync/v1\nkind: Profile\nmetadata: {name: test}\nspec:\n  capabilities:\n    - terminal.ansi\n    - echarts\n"),
			want:  problem{testFile + ":7", `profile capability "echarts" is not a dotted name`, "dotted names"}},

		// Description at most 1024 characters.
		{name: "title of 1025 characters", files: reg(capabilityDoc("title: Do the thing", "title: "+strings.Repeat("t", 1025))),
			want: problem{testFile + ":5", "title is 1025 characters long", "shorten it to 1024 characters"}},
		{name: "skill description of 1025 characters", files: reg(skillDoc("description: A test skill.", "description: "+strings.Repeat("é", 1025))),
			want: problem{testFile + ":5", "description is 1025 characters long", "shorten it to 1024 characters"}},

		// Every path the inputs name resolves inside the workspace, symlinks included.
		{name: "bodyFile climbing out", files: reg(skillDoc("body: Do the test.", "bodyFile: ../../etc/passwd")),
			want: problem{testFile + ":6", `path "../../etc/passwd" leads outside the workspace`, "paths must stay inside"}},
		{name: "bodyFile absolute", files: reg(skillDoc("body: Do the test.", "bodyFile: /etc/hostname")),
			want: problem{testFile + ":6", `path "/etc/hostname" leads outside the workspace`, "paths must stay inside"}},
		{name: "bodyFile symlink to a file outside",
			files: reg(skillDoc("body: Do the test.", "bodyFile: outside.md")),
			setup: func(t *testing.T, ws string) {
				secret := testkit.WriteFile(t, t.TempDir(), "secret.md", []byte("outside the workspace\n"))
				if err := os.Symlink(secret, filepath.Join(ws, "registry", "outside.md")); err != nil {
					t.Fatal(err)
				}
			},
			want: problem{testFile + ":6", `path "outside.md" leads outside the workspace`, "paths must stay inside"}},
		{name: "registry glob climbing out",
			files: map[string]string{"skillsync.yaml": workspaceConfig("[registry/*.yaml]", "[registry/*.yaml, ../*.yaml]")},
			want:  problem{"skillsync.yaml:4", `registry glob "../*.yaml" reaches outside the workspace`, "stay inside its directory"}},
		{name: "registry glob through a symlinked directory",
			files: map[string]string{"skillsync.yaml": workspaceConfig("[registry/*.yaml]", "[registry/*.yaml, linked/*.yaml]")},
			setup: func(t *testing.T, ws string) {
				outside := t.TempDir()
				testkit.WriteFile(t, outside, "more.yaml", []byte(skillDoc()))
				if err := os.Symlink(outside, filepath.Join(ws, "linked")); err != nil {
					t.Fatal(err)
				}
			},
			want: problem{"skillsync.yaml:4", `registry glob "linked/*.yaml" matches linked, which leads outside the workspace`, "symlinks included"}},

		// Every match of a registry glob is a readable regular file: anything else is
		// named, never skipped (a skipped file reads as a smaller registry).
		{name: "registry glob matching a FIFO",
			setup: func(t *testing.T, ws string) { mkfifo(t, filepath.Join(ws, "registry", "pipe.yaml")) },
			want:  problem{"skillsync.yaml:4", `registry glob "registry/*.yaml" matches registry/pipe.yaml, which is a FIFO, not a regular file`, "narrow the glob"}},
		{name: "registry glob matching a dangling symlink",
			setup: func(t *testing.T, ws string) { symlink(t, "gone.yaml", filepath.Join(ws, "registry", "dangling.yaml")) },
			want:  problem{"skillsync.yaml:4", `registry glob "registry/*.yaml" matches registry/dangling.yaml, a symlink to nothing`, "remove it"}},
		{name: "registry glob matching a directory",
			setup: func(t *testing.T, ws string) { mkdirAll(t, filepath.Join(ws, "registry", "more.yaml")) },
			want:  problem{"skillsync.yaml:4", `registry glob "registry/*.yaml" matches registry/more.yaml, which is a directory, not a regular file`, "narrow the glob"}},
		{name: "registry glob reaching into .skillsync",
			files: map[string]string{"skillsync.yaml": workspaceConfig("[registry/*.yaml]", "[registry/*.yaml, .skillsync/*.json]")},
			want:  problem{"skillsync.yaml:4", `registry glob ".skillsync/*.json" matches .skillsync, inside .skillsync, where skillsync writes`, "keep the registry out"}},
		// A bodyFile read from where skillsync writes would be rewritten by every run.
		{name: "bodyFile that is a generated skill", files: reg(skillDoc("body: Do the test.", "bodyFile: ../.claude/skills/intent/SKILL.md")),
			want: problem{testFile + ":6", `path "../.claude/skills/intent/SKILL.md" leads into .claude/skills, where skillsync writes`, "keep it elsewhere"}},
		{name: "bodyFile not yet generated", files: reg(skillDoc("body: Do the test.", "bodyFile: ../.agents/skills/test-skill/SKILL.md")),
			want: problem{testFile + ":6", `path "../.agents/skills/test-skill/SKILL.md" leads into .agents/skills, where skillsync writes`, "keep it elsewhere"}},
		{name: "bodyFile through a symlink into a skill directory", files: reg(skillDoc("body: Do the test.", "bodyFile: body/SKILL.md")),
			setup: func(t *testing.T, ws string) {
				symlink(t, "../.qwen/skills/intent", filepath.Join(ws, "registry", "body"))
			},
			want: problem{testFile + ":6", `path "body/SKILL.md" leads into .qwen/skills, where skillsync writes`, "keep it elsewhere"}},
		{name: "bodyFile in .skillsync", files: reg(skillDoc("body: Do the test.", "bodyFile: ../.skillsync/last-applied.json")),
			want: problem{testFile + ":6", `path "../.skillsync/last-applied.json" leads into .skillsync, where skillsync writes`, "keep it elsewhere"}},

		// Strict parsing: unknown field, wrong type, duplicate key, unknown kind.
		{name: "unknown field", files: reg(capabilityDoc("  effect: write\n", "  effect: write\n  colour: blue\n")),
			want: problem{testFile + ":7", "unknown field spec.colour", "known fields here: cli, description, effect, input, mcp, skill, title"}},
		{name: "unknown field in metadata", files: reg(skillDoc("metadata: {name: test-skill}", "metadata: {name: test-skill, labels: {a: b}}")),
			want: problem{testFile + ":3", "unknown field metadata.labels", "known fields here: name"}},
		// Files saved with a byte order mark each, joined into one: the parser takes
		// the mark of the second as part of its first key.
		{name: "byte order mark before a later document", files: reg(skillDoc() + "---\n" + capabilityDoc("apiVersion: skillsync/v1", "\ufeffapiVersion: skillsync/v1")),
			want: problem{testFile + ":11", `unknown field "\ufeffapiVersion"`, "remove the byte order mark (U+FEFF) before it"}},
		{name: "effect is a list", files: reg(capabilityDoc("effect: write", "effect: [read]")),
			want: problem{testFile + ":6", "spec.effect: expected a string, got a list", ""}},
		{name: "disableModelInvocation is a string", files: reg(skillDoc("disableModelInvocation: false", `disableModelInvocation: "yes"`)),
			want: problem{testFile + ":9", `spec.disableModelInvocation: expected a boolean, got str "yes"`, "write true or false"}},
		{name: "duplicate key", files: reg(capabilityDoc("  effect: write\n", "  effect: write\n  title: Do it twice\n")),
			want: problem{testFile + ":7", "duplicate key spec.title", "first defined at line 5"}},
		{name: "duplicate key inside input", files: reg(capabilityDoc("      count: {type: integer}\n", "      count: {type: integer}\n      text: {type: integer}\n")),
			want: problem{testFile + ":12", "duplicate key text", "first defined at line 10"}},
		{name: "unknown kind", files: reg(capabilityDoc("kind: Capability", "kind: Capabilty")),
			want: problem{testFile + ":2", `unknown kind "Capabilty"`, "Capability, Skill or Profile"}},
		{name: "wrong apiVersion", files: reg(capabilityDoc("apiVersion: skillsync/v1", "apiVersion: skillsync/v2")),
			want: problem{testFile + ":1", `apiVersion "skillsync/v2" is not supported`, "write apiVersion: skillsync/v1"}},
		{name: "invalid YAML: mapping value in a plain scalar", files: reg(capabilityDoc("title: Do the thing", "title: Do: the thing")),
			want: problem{testFile + ":5:12", "cannot parse YAML: mapping values are not allowed in this context", `quote a value that holds ": "`}},
		{name: "invalid YAML: tab indentation", files: reg(capabilityDoc("  effect: write\n", "\teffect: write\n")),
			want: problem{testFile + ":6:1", "cannot parse YAML: line 6 is indented with a tab; YAML allows only spaces", "indent with spaces"}},
		{name: "invalid YAML: unclosed flow sequence", files: reg(capabilityDoc("required: [text]", "required: [text")),
			want: problem{testFile + ":12:15", "cannot parse YAML: the [ that opens here is not closed on its line", "end the line with ]"}},
		{name: "mcp indented into input", files: reg(capabilityDoc("  mcp: {tool: do_thing}", "    mcp: {tool: do_thing}")),
			want: problem{testFile + ":13:5", `spec.input holds "mcp", which is a field of spec: probably indented too far`, "indent mcp: as far as input:"}},
		{name: "workspace unknown field", files: map[string]string{"skillsync.yaml": workspaceConfig("  profile: cli\n", "  profile: cli\n  target: [agents]\n")},
			want: problem{"skillsync.yaml:7", "unknown field spec.target", "known fields here"}},

		// Targets and profiles (docs/registry.md, "spec.targets" and "Profile").
		{name: "unknown target", files: map[string]string{"skillsync.yaml": workspaceConfig("qwen-code, agents]", "qwen-cod, agents]")},
			want: problem{"skillsync.yaml:5", `unknown target "qwen-cod"`, `did you mean "qwen-code"?`}},
		{name: "unknown skill target", files: reg(skillDoc("targets: [claude-code]", "targets: [claude]")),
			want: problem{testFile + ":8", `unknown target "claude"`, `did you mean "claude-code"?`}},
		{name: "unknown --profile", flags: []string{"--profile", "nope"},
			want: problem{"--profile", `profile "nope" (from --profile) is not declared`, "declared profiles: cli, web-shell"}},
		{name: "unknown profile in .skillsync/profile", files: map[string]string{".skillsync/profile": "nope\n"},
			want: problem{".skillsync/profile:1", `profile "nope" (from .skillsync/profile) is not declared`, "declared profiles: cli, web-shell"}},
		{name: "unknown spec.profile", files: map[string]string{"skillsync.yaml": workspaceConfig("profile: cli", "profile: web-shel")},
			want: problem{"skillsync.yaml:6", `default profile "web-shel" is not declared`, `did you mean "web-shell"?`}},
	}
}

// failClosedCommands are run on every invalid workspace; each must refuse with exit 2.
var failClosedCommands = [][]string{
	{"validate"},
	{"reconcile", "--once"},
	{"reconcile", "--once", "--force", "--allow-empty"},
}

func TestValidateRules(t *testing.T) {
	t.Setenv("SKILLSYNC_PROFILE", "")
	for _, tc := range validationCases() {
		t.Run(tc.name, func(t *testing.T) {
			ws := reconciledExample(t)
			testkit.WriteFiles(t, ws, tc.files)
			if tc.setup != nil {
				tc.setup(t, ws)
			}
			before := treeOf(t, ws)
			for _, command := range failClosedCommands {
				args := append(append([]string{}, tc.flags...), command...)
				code, stdout, stderr := runCLI(t, ws, args...)
				if code != exitInvalid {
					t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, exitInvalid, stdout, stderr)
				}
				if !hasProblem(stderr, tc.want) {
					t.Errorf("%s: stderr lacks the line %q\nstderr:\n%s", strings.Join(args, " "), tc.want.line(), stderr)
				}
				if d := diffSnapshots(before, treeOf(t, ws)); d != "" {
					t.Errorf("%s changed the workspace:\n%s", strings.Join(args, " "), d)
				}
			}
		})
	}
}

// TestValidateReportsEveryProblemAtOnce puts several problems in several files and
// expects each of them, and nothing else, in one run.
func TestValidateReportsEveryProblemAtOnce(t *testing.T) {
	t.Setenv("SKILLSYNC_PROFILE", "")
	cases := []struct {
		name  string
		files map[string]string
		want  []problem
	}{
		{
			name: "validation rules across files",
			files: map[string]string{
				testFile: capabilityDoc("alias: do-thing", "alias: review", "effect: write", "effect: delete",
					"argument: text", "argument: count") +
					"---\n" + skillDoc("[terminal.ansi]", "[markdown.codeBlock.echarts-fulldat]"),
				"registry/zz-more.yaml": capabilityDoc("name: test.thing", "name: test.other", "alias: do-thing", "alias: Intent",
					"required: [text]", "required: [text, count]"),
			},
			want: []problem{
				{testFile + ":6", `effect "delete" is not valid`, ""},
				{testFile + ":14", `alias "review" is reserved by Claude Code and Qwen Code`, ""},
				{testFile + ":14", `argument "count" has type integer, not string`, ""},
				{testFile + ":12", `input requires text, which the skill cannot supply`, ""},
				{testFile + ":22", `required capability "markdown.codeBlock.echarts-fulldat" is announced by no profile`, ""},
				{"registry/zz-more.yaml:12", `input requires count, which the skill cannot supply`, ""},
				{"registry/zz-more.yaml:14", `alias "Intent" is not a valid skill name`, ""},
			},
		},
		{
			name: "strict parsing across files",
			files: map[string]string{
				testFile: capabilityDoc("  effect: write\n", "  effect: write\n  colour: blue\n") +
					"---\n" + skillDoc("disableModelInvocation: false", `disableModelInvocation: "yes"`),
				"registry/zz-more.yaml":   capabilityDoc("kind: Capability", "kind: Capabilty"),
				"registry/zz-syntax.yaml": capabilityDoc("title: Do the thing", "title: Do: the thing"),
			},
			want: []problem{
				{"registry/zz-more.yaml:2", `unknown kind "Capabilty"`, ""},
				{"registry/zz-syntax.yaml:5", "cannot parse YAML", ""},
				{testFile + ":7", "unknown field spec.colour", ""},
				{testFile + ":25", `spec.disableModelInvocation: expected a boolean, got str "yes"`, ""},
			},
		},
		{
			// All problems are reported at once; a strict-parsing problem in
			// one file must not hide a rule broken in another.
			name: "strict parsing and validation together",
			files: map[string]string{
				testFile:                capabilityDoc("  effect: write\n", "  effect: write\n  colour: blue\n"),
				"registry/zz-more.yaml": capabilityDoc("name: test.thing", "name: test.other", "alias: do-thing", "alias: review"),
			},
			want: []problem{
				{"registry/zz-more.yaml:14", `alias "review" is reserved by Claude Code and Qwen Code`, ""},
				{testFile + ":7", "unknown field spec.colour", ""},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := reconciledExample(t)
			testkit.WriteFiles(t, ws, tc.files)
			before := treeOf(t, ws)
			for _, command := range failClosedCommands {
				code, stdout, stderr := runCLI(t, ws, command...)
				if code != exitInvalid {
					t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(command, " "), code, exitInvalid, stdout, stderr)
				}
				header := fmt.Sprintf("(%d problem(s)):", len(tc.want))
				if !strings.Contains(stderr, header) {
					t.Errorf("%s: stderr does not announce %s\nstderr:\n%s", strings.Join(command, " "), header, stderr)
				}
				if got := len(problemLines(stderr)); got != len(tc.want) {
					t.Errorf("%s: %d problem lines, want %d\nstderr:\n%s", strings.Join(command, " "), got, len(tc.want), stderr)
				}
				for _, p := range tc.want {
					if !hasProblem(stderr, p) {
						t.Errorf("%s: stderr lacks %q\nstderr:\n%s", strings.Join(command, " "), p.line(), stderr)
					}
				}
				if d := diffSnapshots(before, treeOf(t, ws)); d != "" {
					t.Errorf("%s changed the workspace:\n%s", strings.Join(command, " "), d)
				}
			}
		})
	}
}

// TestValidateExampleIsValid is the baseline every row breaks: the untouched example
// validates, and a second reconcile after the first changes nothing.
func TestValidateExampleIsValid(t *testing.T) {
	t.Setenv("SKILLSYNC_PROFILE", "")
	ws := reconciledExample(t)
	before := treeOf(t, ws)
	for _, command := range [][]string{{"validate"}, {"reconcile", "--once"}} {
		if code, stdout, stderr := runCLI(t, ws, command...); code != exitOK {
			t.Errorf("%s: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", strings.Join(command, " "), code, stdout, stderr)
		}
	}
	if d := diffSnapshots(before, treeOf(t, ws)); d != "" {
		t.Errorf("a no-op run changed the workspace:\n%s", d)
	}
}

// TestValidateSnapshotSeesChanges keeps the snapshot honest: a write, a removal and
// a bare mtime change are each reported.
func TestValidateSnapshotSeesChanges(t *testing.T) {
	t.Setenv("SKILLSYNC_PROFILE", "")
	ws := testkit.ExampleWorkspace(t)
	before := treeOf(t, ws)
	if code, stdout, stderr := runCLI(t, ws, "reconcile", "--once"); code != exitOK {
		t.Fatalf("reconcile --once: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if d := diffSnapshots(before, treeOf(t, ws)); !strings.Contains(d, "added: .claude/skills/intent/SKILL.md") {
		t.Errorf("snapshot missed the files reconcile wrote:\n%s", d)
	}
	before = treeOf(t, ws)
	skill := filepath.Join(ws, ".qwen", "skills", "intent", "SKILL.md")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(skill, old, old); err != nil {
		t.Fatal(err)
	}
	if d := diffSnapshots(before, treeOf(t, ws)); !strings.Contains(d, "mtime") {
		t.Errorf("snapshot missed an mtime change:\n%s", d)
	}
	if err := os.Remove(skill); err != nil {
		t.Fatal(err)
	}
	if d := diffSnapshots(before, treeOf(t, ws)); !strings.Contains(d, "removed: .qwen/skills/intent/SKILL.md") {
		t.Errorf("snapshot missed a removal:\n%s", d)
	}
}

// reconciledExample copies fixtures/example into a temporary directory and runs
// reconcile --once on it, so generated files exist for a bad input to threaten.
func reconciledExample(t *testing.T) string {
	t.Helper()
	ws := testkit.ExampleWorkspace(t)
	code, stdout, stderr := runCLI(t, ws, "reconcile", "--once")
	if code != exitOK {
		t.Fatalf("reconcile --once on the valid example: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, ".claude", "skills", "intent", "SKILL.md")); err != nil {
		t.Fatalf("reconcile --once on the valid example wrote no skill: %v", err)
	}
	return ws
}

// runCLI runs skillsync in-process against the workspace ws.
func runCLI(t *testing.T, ws string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"--workspace", ws}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// treeOf records the whole tree under root; see readTree.
func treeOf(t *testing.T, root string) map[string]treeEntry {
	t.Helper()
	snap, err := readTree(root)
	if err != nil {
		t.Fatalf("snapshot %s: %v", root, err)
	}
	return snap
}

// diffSnapshots names every path added, removed or changed; empty when identical.
func diffSnapshots(before, after map[string]treeEntry) string {
	return strings.Join(treeDiff(before, after), "\n")
}

// problemLine matches one line of the problem report: two spaces, then a location.
var problemLine = regexp.MustCompile(`^  \S+: `)

func problemLines(stderr string) []string {
	var lines []string
	for _, l := range strings.Split(stderr, "\n") {
		if problemLine.MatchString(l) {
			lines = append(lines, l)
		}
	}
	return lines
}

// hasProblem reports whether one problem line holds the location (exact file and
// line, any column), the message and the hint together.
func hasProblem(stderr string, p problem) bool {
	for _, l := range problemLines(stderr) {
		if strings.HasPrefix(l, "  "+p.at+":") && strings.Contains(l, p.msg) && strings.Contains(l, p.hint) {
			return true
		}
	}
	return false
}

func (p problem) line() string {
	s := "  " + p.at + ":…: …" + p.msg + "…"
	if p.hint != "" {
		s += " (…" + p.hint + "…)"
	}
	return s
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mkdirAll(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}
