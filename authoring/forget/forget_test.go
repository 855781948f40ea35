package forget

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

func generated(t *testing.T, owner, path string) []byte {
	t.Helper()
	data, err := banner.Stamp([]byte("---\nname: note\ndescription: Note\n---\n\nBody.\n"), owner, path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestHandOverTakesOnlyTheNamedOwnersFiles(t *testing.T) {
	const p = ".claude/skills/note/SKILL.md"
	data := generated(t, "capability/journal.note", p)
	f, ok := HandOver(p, data, []string{"skill/note", "capability/journal.note"})
	if !ok || string(f.Yours) != "---\nname: note\ndescription: Note\n---\n\nBody.\n" || f.Sum != sha256.Sum256(data) || f.Owner != "capability/journal.note" {
		t.Errorf("HandOver = %+v, %v", f, ok)
	}
	if _, ok := HandOver(p, data, []string{"skill/note"}); ok {
		t.Error("handed over a file whose banner names another declaration")
	}
	if _, ok := HandOver(p, []byte("---\nname: note\n---\nmine\n"), []string{"capability/journal.note"}); ok {
		t.Error("handed over a person's file")
	}
}

func TestApplyChangesNothingOfAFileChangedSinceItWasRead(t *testing.T) {
	root := t.TempDir()
	const p = ".claude/skills/note/SKILL.md"
	data := generated(t, "capability/journal.note", p)
	write := func(rel string, b []byte) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(p, data)
	config := []byte("kind: Workspace\nspec:\n  disabled: []\n")
	write("skillsync.yaml", config)
	f, _ := HandOver(p, data, []string{"capability/journal.note"})
	edited, _, err := Disable(config, "note")
	if err != nil {
		t.Fatal(err)
	}
	changed := append(data, "edited\n"...)
	write(p, changed)
	// Another copy is handed over all the same; the error says so.
	const q = ".agents/skills/note/SKILL.md"
	other := generated(t, "capability/journal.note", q)
	write(q, other)
	g, _ := HandOver(q, other, []string{"capability/journal.note"})
	err = Apply(workspacefs.OS{}, root, []File{f, g}, "skillsync.yaml", sha256.Sum256(config), edited)
	if err == nil {
		t.Fatal("Apply handed over a file changed since it was read")
	}
	if !strings.Contains(err.Error(), q+" is yours already, without the banner; skillsync.yaml was not changed") {
		t.Errorf("the error does not say what was handed over: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, q)); string(got) != string(g.Yours) {
		t.Errorf("%s was not handed over:\n%s", q, got)
	}
	if got, _ := os.ReadFile(filepath.Join(root, p)); string(got) != string(changed) {
		t.Errorf("the changed file was rewritten:\n%s", got)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "skillsync.yaml")); string(got) != string(config) {
		t.Errorf("skillsync.yaml was edited although a file could not be handed over:\n%s", got)
	}

	write(p, data)
	write("skillsync.yaml", append(config, "# a person's edit\n"...))
	if err := Apply(workspacefs.OS{}, root, []File{f}, "skillsync.yaml", sha256.Sum256(config), edited); err == nil {
		t.Fatal("Apply wrote over a skillsync.yaml changed since it was read")
	}
	if got, _ := os.ReadFile(filepath.Join(root, "skillsync.yaml")); string(got) != string(config)+"# a person's edit\n" {
		t.Errorf("skillsync.yaml changed since it was read was replaced:\n%s", got)
	}
}

// Where the edit of skillsync.yaml put its content in place over a save it
// then could not put back, the error says the name is disabled, not to add it
// by hand.
func TestApplySaysTheNameIsDisabledWhenASaveInItsWayIsKeptAside(t *testing.T) {
	if !testkit.Swaps(t) {
		t.Skip("this system's Dir cannot swap two files in one step")
	}
	root := t.TempDir()
	config := []byte("kind: Workspace\nspec:\n  disabled: []\n")
	testkit.WriteFile(t, root, "skillsync.yaml", config)
	edited, _, err := Disable(config, "note")
	if err != nil {
		t.Fatal(err)
	}
	save := func(string) {
		if err := os.WriteFile(filepath.Join(root, "skillsync.yaml"), append(config, "# a person's edit\n"...), 0o644); err != nil {
			t.Error(err)
		}
	}
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "Exchange", Path: "skillsync.yaml", Before: save, Times: 1},
		{Op: "Exchange", Path: "skillsync.yaml", Err: syscall.EIO, Times: 1}}}
	err = Apply(sys, root, nil, "skillsync.yaml", sha256.Sum256(config), edited)
	if err == nil || !strings.Contains(err.Error(), "the name is in spec.disabled") || strings.Contains(err.Error(), "add the name to spec.disabled by hand") {
		t.Fatalf("Apply = %v, want it to say the name is disabled and the save kept", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "skillsync.yaml")); string(got) != string(edited) {
		t.Errorf("skillsync.yaml = %q, want the edit in place", got)
	}
}
