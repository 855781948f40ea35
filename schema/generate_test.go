package schema

import (
	"bytes"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
)

var update = flag.Bool("update", false, "write the schemas in this directory again from desired/registry")

// The committed schemas must be what the types give now: run `go test ./schema
// -update` after changing a type, a doc comment or a rule carried here.
func TestSchemasAreCurrent(t *testing.T) {
	for file, want := range generate(t) {
		got, err := os.ReadFile(file)
		if err == nil && bytes.Equal(got, want) {
			continue
		}
		if !*update {
			t.Errorf("%s is stale (or missing); run go test ./schema -update", file)
			continue
		}
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// generate returns every committed schema by file name.
func generate(t *testing.T) map[string][]byte {
	t.Helper()
	r := reflector(t)
	workspace := r.Reflect(registry.Workspace{})
	workspaceRules(workspace)
	capability := r.Reflect(registry.Object[registry.CapabilitySpec]{})
	capabilityRules(capability)
	skill := r.Reflect(registry.Object[registry.SkillSpec]{})
	skillRules(skill)
	profile := r.Reflect(registry.Object[registry.ProfileSpec]{})
	profileRules(profile)
	roots := []*jsonschema.Schema{workspace, capability, skill, profile}
	for _, s := range roots {
		acceptNull(s)
	}
	anyRegistryDocument := anyKind(map[string]*jsonschema.Schema{
		"Capability": capability, "Skill": skill, "Profile": profile,
	})
	// Nothing, or only comments, between two --- is an empty document, which the
	// loader skips (anyKind has its own way to say so).
	for _, s := range roots {
		s.Type, s.Extras = "", map[string]any{"type": []string{"object", "null"}}
	}

	out := map[string][]byte{}
	add := func(file string, s *jsonschema.Schema) {
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		out[file] = format(t, data)
	}
	add("workspace.json", workspace)
	add("capability.json", capability)
	add("skill.json", skill)
	add("profile.json", profile)
	add("registry.json", anyRegistryDocument)
	return out
}

// reflector reads the types as the loader decodes them: every key is known (the
// decoder refuses others), a field is required only where its tag says so, and
// each doc comment becomes the description an editor shows for the key.
func reflector(t *testing.T) *jsonschema.Reflector {
	t.Helper()
	r := &jsonschema.Reflector{
		DoNotReference:             true, // each property its own schema, to constrain one place alone
		RequiredFromJSONSchemaTags: true,
		Anonymous:                  true, // no $id: a schema is found by its file's address
	}
	// AddGoComments names the package it reads as base joined with the directory
	// walked, so the walk from here, ../desired/registry, needs base one level down.
	if err := r.AddGoComments(module+"/schema", "../desired/registry"); err != nil {
		t.Fatal(err)
	}
	// The comment map knows every Object[S] as Object.
	r.LookupComment = func(t reflect.Type, field string) string {
		if t.PkgPath() != registryPackage || field == "" || !strings.HasPrefix(t.Name(), "Object[") {
			return ""
		}
		return r.CommentMap[registryPackage+".Object."+field]
	}
	return r
}

const (
	module          = "github.com/skillsync/skillsync"
	registryPackage = module + "/desired/registry"
)

// documentRules sets what every document of a kind has: apiVersion and kind as the
// loader wants them, and spec required when a field of it is.
func documentRules(s *jsonschema.Schema, kind, title, description string) {
	s.Title, s.Description = title, description
	oneParagraphLines(s)
	prop(s, "apiVersion").Const = registry.APIVersion
	prop(s, "kind").Const = kind
	if len(prop(s, "spec").Required) > 0 {
		s.Required = append(s.Required, "spec")
	}
}

func workspaceRules(s *jsonschema.Schema) {
	documentRules(s, "Workspace", "skillsync.yaml",
		"A skillsync workspace: which registry files to read, which target directories to write and the default profile.")
	spec := prop(s, "spec")
	prop(spec, "registry").Items.MinLength = ptr(1)
	prop(spec, "registry").Items.Not = &jsonschema.Schema{Pattern: "^/"} // relative to skillsync.yaml
	targetList(prop(spec, "targets"))
	prop(spec, "reservedNames").Items.MinLength = ptr(1)
	matches(prop(spec, "mcp", "server"), orEmpty(registry.MCPNamePattern), "1 to 64 letters, digits, _ and -")
	// The validator takes an empty string as unset, and so null in the list of
	// names it never checks.
	prop(spec, "unguardedClients").Enum = []any{registry.UnguardedWithhold, registry.UnguardedAllow, ""}
	prop(spec, "generatedFiles").Enum = []any{registry.GeneratedCommit, registry.GeneratedIgnore, ""}
	prop(spec, "frontMatter").Enum = []any{registry.FrontMatterClients, registry.FrontMatterStrict, ""}
	prop(spec, "disabled").Items.Extras = map[string]any{"type": []string{"string", "null"}}
	prop(spec, "disabled").Items.Type = ""
}

func capabilityRules(s *jsonschema.Schema) {
	documentRules(s, "Capability", "skillsync Capability",
		"A capability declared once: how an agent reaches it, and the skill skillsync generates for it.")
	id := prop(s, "metadata", "name")
	id.Description = "The capability id, unique in the workspace, like intents.propose."
	matches(id, registry.CapabilityIDPattern, "letters and digits in runs separated by single dots, hyphens or underscores, like intents.propose")
	spec := prop(s, "spec")
	oneLine(prop(spec, "title"))
	description := prop(spec, "description")
	oneLine(description)
	description.Pattern = orEmpty(description.Pattern)
	effect := prop(spec, "effect")
	for _, e := range registry.Effects() {
		effect.Enum = append(effect.Enum, e)
	}
	// Any JSON Schema: an object, or true or false.
	prop(spec, "input").Extras = map[string]any{"type": []string{"object", "boolean"}}
	matches(prop(spec, "mcp", "tool"), registry.MCPToolNamePattern, "1 to 128 letters, digits, _, - and .")
	matches(prop(spec, "mcp", "server"), orEmpty(registry.MCPNamePattern), "1 to 64 letters, digits, _ and -")
	command := prop(spec, "cli", "command")
	command.MinItems = ptr(1)
	matches(command.Items, wordPattern, wordMessage)
	matches(prop(spec, "cli", "flag"), flagPattern, "a flag as it is typed, like --statement: no spaces, control characters, backquotes, < or >")
	skill := prop(spec, "skill")
	skillName(prop(skill, "alias"))
	matches(prop(skill, "argument"), wordPattern, wordMessage)
	targetList(prop(skill, "targets"))
	dottedNames(prop(skill, "requiredCapabilities"))
	// A skill needs an input whose properties its argument names, and a way to
	// call the capability.
	inputObject := present("input")
	inputObject.Properties.Set("input", &jsonschema.Schema{Type: "object"})
	spec.If = present("skill")
	spec.Then = &jsonschema.Schema{AllOf: []*jsonschema.Schema{
		inputObject,
		{AnyOf: []*jsonschema.Schema{present("mcp"), present("cli")}},
	}}
}

func skillRules(s *jsonschema.Schema) {
	documentRules(s, "Skill", "skillsync Skill", "A workflow skill with a body of its own.")
	skillName(prop(s, "metadata", "name"))
	prop(s, "metadata", "name").Description = "The skill's name, typed as /<name>: lowercase letters, digits and single hyphens, at most 64 characters."
	spec := prop(s, "spec")
	oneLine(prop(spec, "description"))
	for _, key := range []string{"license", "compatibility", "allowedTools"} {
		p := prop(spec, key)
		matches(p, orEmpty(notBlankLine), "one line of text, without control characters")
	}
	prop(spec, "compatibility").MaxLength = ptr(registry.MaxCompatibilityLength)
	matches(prop(spec, "metadata").AdditionalProperties, orEmpty(notBlankLine), "one line of text, without control characters")
	matches(prop(spec, "body"), bodyPattern, "plain text: tabs and line breaks, but no other control characters or bidi overrides")
	// One of the two, the other left out or empty.
	body, bodyFile := present("body"), present("bodyFile")
	prop(body, "body").MinLength = ptr(1)
	prop(bodyFile, "bodyFile").MinLength = ptr(1)
	spec.OneOf = []*jsonschema.Schema{body, bodyFile}
	dottedNames(prop(spec, "requiredCapabilities"))
	targetList(prop(spec, "targets"))
	path := prop(spec, "paths").Items
	matches(path, `^`+lineChars+`+$`, "one line, not empty")
	path.Not = &jsonschema.Schema{Pattern: `^/|^\.\.$|^\.\./|/\.\./`} // absolute, or leaving the root
}

func profileRules(s *jsonschema.Schema) {
	documentRules(s, "Profile", "skillsync Profile", "The client capabilities a client announces: what it can render or do.")
	skillName(prop(s, "metadata", "name"))
	prop(s, "metadata", "name").Description = "The profile's name, for --profile and spec.profile of skillsync.yaml."
	dottedNames(prop(s, "spec", "capabilities"))
}

// anyKind is the schema of one document of a registry file: of whichever kind it
// says it is. It copies the kinds' schemas as they are when called.
func anyKind(kinds map[string]*jsonschema.Schema) *jsonschema.Schema {
	s := &jsonschema.Schema{
		Version:     jsonschema.Version,
		Title:       "skillsync registry document",
		Description: "One document of a registry file: a Capability, a Skill or a Profile, as its kind says.",
		Definitions: jsonschema.Definitions{},
	}
	for _, kind := range slices.Sorted(maps.Keys(kinds)) {
		def := *kinds[kind]
		def.Version = ""
		s.Definitions[kind] = &def
		s.OneOf = append(s.OneOf, &jsonschema.Schema{Ref: "#/$defs/" + kind})
	}
	// An empty document, as the loader skips it, is its own choice: one that each
	// kind also took would match twice.
	s.OneOf = append(s.OneOf, &jsonschema.Schema{Type: "null", Title: "empty document"})
	return s
}

func skillName(s *jsonschema.Schema) {
	matches(s, registry.SkillNamePattern, "lowercase letters, digits and single hyphens, like propose-intent")
	s.MaxLength = ptr(registry.MaxNameLength)
}

func oneLine(s *jsonschema.Schema) {
	matches(s, notBlankLine, "one line of text, not blank, without control characters")
	s.MaxLength = ptr(registry.MaxDescriptionLength)
}

func targetList(s *jsonschema.Schema) {
	for _, t := range clients.TargetNames() {
		s.Items.Enum = append(s.Items.Enum, t)
	}
	s.UniqueItems = true
}

func dottedNames(s *jsonschema.Schema) {
	matches(s.Items, registry.DottedNamePattern, "a dotted name like markdown.codeBlock.echarts-fulldata")
}

// matches sets a pattern, and the message yaml-language-server shows when a value
// misses it instead of the pattern itself.
func matches(s *jsonschema.Schema, pattern, message string) {
	s.Pattern = pattern
	if s.Extras == nil {
		s.Extras = map[string]any{}
	}
	s.Extras["patternErrorMessage"] = "must be " + message
}

// orEmpty also lets the empty string through, which the validator takes as unset.
func orEmpty(pattern string) string { return "^$|" + pattern }

// present holds for an object that has key with a value other than null: the
// decoder takes a null value as no value.
func present(key string) *jsonschema.Schema {
	props := jsonschema.NewProperties()
	props.Set(key, &jsonschema.Schema{Not: &jsonschema.Schema{Type: "null"}})
	return &jsonschema.Schema{Required: []string{key}, Properties: props}
}

// acceptNull lets every key that is not required hold null, as the decoder does
// (`disabled:` with nothing after it is no list).
func acceptNull(s *jsonschema.Schema) {
	if s.Properties == nil {
		return
	}
	for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
		p := pair.Value
		acceptNull(p)
		if slices.Contains(s.Required, pair.Key) {
			continue
		}
		types, _ := p.Extras["type"].([]string)
		if p.Type != "" {
			types, p.Type = []string{p.Type}, ""
		}
		if p.Extras == nil {
			p.Extras = map[string]any{}
		}
		p.Extras["type"] = append(types, "null")
	}
}

// oneParagraphLines joins the lines of each description, wrapped as Go comments
// are, into one: an editor wraps them itself.
func oneParagraphLines(s *jsonschema.Schema) {
	s.Description = strings.ReplaceAll(s.Description, "\n", " ")
	if s.Properties != nil {
		for pair := s.Properties.Oldest(); pair != nil; pair = pair.Next() {
			oneParagraphLines(pair.Value)
		}
	}
	if s.Items != nil {
		oneParagraphLines(s.Items)
	}
}

// prop is the schema of the property at path, each key a level deeper.
func prop(s *jsonschema.Schema, path ...string) *jsonschema.Schema {
	for _, key := range path {
		next, ok := s.Properties.Get(key)
		if !ok {
			panic("schema: no property " + key)
		}
		s = next
	}
	return s
}

func ptr(n int) *uint64 {
	u := uint64(n)
	return &u
}
