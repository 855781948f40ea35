package registry

import (
	"regexp"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

const fuzzConfig = "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [r.yaml]\n  targets: [claude-code, qwen-code, agents]\n  profile: p\n  mcp: {server: s}\n"

// skillName is SkillNamePattern compiled, a check of the names validation passes
// that does not share the matcher it uses.
var skillName = regexp.MustCompile(SkillNamePattern)

// FuzzParseAndValidate feeds arbitrary registry files through strict decoding and
// validation: no panic, every problem has a place and a message, and a registry that
// passes names only valid, unique skill names.
func FuzzParseAndValidate(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: a.b}\nspec:\n  title: T\n  effect: read\n  input: {type: object, properties: {text: {type: string}}}\n  mcp: {tool: t}\n  skill: {alias: x, argument: text}\n",
		"apiVersion: skillsync/v1\nkind: Profile\nmetadata: {name: p}\nspec: {capabilities: [a.b]}\n---\napiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: s}\nspec: {description: d, body: b, requiredCapabilities: [a.b]}\n",
		"{\"apiVersion\": \"skillsync/v1\", \"kind\": \"Capability\", \"metadata\": {\"name\": 1}}",
		"a: [\n", "kind: Capability\nkind: Skill\n", "--- \n...\n---\n", "&a [*a]", "spec: {title: !!binary aGk=}",
		"spec:\n\ttitle: x\n", "a: \"x\n---\n", "\ufeffa: {b: [1,\n  c: d\n", "spec:\n  input:\n    type: object\n    mcp: {tool: t}\n",
	} {
		f.Add(seed)
	}
	root, err := workspacefs.OS{}.Open(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, content string) {
		l := &loader{root: "/fuzz", r: root, sys: workspacefs.OS{}}
		reg := &Registry{Root: "/fuzz", ConfigFile: ConfigName, malformed: map[document]bool{}}
		_, docs, ps := parseSource(ConfigName, []byte(fuzzConfig))
		if len(ps) > 0 {
			t.Fatal(ps)
		}
		reg.config = docs[0]
		l.decode(reg, docs[0], &reg.Config)
		l.addDocuments(reg, "r.yaml", readFile{data: []byte(content)})
		problems := append(l.problems, Validate(reg)...)
		for _, p := range problems {
			if p.Pos.File == "" || p.Message == "" {
				t.Fatalf("problem without a place or a message: %+v", p)
			}
		}
		if len(problems) > 0 {
			return
		}
		seen := map[string]bool{}
		for _, c := range reg.Capabilities {
			if c.Spec.Skill == nil {
				continue
			}
			name := c.Spec.Skill.Alias
			if seen[name] || !skillName.MatchString(name) || len(name) > MaxNameLength || strings.Contains(name, "mcp") {
				t.Fatalf("validation passed a bad or duplicate name %q", name)
			}
			seen[name] = true
		}
	})
}
