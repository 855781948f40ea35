package registry

import (
	"strings"
	"testing"
)

func TestWarningsNameBodyLinksTheSkillDoesNotBring(t *testing.T) {
	body := strings.Join([]string{
		"See [the checklist](checklist.md), ![logo](assets/logo%20big.png \"Logo\") and [notes](references/notes.md#top).",
		"[web](https://example.com/x.md) [mail](mailto:a@b.c) [anchor](#usage) [abs](/etc/passwd) [folder](assets/)",
		"```",
		"[in a fence](fenced.md)",
		"```",
		"[up](../team/x.md)",
	}, "\n")
	dir := Skill{Name: "release", Dir: "skills/release", bodyLine: 5, Body: body,
		Files: []SupportFile{{Path: "checklist.md"}, {Path: "assets/logo big.png"}}}
	got := missingLinks(dir)
	if len(got) != 2 {
		t.Fatalf("warnings = %v, want references/notes.md and ../team/x.md", got)
	}
	if got[0].Pos.File != "skills/release/SKILL.md" || got[0].Pos.Line != 5 || !strings.Contains(got[0].Message, "references/notes.md#top, which the skill directory does not hold") {
		t.Errorf("first warning = %+v", got[0])
	}
	if got[1].Pos.Line != 10 || !strings.Contains(got[1].Message, "outside the skill's directory") {
		t.Errorf("second warning = %+v", got[1])
	}
	inline := Skill{Name: "notes", BodyPath: "skills/notes.md", Body: "Use [it](scripts/run.sh)."}
	if got := missingLinks(inline); len(got) != 1 || got[0].Pos.File != "skills/notes.md" || !strings.Contains(got[0].Hint, "spec.dir") {
		t.Errorf("a skill without a directory: %v", got)
	}
}
