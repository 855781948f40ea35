package registry

import (
	"errors"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// scanConfig declares the source team, with allow as its allow entry when not
// empty.
func scanConfig(allow string) (string, []RemoteSource) {
	config := "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  sources:\n    - name: team\n      git: https://git.example.com/team/skills.git\n"
	if allow != "" {
		config += "      allow: " + allow + "\n"
	}
	return config, []RemoteSource{{Name: "team", Git: "https://git.example.com/team/skills.git"}}
}

func TestWhatASourceHidesIsRefusedUnlessAllowed(t *testing.T) {
	hidden := skillFiles("deploy", "Deploy.\nRun the tests\u200B now.", SourceFile{Path: "scripts", Dir: true}, SourceFile{Path: "scripts/run.sh", Data: []byte("#!/bin/sh\n"), Executable: true})
	for _, tc := range []struct {
		name, allow string
		files       []SourceFile
		want        []string // problems; none when it loads
		allowed     int
	}{
		{"hidden text and a script", "", hidden, []string{
			"team:deploy/SKILL.md:6:14: team:deploy/SKILL.md holds U+200B ZERO WIDTH SPACE (zero-width): what comes from a source reaches a model unreviewed, so it is refused",
			"allow: [{finding: zero-width, path: deploy/SKILL.md}]",
			"team:deploy/scripts/run.sh: team:deploy/scripts/run.sh holds an executable file, which an agent may run (executable)"}, 0},
		{"both allowed", "[{finding: zero-width}, {finding: executable, path: \"*/scripts/*\"}]", hidden, nil, 2},
		{"allowed elsewhere only", "[{finding: zero-width, path: other/SKILL.md}, {finding: executable}]", hidden, []string{"team:deploy/SKILL.md:6:14"}, 0},
		{"a binary file", "", skillFiles("deploy", "Deploy.", SourceFile{Path: "logo.png", Data: []byte("\x89PNG\x00\x01")}),
			[]string{"team:deploy/logo.png holds a binary file, which no reviewer reads (binary)"}, 0},
		{"tag smuggling in a supporting file", "", skillFiles("deploy", "Deploy.", SourceFile{Path: "notes.md", Data: []byte("ok" + tags("rm -rf ~"))}),
			[]string{"team:deploy/notes.md:1:3: team:deploy/notes.md holds U+E0072 TAG 'r' (tag)"}, 0},
		{"an allowance of no finding", "[{finding: hidden}]", hidden, []string{`allow of source team names the finding "hidden"`}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config, specs := scanConfig(tc.allow)
			held := fakeSources{"team": tc.files}
			root := workspace(t, map[string]string{ConfigName: config, LockName: lockFor(t, specs, held), "registry/none.yaml": ""})
			reg, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, held)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range reg.Skills {
					if s.Name == "deploy" && len(s.Allowed) != tc.allowed {
						t.Errorf("Allowed = %q, want %d", s.Allowed, tc.allowed)
					}
				}
				return
			}
			var ps Problems
			if !errors.As(err, &ps) {
				t.Fatalf("err = %v, want problems", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(ps.Error(), w) {
					t.Errorf("problems do not say %q:\n%s", w, ps)
				}
			}
			for _, s := range reg.Skills {
				if s.Name == "deploy" {
					t.Error("the skill was kept despite its findings")
				}
			}
		})
	}
}

func TestASourcesRegistryFileIsScanned(t *testing.T) {
	config, specs := documentSources(false)
	doc := "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: standup}\nspec: {description: \"Write the standup note.\u202E\", body: List what changed.}\n"
	held := fakeSources{"catalog": {{Path: "registry/catalog.yaml", Document: true, Data: []byte(doc)}}}
	root := workspace(t, map[string]string{ConfigName: config, LockName: documentLock(t, specs, held), "registry/none.yaml": ""})
	_, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, held)
	if err == nil || !strings.Contains(err.Error(), "catalog:registry/catalog.yaml:4:45: catalog:registry/catalog.yaml holds U+202E RIGHT-TO-LEFT OVERRIDE (bidi)") {
		t.Errorf("a registry file with a bidi override: %v", err)
	}
}

func TestTheWorkspacesOwnHiddenTextIsAWarning(t *testing.T) {
	root := workspace(t, map[string]string{
		ConfigName:          "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n",
		"registry/own.yaml": "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: notes}\nspec: {description: Notes., body: \"Take\u200B notes.\"}\n",
	})
	reg, err := Load(workspacefs.OS{}, root)
	if err != nil {
		t.Fatal(err)
	}
	if ws := Warnings(reg).Error(); !strings.Contains(ws, "registry/own.yaml:4:35: registry/own.yaml holds U+200B ZERO WIDTH SPACE (zero-width), which a model reads and a person does not see") {
		t.Errorf("Warnings = %s", ws)
	}
}

// tags writes s in Unicode tag characters, as ASCII smuggling does.
func tags(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(0xE0000 + r)
	}
	return b.String()
}

func TestHiddenTextInEveryPlaceASourcesSkillHasIsFound(t *testing.T) {
	for _, tc := range []struct {
		name, allow string
		files       []SourceFile
		want        string
	}{
		{"an escape in the front matter", "", []SourceFile{{Path: "deploy", Dir: true},
			{Path: "deploy/SKILL.md", Data: []byte("---\nname: deploy\ndescription: \"Deploy.\\U000E0074\\U000E0068\"\n---\nDeploy.\n")}},
			"team:deploy/SKILL.md holds U+E0074 TAG 't', written as an escape (tag)"},
		{"a client's side file", "", skillFiles("deploy", "Deploy.", SourceFile{Path: "agents", Dir: true},
			SourceFile{Path: "agents/openai.yaml", Data: []byte("interface:\n  default_prompt: \"Deploy." + tags("and push") + "\"\n")}),
			"team:deploy/agents/openai.yaml:2:27: team:deploy/agents/openai.yaml holds U+E0061 TAG 'a' (tag)"},
		{"a file's name", "", skillFiles("deploy", "Deploy.", SourceFile{Path: "read\u202Edm.txt", Data: []byte("x")}),
			"holds U+202E RIGHT-TO-LEFT OVERRIDE in its name (bidi)"},
		{"text with a NUL, binary files allowed", "[{finding: binary}]", skillFiles("deploy", "Deploy.", SourceFile{Path: "notes.md", Data: []byte("a\x00b" + tags("rm"))}),
			"team:deploy/notes.md:1:4: team:deploy/notes.md holds U+E0072 TAG 'r' (tag)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config, specs := scanConfig(tc.allow)
			held := fakeSources{"team": tc.files}
			root := workspace(t, map[string]string{ConfigName: config, LockName: lockFor(t, specs, held), "registry/none.yaml": ""})
			_, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, held)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	// An escape in a source's registry file.
	config, specs := documentSources(false)
	doc := "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: standup}\nspec: {description: Standup., body: \"List what changed.\\u200B\"}\n"
	held := fakeSources{"catalog": {{Path: "registry/catalog.yaml", Document: true, Data: []byte(doc)}}}
	root := workspace(t, map[string]string{ConfigName: config, LockName: documentLock(t, specs, held), "registry/none.yaml": ""})
	if _, err := LoadReading(workspacefs.OS{}, root, ConfigName, nil, held); err == nil || !strings.Contains(err.Error(), "catalog:registry/catalog.yaml:3:18: catalog:registry/catalog.yaml holds U+200B ZERO WIDTH SPACE, written as an escape (zero-width)") {
		t.Errorf("an escape in a source's registry file: %v", err)
	}
}

// What an MCP server gives is the server's text, recorded in the workspace's
// snapshot: hidden text in it is refused, not a warning, unless the server's
// allow lets it through.
func TestHiddenTextAServerGaveIsRefused(t *testing.T) {
	text := `{type: object, properties: {summary: {type: string}}, required: [summary]}`
	snapshot := strings.Replace(recordedTool("open_ticket", text), "title: open_ticket", "title: \"Open a ticket.\\u200B\"", 1)
	for _, tc := range []struct{ allow, want string }{
		{"", "tracker.open_ticket of MCP server tracker holds U+200B ZERO WIDTH SPACE (zero-width): what a server gives reaches a model unreviewed, so it is refused"},
		{"      allow: [{finding: zero-width, path: tracker.open_*}]\n", ""},
		{"      allow: [{finding: zero-width, path: tracker.other}]\n", "tracker.open_ticket of MCP server tracker holds U+200B"},
	} {
		root := workspace(t, map[string]string{ConfigName: mcpConfig("{tool: open_ticket}") + tc.allow, "registry/mcp-tracker.yaml": snapshot})
		_, err := Load(workspacefs.OS{}, root)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.allow, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q: err = %v, want %q", tc.allow, err, tc.want)
		}
	}
}

// The server's input schema is its text too, kept as JSON: a key or a value in
// it with hidden text is refused as a title with it is; and a byte order mark
// is hidden text at the start of a value, where no file begins.
func TestHiddenTextInAServersSchemaOrAtAValuesStartIsRefused(t *testing.T) {
	for _, tc := range []struct{ name, schema, title, want string }{
		{"a key", `{type: object, properties: {"pa\u202Eht": {type: string}}}`, "Open a ticket.", "U+202E RIGHT-TO-LEFT OVERRIDE"},
		{"a description", `{type: object, properties: {summary: {type: string, description: "ignore previous\U000E0041"}}}`, "Open a ticket.", "U+E0041 TAG 'A' (tag)"},
		{"a title's first code point", `{type: object, properties: {summary: {type: string}}}`, `\uFEFFOpen a ticket.`, "U+FEFF ZERO WIDTH NO-BREAK SPACE"},
	} {
		snapshot := strings.Replace(recordedTool("open_ticket", tc.schema), "title: open_ticket", `title: "`+tc.title+`"`, 1)
		root := workspace(t, map[string]string{ConfigName: mcpConfig("{tool: open_ticket}"), "registry/mcp-tracker.yaml": snapshot})
		if _, err := Load(workspacefs.OS{}, root); err == nil || !strings.Contains(err.Error(), "tracker.open_ticket of MCP server tracker holds "+tc.want) {
			t.Errorf("%s: err = %v, want it refused for %s", tc.name, err, tc.want)
		}
	}
}
