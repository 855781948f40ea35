package property

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillsync/skillsync/test/bench/workspacegen"
)

// WithoutNote is registry/journal.yaml of the example with its first capability,
// and so the note skill, removed: a save that deletes (and, not being a prefix of
// the file, no cut-off).
func WithoutNote(t testing.TB, root string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "registry/journal.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cut := bytes.Index(data, []byte("---\n"))
	if cut < 0 {
		t.Fatal("no second document in registry/journal.yaml")
	}
	return data[cut+len("---\n"):]
}

// Backdate sets the modification time of everything in the workspace but what
// skillsync writes to an hour ago: inputs saved long before the pass.
func Backdate(t testing.TB, root string) {
	t.Helper()
	if err := workspacegen.Backdate(root); err != nil {
		t.Fatal(err)
	}
}

// NoteSkill is where the example workspace's note skill is generated for Claude
// Code.
var NoteSkill = filepath.Join(".claude", "skills", "note", "SKILL.md")
