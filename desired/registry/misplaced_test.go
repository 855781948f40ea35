package registry

import (
	"reflect"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

func TestFieldIndentedIntoInputIsReported(t *testing.T) {
	for _, tc := range []struct {
		name, file, content string
		want                string // the one problem, as printed
	}{
		{name: "mcp indented too far",
			content: brokenCapability(t, "  mcp: {tool: notes_add}", "    mcp: {tool: notes_add}"),
			want:    `registry/c.yaml:11:5: spec.input holds "mcp", which is a field of spec: probably indented too far (indent mcp: as far as input:, so that it is a field of spec; in a schema it means nothing)`},
		{name: "skill indented too far",
			content: brokenCapability(t, "    required: [text]\n  mcp: {tool: notes_add}\n  skill: {alias: note, argument: text}\n",
				"    required: [text]\n    skill: {alias: note, argument: text}\n  mcp: {tool: notes_add}\n"),
			want: `registry/c.yaml:11:5: spec.input holds "skill", which is a field of spec: probably indented too far (indent skill: as far as input:, so that it is a field of spec; in a schema it means nothing)`},
		{name: "cli indented too far, as a block",
			content: brokenCapability(t, "  mcp: {tool: notes_add}", "    cli:\n      command: [notes, add]"),
			want:    `registry/c.yaml:11:5: spec.input holds "cli", which is a field of spec: probably indented too far (indent cli: as far as input:, so that it is a field of spec; in a schema it means nothing)`},
		{name: "inside the braces of a flow mapping",
			content: brokenCapability(t, "  input:\n    type: object\n    properties: {text: {type: string}}\n    required: [text]\n",
				"  input: {type: object, properties: {text: {type: string}}, effect: read}\n"),
			want: `registry/c.yaml:7:61: spec.input holds "effect", which is a field of spec: probably written inside its braces (move effect out of the braces of input; in a schema it means nothing)`},
		{name: "JSON",
			file: "registry/c.json",
			content: `{"apiVersion": "skillsync/v1", "kind": "Capability", "metadata": {"name": "notes.add"},
 "spec": {"title": "Add a note", "effect": "write",
  "input": {"type": "object", "properties": {"text": {"type": "string"}}, "mcp": {"tool": "notes_add"}},
  "skill": {"alias": "note", "argument": "text"}}}`,
			want: `registry/c.json:3:75: spec.input holds "mcp", which is a field of spec: probably written inside its braces (move mcp out of the braces of input; in a schema it means nothing)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file
			if file == "" {
				file = "registry/c.yaml"
			}
			// The capability's own rules (a skill with no way to call it) wait until
			// it decodes cleanly: the one problem is where the field went.
			if ps := loadProblems(t, file, tc.content); ps.Error() != tc.want {
				t.Errorf("problems:\n%v\nwant:\n%s", ps, tc.want)
			}
		})
	}
}

// Every field of a capability's spec but input is found in input, from the Go type,
// unless JSON Schema defines a keyword of that name.
func TestEveryFieldOfSpecIsFoundInInput(t *testing.T) {
	fields := jsonFields(reflect.TypeFor[CapabilitySpec]())
	if len(fields) < 6 {
		t.Fatalf("fields of CapabilitySpec: %v", fields)
	}
	for name := range fields {
		root := workspace(t, map[string]string{ConfigName: yamlOnlyConfig,
			"registry/c.yaml": brokenCapability(t, "    type: object\n", "    type: object\n    "+name+": x\n")})
		_, err := Load(workspacefs.OS{}, root)
		ps, _ := err.(Problems)
		want := `registry/c.yaml:9:5: spec.input holds "` + name + `", which is a field of spec: probably indented too far`
		switch {
		case name == "input" || schemaKeywords()[name]:
			if strings.Contains(ps.Error(), "which is a field of spec") {
				t.Errorf("%s: reported though input: %s: is a JSON Schema keyword or input itself:\n%v", name, name, ps)
			}
		case len(ps) != 1 || !strings.HasPrefix(ps[0].String(), want):
			t.Errorf("%s: problems:\n%v\nwant %s…", name, ps, want)
		}
	}
}

// What JSON Schema has right under a schema, and a property that happens to share
// a field's name, are no mistake.
func TestSchemaKeywordsAndPropertiesNamedLikeFieldsAreFine(t *testing.T) {
	for _, content := range []string{
		brokenCapability(t, "    type: object\n", "    type: object\n    title: Note\n"),
		brokenCapability(t, "properties: {text: {type: string}}", "properties: {text: {type: string}, mcp: {type: string}, effect: {type: string}}"),
	} {
		root := workspace(t, map[string]string{ConfigName: yamlOnlyConfig, "registry/c.yaml": content})
		if _, err := Load(workspacefs.OS{}, root); err != nil {
			t.Errorf("%s:\n%v", content, err)
		}
	}
}
