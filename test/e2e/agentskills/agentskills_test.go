package agentskills

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	good := "---\nname: intent\ndescription: Propose an intent\ndisable-model-invocation: true\n---\n\nbody\n"
	if p := Check("intent", []byte(good)); len(p) != 0 {
		t.Errorf("valid skill refused: %v", p)
	}
	cases := map[string]struct{ dir, file, want string }{
		"no front matter":  {"a", "name: a\n", "does not start"},
		"unclosed":         {"a", "---\nname: a\n", "not closed"},
		"unknown key":      {"a", "---\nname: a\ndescription: d\nargument-hint: x\n---\n", `unknown front matter key "argument-hint"`},
		"name mismatch":    {"b", "---\nname: a\ndescription: d\n---\n", "differs from its directory"},
		"upper name":       {"A", "---\nname: A\ndescription: d\n---\n", "not lowercase"},
		"long name":        {strings.Repeat("a", 65), "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\n", "more than 64"},
		"empty desc":       {"a", "---\nname: a\ndescription: ''\n---\n", "description has 0 characters"},
		"long desc":        {"a", "---\nname: a\ndescription: " + strings.Repeat("é", 1025) + "\n---\n", "description has 1025 characters"},
		"dmi not bool":     {"a", "---\nname: a\ndescription: d\ndisable-model-invocation: 'yes'\n---\n", "not a boolean"},
		"metadata non-str": {"a", "---\nname: a\ndescription: d\nmetadata: {a: [1]}\n---\n", "not a map of strings"},
	}
	for name, c := range cases {
		got := strings.Join(Check(c.dir, []byte(c.file)), "; ")
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: problems %q, want one containing %q", name, got, c.want)
		}
	}
}
