package controller

import (
	"bytes"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/internal/testkit/property"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

func TestOnceWaitsForInputsSavedJustNowBeforeDeleting(t *testing.T) {
	root := inSync(t)
	if err := os.WriteFile(filepath.Join(root, "registry/journal.yaml"), property.WithoutNote(t, root), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root, Settle: 300 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&logs, nil))}, 10*time.Second)
	if out.Err != nil || len(out.Problems) > 0 || len(out.Deferred) > 0 {
		t.Fatalf("err %v, problems %v, deferred %d", out.Err, out.Problems, len(out.Deferred))
	}
	if !strings.Contains(logs.String(), "waiting for the inputs to settle before deleting") || !strings.Contains(logs.String(), "registry/journal.yaml changed") {
		t.Errorf("the pass did not say what it waited for:\n%s", logs.String())
	}
	if _, err := os.Stat(filepath.Join(root, property.NoteSkill)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the orphan was not deleted once the inputs settled: %v", err)
	}
}

func TestOnceDeletesAtOnceWhenTheInputsAreOld(t *testing.T) {
	root := inSync(t)
	if err := os.WriteFile(filepath.Join(root, "registry/journal.yaml"), property.WithoutNote(t, root), 0o644); err != nil {
		t.Fatal(err)
	}
	property.Backdate(t, root)
	var logs bytes.Buffer
	out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root, Settle: time.Hour, Log: slog.New(slog.NewTextHandler(&logs, nil))}, 10*time.Second)
	if out.Err != nil || len(out.Problems) > 0 || len(out.Deferred) > 0 || logs.Len() > 0 {
		t.Fatalf("err %v, problems %v, deferred %d, logs:\n%s", out.Err, out.Problems, len(out.Deferred), logs.String())
	}
	if _, err := os.Stat(filepath.Join(root, property.NoteSkill)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the orphan was not deleted: %v", err)
	}
}

// A file removed and not yet created again leaves no modification time of its own:
// its directory's says the registry just changed.
func TestARemovedRegistryFileCountsAsAChangeThroughItsDirectory(t *testing.T) {
	root := inSync(t)
	property.Backdate(t, root)
	if err := os.Remove(filepath.Join(root, "registry/journal.yaml")); err != nil {
		t.Fatal(err)
	}
	out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root, Settle: time.Hour}, 200*time.Millisecond)
	if len(out.Deferred) == 0 || out.Err == nil || !strings.Contains(out.Err.Error(), "registry changed") {
		t.Fatalf("deferred %d, err %v; want the deletes deferred because registry/ changed", len(out.Deferred), out.Err)
	}
	if _, err := os.Stat(filepath.Join(root, property.NoteSkill)); err != nil {
		t.Errorf("a skill of the removed file was deleted before the inputs settled: %v", err)
	}
	// The creates and updates of the same pass are not held back; the record is.
	if out.recordStale() != true {
		t.Error("the record was written by a pass that deferred its deletes")
	}
}

// Inputs that keep changing for longer than --once waits are never deleted from:
// the pass fails, says which deletes it did not apply, and removes nothing.
func TestOnceGivesUpOnInputsThatKeepChanging(t *testing.T) {
	root := inSync(t)
	file := filepath.Join(root, "registry/journal.yaml")
	full, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cut := property.WithoutNote(t, root)
	stop := make(chan struct{})
	saved, first := make(chan struct{}), make(chan struct{})
	go func() { // an editor saving over and over, each save complete (by rename)
		defer close(saved)
		for i := 0; ; i++ {
			content := cut
			if i%2 == 1 {
				content = append(append([]byte{}, cut...), "# saved again\n"...)
			}
			os.WriteFile(file+".tmp", content, 0o644)
			os.Rename(file+".tmp", file)
			if i == 0 {
				close(first)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	<-first
	out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root, Settle: 500 * time.Millisecond}, 700*time.Millisecond)
	close(stop)
	<-saved
	var unsettled *UnsettledError
	if len(out.Deferred) == 0 || !errors.As(out.Err, &unsettled) || unsettled.Deletes != len(out.Deferred) || !strings.Contains(out.Err.Error(), "delete(s) not applied") {
		t.Fatalf("deferred %d, err %v, problems %v; want the deletes not applied", len(out.Deferred), out.Err, out.Problems)
	}
	if _, err := os.Stat(filepath.Join(root, property.NoteSkill)); err != nil {
		t.Errorf("deleted while the inputs were still changing: %v", err)
	}
	os.WriteFile(file, full, 0o644)
}

// Modification times in the future (a clock that disagrees with this one) are not
// trusted: the inputs settle once this process has read them unchanged for --settle.
func TestFutureTimestampsFallBackToWhatThePassSaw(t *testing.T) {
	root := inSync(t)
	if err := os.WriteFile(filepath.Join(root, "registry/journal.yaml"), property.WithoutNote(t, root), 0o644); err != nil {
		t.Fatal(err)
	}
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "registry/journal.yaml"), future, future); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root, Settle: 300 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&logs, nil))}, 10*time.Second)
	if out.Err != nil || len(out.Deferred) > 0 {
		t.Fatalf("err %v, deferred %d", out.Err, len(out.Deferred))
	}
	if !strings.Contains(logs.String(), "modification time in the future") {
		t.Errorf("the wait does not name the clock:\n%s", logs.String())
	}
	if _, err := os.Stat(filepath.Join(root, property.NoteSkill)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("never deleted: %v", err)
	}
}

// A pass's own writes (the .skillsync/ it creates in a fresh clone, a target
// directory it creates) change the workspace root: they must not hold back the
// deletes of inputs saved long before.
func TestOwnWritesDoNotHoldBackDeletes(t *testing.T) {
	root := inSync(t)
	if err := os.WriteFile(filepath.Join(root, "registry/journal.yaml"), property.WithoutNote(t, root), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, state.Dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, ".agents")); err != nil {
		t.Fatal(err)
	}
	property.Backdate(t, root)
	out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root, Settle: time.Hour}, 10*time.Second)
	if out.Err != nil || len(out.Problems) > 0 || len(out.Deferred) > 0 {
		t.Fatalf("err %v, problems %v, deferred %d (%s)", out.Err, out.Problems, len(out.Deferred), out.SettleWhy)
	}
	if _, err := os.Stat(filepath.Join(root, property.NoteSkill)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the orphan was not deleted: %v", err)
	}
}

// A SKILL.md a person writes in a target takes its name from the other
// targets: those deletes wait until it has settled too, as they would for a
// registry file saved just now. So do they for a skill.md made beside a
// generated SKILL.md, through the time of the directory it is made in. A
// generated SKILL.md rewritten in place reads as a person's for a moment, and
// would otherwise delete the name's copies elsewhere.
func TestAPersonsSkillWrittenJustNowHoldsBackTheDeletesItCauses(t *testing.T) {
	for name, write := range map[string]func(root string) error{
		"SKILL.md in place of a generated one": func(root string) error {
			return os.WriteFile(filepath.Join(root, ".claude/skills/intent/SKILL.md"), []byte("---\nname: intent\ndescription: mine\n---\n"), 0o644)
		},
		"skill.md beside a generated SKILL.md": func(root string) error {
			return os.WriteFile(filepath.Join(root, ".claude/skills/intent/skill.md"), []byte("---\nname: intent\ndescription: mine\n---\n"), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := inSync(t)
			property.Backdate(t, root)
			// The generated files are as old as the inputs: only the write below is new.
			old := time.Now().Add(-time.Hour)
			for _, p := range []string{".claude/skills/intent/SKILL.md", ".claude/skills/intent"} {
				if err := os.Chtimes(filepath.Join(root, p), old, old); err != nil {
					t.Fatal(err)
				}
			}
			if err := write(root); err != nil {
				t.Fatal(err)
			}
			out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root, Settle: time.Hour}, 200*time.Millisecond)
			if len(out.Deferred) == 0 || out.Err == nil || !strings.Contains(out.Err.Error(), ".claude/skills/intent") {
				t.Fatalf("deferred %d, err %v; want the deletes deferred because .claude/skills/intent changed", len(out.Deferred), out.Err)
			}
			for _, p := range []string{".agents/skills/intent/SKILL.md", ".qwen/skills/intent/SKILL.md"} {
				if _, err := os.Stat(filepath.Join(root, p)); err != nil {
					t.Errorf("%s was deleted before the person's file settled: %v", p, err)
				}
			}
		})
	}
}
