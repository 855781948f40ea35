package adopt

import (
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

func TestParse(t *testing.T) {
	const rel = ".claude/skills/review-pr/SKILL.md"
	sk, err := Parse(rel, []byte("---\r\nname: review-pr\r\ndescription: Review it.\r\nuser-invocable: false\r\npaths: [src/**]\r\n---\r\n\r\nBody $ARGUMENTS\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sk.Name != "review-pr" || sk.Spec.Description != "Review it." || sk.Spec.UserInvocable == nil || *sk.Spec.UserInvocable ||
		len(sk.Spec.Paths) != 1 || sk.Spec.Body != "Body $ARGUMENTS\n" {
		t.Errorf("parsed %+v", sk)
	}
	for _, c := range []struct{ rel, text, says string }{
		{rel, "---\nname: review-pr\ndescription: d\nallowed-tools: Bash\nmodel: x\nhooks: {}\nwhen_to_use: w\n---\nb\n", "cannot carry hooks, when_to_use"},
		{rel, "---\nname: review-pr\ndescription: d\nallowed-tools: {Bash: true}\n---\nb\n", "allowed-tools: neither a string nor a list"},
		{rel, "---\nname: other\ndescription: d\n---\nb\n", `name "other" differs from its directory "review-pr"`},
		{rel, "no front matter\n", "no front matter"},
		{rel, "---\nname: [\n---\nb\n", "front matter:"},
		{"README.md", "---\nname: a\n---\n", "not the SKILL.md of a skill directory"},
		{".claude/skills/review-pr/notes/SKILL.md", "---\nname: a\n---\n", "not the SKILL.md of a skill directory"},
	} {
		if _, err := Parse(c.rel, []byte(c.text)); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Parse(%s, %q): %v, want it to say %q", c.rel, c.text, err, c.says)
		}
	}
}

// The document declares what was parsed, body inline or named as a file.
func TestDocument(t *testing.T) {
	sk, err := Parse(".qwen/skills/a-b/SKILL.md", []byte("---\nname: a-b\ndescription: 'Quoted: yes'\ndisable-model-invocation: true\n---\n\n# Title\n\n  indented\ttab\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bodyFile := range []string{"", "skills/a-b.md"} {
		var doc struct {
			APIVersion, Kind string
			Metadata         struct{ Name string }
			Spec             Spec
		}
		data := Document(sk, bodyFile, "")
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
		want := sk.Spec
		if bodyFile != "" {
			want.Body, want.BodyFile = "", bodyFile
		}
		if doc.Kind != "Skill" || doc.Metadata.Name != "a-b" || doc.Spec.Description != want.Description || doc.Spec.Body != want.Body ||
			doc.Spec.BodyFile != want.BodyFile || !doc.Spec.DisableModelInvocation {
			t.Errorf("document:\n%s", data)
		}
	}
}

func TestGroup(t *testing.T) {
	a, _ := Parse(".claude/skills/review-pr/SKILL.md", []byte("---\nname: review-pr\ndescription: d\n---\nb\n"))
	b, _ := Parse(".qwen/skills/review-pr/SKILL.md", []byte("---\nname: review-pr\ndescription: other\n---\nb\n"))
	if got, err := Group([]Skill{a}, []string{a.Path}); err != nil || len(got) != 1 {
		t.Errorf("one copy: %v %v", got, err)
	}
	if _, err := Group([]Skill{a}, []string{a.Path, ".agents/skills/Review-PR/SKILL.md"}); err == nil || !strings.Contains(err.Error(), "another hand-written review-pr") {
		t.Errorf("a copy differing in case, not given: %v", err)
	}
	if _, err := Group([]Skill{a, b}, []string{a.Path, b.Path}); err == nil || !strings.Contains(err.Error(), "differently") {
		t.Errorf("two copies that differ: %v", err)
	}
}

// Claude Code's own keys a registry Skill carries come along.
func TestParseCarriesClaudeCodeKeys(t *testing.T) {
	sk, err := Parse(".claude/skills/review-pr/SKILL.md", []byte("---\nname: review-pr\ndescription: d\nargument-hint: <pr>\nmodel: opus\ncontext: fork\nagent: Explore\n---\nb\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s := sk.Spec; s.ArgumentHint != "<pr>" || s.Model != "opus" || s.Context != "fork" || s.Agent != "Explore" {
		t.Errorf("parsed %+v", s)
	}
	doc := string(Document(sk, "", ""))
	for _, want := range []string{"argumentHint: <pr>\n", "model: opus\n", "context: fork\n", "agent: Explore\n"} {
		if !strings.Contains(doc, want) {
			t.Errorf("the document lacks %q:\n%s", want, doc)
		}
	}
}
