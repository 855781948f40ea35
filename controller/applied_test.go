package controller

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// inSync is the example workspace after one reconcile, which records its sources.
func inSync(t *testing.T) string {
	t.Helper()
	root := testkit.ExampleWorkspace(t)
	if out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("first reconcile: %v %v", out.Err, out.Problems)
	}
	return root
}

func TestReconcileRecordsTheSourcesItApplied(t *testing.T) {
	root := inSync(t)
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	record, err := state.ReadApplied(r)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := registry.Load(workspacefs.OS{}, root)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(record.Sums(), loadedSums(reg)) || len(record.Files) != len(reg.Files)+1 {
		t.Fatalf("record holds %d files, want the config and the %d registry files as read", len(record.Files), len(reg.Files))
	}
	for name := range record.Files {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if kept := record.In(r).Bytes(name); !bytes.Equal(kept, data) {
			t.Errorf("the record keeps %d bytes of %s, want the %d applied", len(kept), name, len(data))
		}
	}
}

func TestACutOffRegistryFileIsInvalidUntilAccepted(t *testing.T) {
	root := inSync(t)
	file := filepath.Join(root, "registry/intents.yaml")
	full, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// Cut inside the first document, before its skill: the rest still parses,
	// declaring less.
	cut := full[:strings.Index(string(full), "  skill: {alias: intent")]
	if err := os.WriteFile(file, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second)
	if len(out.Problems) != 1 || out.Problems[0].Pos.File != "registry/intents.yaml" || out.Problems[0].Pos.Line != strings.Count(string(cut), "\n")+1 {
		t.Fatalf("problems = %v, want one at the end of the cut registry/intents.yaml", out.Problems)
	}
	// The message says what applying it would delete.
	if msg := out.Problems[0].Message; !strings.Contains(msg, ".agents/skills/intent/SKILL.md") {
		t.Errorf("message %q does not list the deletes", msg)
	}
	if len(out.Applied) != 0 {
		t.Fatalf("applied %v from a cut-off file", out.Applied)
	}

	accepted, err := state.Accept(workspacefs.OS{}, root, registry.ConfigName, []string{"registry/intents.yaml"})
	if err != nil || len(accepted) != 1 {
		t.Fatalf("Accept = %v, %v", accepted, err)
	}
	out = ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second)
	if len(out.Problems) != 0 || out.Err != nil || out.Plan.Pending() == 0 {
		t.Fatalf("after accept: problems %v, err %v, %d pending; want the shorter registry applied", out.Problems, out.Err, out.Plan.Pending())
	}
}

func TestAnUnreadableRecordIsInvalidInput(t *testing.T) {
	root := inSync(t)
	if err := os.WriteFile(filepath.Join(root, state.AppliedFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A change is pending, so only the refusal keeps the run from writing.
	skill := filepath.Join(root, ".claude/skills/intent/SKILL.md")
	if err := os.Remove(skill); err != nil {
		t.Fatal(err)
	}
	out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second)
	if len(out.Problems) != 1 || out.Problems[0].Pos.File != state.AppliedFile || !strings.Contains(out.Problems[0].Hint, "remove it") {
		t.Fatalf("problems = %v, want one naming %s with what to do", out.Problems, state.AppliedFile)
	}
	if record, err := os.ReadFile(filepath.Join(root, state.AppliedFile)); err != nil || string(record) != "{not json" {
		t.Errorf("record rewritten: %q %v", record, err)
	}
	if _, err := os.Stat(skill); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a skill file was written despite the unreadable record: %v", err)
	}
}

func TestOnceRecordsANewRegistryEvenWhenNothingElseChanges(t *testing.T) {
	root := inSync(t)
	file := filepath.Join(root, "registry/intents.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// A comment changes no skill, but the record must follow it, or a later cut
	// inside the new text would be compared with an older version.
	if err := os.WriteFile(file, append(data, "# reviewed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second)
	if out.Err != nil || out.Plan.Pending() != 0 {
		t.Fatalf("reconcile: err %v, %d pending; want nothing to change", out.Err, out.Plan.Pending())
	}
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if record, err := state.ReadApplied(r); err != nil || !bytes.HasSuffix(record.In(r).Bytes("registry/intents.yaml"), []byte("# reviewed\n")) {
		t.Fatalf("the record does not hold the commented file (%v)", err)
	}
}

// A file shorter than the one last applied that deletes nothing is an edit like any
// other: removing a trailing comment, or a capability that has no skill.
func TestACutThatDeletesNothingIsApplied(t *testing.T) {
	root := inSync(t)
	file := filepath.Join(root, "registry/intents.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	skillless := "---\napiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: intents.count}\nspec:\n  title: Count intents\n  effect: read\n  mcp: {tool: intents_count}\n"
	if err := os.WriteFile(file, append(append(slices.Clip(data), skillless...), "# a trailing comment\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("longer file: %v %v", out.Err, out.Problems)
	}
	for _, shorter := range [][]byte{append(slices.Clip(data), skillless...), data} {
		if err := os.WriteFile(file, shorter, 0o644); err != nil {
			t.Fatal(err)
		}
		out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second)
		if out.Err != nil || len(out.Problems) > 0 || out.Plan.Drift() != 0 {
			t.Fatalf("cut of %d bytes: err %v, problems %v, drift %d; want it applied, deleting nothing", len(shorter), out.Err, out.Problems, out.Plan.Drift())
		}
	}
}

// A run killed while it replaced the record leaves a temp file in .skillsync/; the
// next run that records removes it (found by the crash-safety suite).
func TestRecordingRemovesATempFileAKilledRunLeft(t *testing.T) {
	root := inSync(t)
	leftover := filepath.Join(root, state.Dir, ".skillsync-0123456789abcdef.tmp")
	if err := os.WriteFile(leftover, []byte(`{"files":`), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "registry/intents.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(data, "# grown\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second); out.Err != nil || len(out.Problems) > 0 {
		t.Fatal(out.Err, out.Problems)
	}
	if _, err := os.Stat(leftover); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("temp file in .skillsync/ survived the next recording run: %v", err)
	}
}

// ReconcileOnce reuses the inputs it planned with only if nothing they came from
// changed by the time it holds the lock: not the profile file, not the record.
func TestInputsAreUnchangedUntilTheProfileOrTheRecordChanges(t *testing.T) {
	root := inSync(t)
	in, err := LoadInputs(Request{System: workspacefs.OS{}, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if !in.unchanged() {
		t.Fatal("unchanged = false right after loading")
	}
	if err := state.UseProfile(workspacefs.OS{}, root, registry.ConfigName, "web-shell"); err != nil {
		t.Fatal(err)
	}
	if in.unchanged() {
		t.Error("unchanged = true after profile use")
	}
	if in, err = LoadInputs(Request{System: workspacefs.OS{}, Root: root}); err != nil {
		t.Fatal(err)
	}
	if _, err := state.Accept(workspacefs.OS{}, root, registry.ConfigName, []string{"skillsync.yaml"}); err != nil {
		t.Fatal(err)
	}
	if !in.unchanged() {
		t.Error("unchanged = false after accepting the file as it is (the record holds the same bytes)")
	}
	if err := os.Remove(filepath.Join(root, state.AppliedFile)); err != nil {
		t.Fatal(err)
	}
	if in.unchanged() {
		t.Error("unchanged = true after the record was removed")
	}
}

// A file cut short is blamed only for the deletes of skills it no longer declares:
// a trailing comment dropped from one file does not hold back a capability removed
// from another.
func TestACutIsBlamedOnlyForItsOwnDeletes(t *testing.T) {
	root := inSync(t)
	journal := filepath.Join(root, "registry/journal.yaml")
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(journal, append(slices.Clip(data), "# a trailing comment\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("with the comment: %v %v", out.Err, out.Problems)
	}
	// Now the comment goes (a cut) and intents.withdraw leaves another file.
	if err := os.WriteFile(journal, data, 0o644); err != nil {
		t.Fatal(err)
	}
	intents := filepath.Join(root, "registry/intents.yaml")
	full, err := os.ReadFile(intents)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(full, []byte("metadata: {name: intents.withdraw}"))
	start := bytes.LastIndex(full[:i], []byte("---\n"))
	end := i + bytes.Index(full[i:], []byte("---\n"))
	if err := os.WriteFile(intents, append(slices.Clip(full[:start]), full[end:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second)
	if out.Err != nil || len(out.Problems) > 0 || out.Plan.Count(plan.Delete) != 4 {
		t.Fatalf("err %v, problems %v, %d deletes; want the withdraw-intent skills and their Codex policy file deleted", out.Err, out.Problems, out.Plan.Count(plan.Delete))
	}
}
