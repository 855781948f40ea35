package desired

import (
	"slices"
	"strings"
	"testing"
)

// A skill whose name a person's file holds in one target leaves every target but
// that file's path; other skills stay as they are.
func TestWithholdTaken(t *testing.T) {
	reg := example(t)
	cli, _ := ResolveProfile(reg, ProfileSources{Flag: "cli"})
	all := Build(reg, cli)
	taken := Taken{}
	taken.Add("intent", ".agents/skills/intent/SKILL.md", ".agents/skills/intent/SKILL.md")
	st := Build(reg, cli).WithholdTaken(taken)
	var intent []string
	for p := range st.Files {
		if strings.Contains(p, "/intent/") {
			intent = append(intent, p)
		}
	}
	if !slices.Equal(intent, []string{".agents/skills/intent/SKILL.md"}) {
		t.Errorf("files of intent: %q, want only the person's path, without its policy file", intent)
	}
	if len(st.Files) != len(all.Files)-3 {
		t.Errorf("%d files, want %d less the other two SKILL.md and the policy file", len(st.Files), len(all.Files))
	}
	var targets []string
	for _, w := range st.Withheld {
		if w.Skill == "intent" {
			targets = append(targets, w.Target)
			if w.Reason != "hand-written at .agents/skills/intent/SKILL.md; a name must mean one thing in every client" {
				t.Errorf("reason %q", w.Reason)
			}
		}
	}
	if !slices.Equal(targets, []string{"claude-code", "qwen-code"}) {
		t.Errorf("intent withheld from %q, want the two other targets", targets)
	}
	if got := Build(reg, cli).WithholdTaken(nil); len(got.Files) != len(all.Files) || len(got.Withheld) != len(all.Withheld) {
		t.Error("nothing taken changed the state")
	}
}
