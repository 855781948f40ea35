package state

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

func TestUnwrittenRoundTrip(t *testing.T) {
	root := t.TempDir()
	if got, err := ReadUnwritten(workspacefs.OS{}, root); err != nil || len(got) != 0 {
		t.Fatalf("no list: %v %v, want an empty set", got, err)
	}
	paths := map[string]bool{".agents/skills/a/b.md": true, ".claude/skills/a/c d.md": true}
	if err := WriteUnwritten(workspacefs.OS{}, root, paths); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadUnwritten(workspacefs.OS{}, root); err != nil || !maps.Equal(got, paths) {
		t.Fatalf("read back %v %v, want %v", got, err, paths)
	}
	if _, err := os.Stat(filepath.Join(root, IgnoreFile)); err != nil {
		t.Errorf("the list made .skillsync/ without its .gitignore: %v", err)
	}
	if err := WriteUnwritten(workspacefs.OS{}, root, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, UnwrittenFile)); err == nil {
		t.Error("an empty list is left as a file")
	}
}
