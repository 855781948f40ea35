package controller

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/property"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// A --check pass runs on a read-only system: it plans every change and asks to
// write nothing at all.
func TestCheckAsksToWriteNothing(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	before := testkit.Tree(t, root)
	sys := workspacefs.NewReadOnly(workspacefs.OS{})
	out := ReconcileOnce(Request{System: sys, Root: root, Check: true}, 0)
	if out.Err != nil || len(out.Problems) > 0 || out.Plan.Count(plan.Create) == 0 {
		t.Fatalf("check: err %v, problems %v, %d creates", out.Err, out.Problems, out.Plan.Count(plan.Create))
	}
	if got := sys.Attempts(); len(got) != 0 {
		t.Errorf("a --check pass tried to write: %q", got)
	}
	if !maps.Equal(before, testkit.Tree(t, root)) {
		t.Error("a --check pass changed the workspace")
	}
}

// A --check pass that finds nothing to do asks to write nothing either: not even
// the index a --once pass would leave, which the read-only system it runs on
// could never keep, so it does not make one.
func TestACheckInSyncAsksToWriteNothing(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	if out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second); out.Err != nil {
		t.Fatal(out.Err)
	}
	property.Backdate(t, root)
	before := testkit.Tree(t, root)
	sys := workspacefs.NewReadOnly(workspacefs.OS{})
	out := ReconcileOnce(Request{System: sys, Root: root, Check: true}, 0)
	if out.Err != nil || len(out.Problems) > 0 || out.Plan.Pending() != 0 || len(out.Plan.InSync) == 0 {
		t.Fatalf("check: err %v, problems %v, %d pending, %d in sync", out.Err, out.Problems, out.Plan.Pending(), len(out.Plan.InSync))
	}
	if got := sys.Attempts(); len(got) != 0 {
		t.Errorf("a --check pass in sync tried to write: %q", got)
	}
	if !maps.Equal(before, testkit.Tree(t, root)) {
		t.Error("a --check pass changed the workspace")
	}
}

// The same system refuses a pass that applies: every write it would make is
// refused and recorded, and nothing on disk changes, which is what makes --check
// read-only by construction rather than by the care of the code it runs.
func TestReadOnlySystemRefusesAnApplyingPass(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	before := testkit.Tree(t, root)
	sys := workspacefs.NewReadOnly(workspacefs.OS{})
	out := Reconcile(Request{System: sys, Root: root})
	if out.Err == nil || !errors.Is(out.Err, workspacefs.ErrReadOnly) && !strings.Contains(out.Err.Error(), workspacefs.ErrReadOnly.Error()) {
		t.Errorf("an applying pass on a read-only system: err %v", out.Err)
	}
	if len(sys.Attempts()) == 0 {
		t.Error("no write was attempted, so nothing was proved")
	}
	for _, a := range out.Applied {
		if a.Done() {
			t.Errorf("%s %s counted as done", a.Action, a.Path)
		}
	}
	if !maps.Equal(before, testkit.Tree(t, root)) {
		t.Error("a read-only system let the workspace change")
	}
}

// Faults a disk or another process causes, injected where a test used to need
// chattr +i or a full tmpfs: each failure is reported against its path, the
// other changes are made, and no temp file or half-written SKILL.md is left.
func TestApplyUnderInjectedFaults(t *testing.T) {
	const intent = ".claude/skills/intent/SKILL.md"
	for _, c := range []struct {
		name  string
		fault workspacefs.Fault
		want  string // in the error of the change to intent
	}{
		{"disk full", workspacefs.Fault{Op: "WriteNew", Path: ".claude/skills/intent/*", Err: syscall.ENOSPC}, "no space left"},
		{"not permitted", workspacefs.Fault{Op: "Mkdir", Path: ".claude/skills/intent", Err: syscall.EPERM}, "not permitted"},
		{"I/O error on flush", workspacefs.Fault{Op: "Flush", Err: syscall.EIO}, "input/output error"},
		{"putting in place refused", workspacefs.Fault{Path: intent, Err: syscall.EACCES}, "permission denied"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := testkit.ExampleWorkspace(t)
			sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{c.fault}}
			out := Reconcile(Request{System: sys, Root: root})
			var failed *apply.ApplyError
			if !errors.As(out.Err, &failed) {
				t.Fatalf("err = %v, want an *ApplyError", out.Err)
			}
			i := slices.IndexFunc(failed.Failed, func(a apply.Applied) bool { return a.Path == intent })
			if i < 0 || !strings.Contains(failed.Failed[i].Err.Error(), c.want) {
				t.Errorf("failures %v, want %s failing with %q", failed.Failed, intent, c.want)
			}
			if _, err := os.Lstat(filepath.Join(root, intent)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s exists after its write failed: %v", intent, err)
			}
			if c.fault.Op != "Flush" {
				if _, err := os.Stat(filepath.Join(root, ".qwen/skills/intent/SKILL.md")); err != nil {
					t.Errorf("the other changes were not made: %v", err)
				}
			}
			testkit.AssertNoTempFiles(t, root)
		})
	}
}

// A generated file a person edits between skillsync's read of it and its rename
// over it is kept: the re-check before the write sees the edit.
func TestAFileChangedBetweenReadAndWriteIsKept(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root}); out.Err != nil {
		t.Fatal(out.Err)
	}
	reg := filepath.Join(root, "registry", "intents.yaml")
	data, err := os.ReadFile(reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reg, []byte(strings.Replace(string(data), "Propose an intent", "Propose an intent now", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	const intent = ".claude/skills/intent/SKILL.md"
	mine := []byte("---\nname: intent\ndescription: mine now\n---\n")
	reads := 0
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{
		Op: "ReadRegular", Path: intent,
		Before: func(string) {
			// The scan reads it first; the second read is the re-check before the rename.
			if reads++; reads == 2 {
				os.WriteFile(filepath.Join(root, intent), mine, 0o644)
			}
		},
	}}}
	out := Reconcile(Request{System: sys, Root: root, Options: plan.Options{}})
	var failed *apply.ApplyError
	if !errors.As(out.Err, &failed) || len(failed.Failed) != 1 || failed.Failed[0].Path != intent {
		t.Fatalf("err = %v, want the update of %s alone to fail", out.Err, intent)
	}
	if got, _ := os.ReadFile(filepath.Join(root, intent)); string(got) != string(mine) {
		t.Errorf("%s = %q, want the person's edit kept", intent, got)
	}
	if reads != 2 {
		t.Errorf("%s read %d times, want the scan and the re-check", intent, reads)
	}
}

// Every write of a run is made durable by one flush before any is put in place,
// whether it is a SKILL.md or a supporting file; a run that deletes a supporting
// file flushes its creates a second time, after the deletes that make room for
// them (as does one whose new file needs a new folder); a run with nothing to
// write flushes nothing.
func TestWritesShareOneFlush(t *testing.T) {
	root := t.TempDir()
	writeRelease(t, root, "[claude-code, qwen-code, agents]")
	testkit.WriteFile(t, root, "skills/release/ref", []byte("a file, a folder next time\n"))
	flushes := 0
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{Op: "Flush", Before: func(string) { flushes++ }}}}
	run := func(want int) {
		t.Helper()
		flushes = 0
		if out := Reconcile(Request{System: sys, Root: root}); out.Err != nil || len(out.Problems) > 0 {
			t.Fatalf("reconcile: %v %v", out.Err, out.Problems)
		}
		if flushes != want {
			t.Errorf("%d flushes, want %d", flushes, want)
		}
	}
	run(1)
	for _, f := range []string{"SKILL.md", "checklist.md", "ref"} {
		if _, err := os.Stat(filepath.Join(root, ".qwen/skills/release", f)); err != nil {
			t.Errorf("not written: %v", err)
		}
	}
	run(0)
	if err := os.Remove(filepath.Join(root, "skills/release/ref")); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, root, "skills/release/ref/inside.md", []byte("a folder now\n"))
	run(2)
	if _, err := os.Stat(filepath.Join(root, ".agents/skills/release/ref/inside.md")); err != nil {
		t.Errorf("the file that became a folder: %v", err)
	}
	testkit.AssertNoTempFiles(t, root)
}

// A step of many files has the disk write back what it staged while it stages
// more, and still makes them durable by its one flush before any is put in
// place; a step of a few files does not.
func TestAStepOfManyFilesWritesBackAhead(t *testing.T) {
	for _, c := range []struct {
		capabilities int
		ahead        bool
	}{{3, false}, {100, true}} {
		root := t.TempDir()
		testkit.WriteFile(t, root, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  targets: [claude-code]\n"))
		testkit.WriteFile(t, root, "registry/things.yaml", []byte(capabilitiesFile(c.capabilities, nil)))
		var mu sync.Mutex
		var events []string
		record := func(what string) func(string) {
			return func(string) {
				mu.Lock()
				defer mu.Unlock()
				if len(events) == 0 || events[len(events)-1] != what {
					events = append(events, what)
				}
			}
		}
		var writeBacks atomic.Int32
		staged, atFirst := 0, int32(0)
		sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
			{Op: "WriteBack", Before: func(name string) { writeBacks.Add(1); record("write back")(name) }},
			{Op: "WriteNew", Before: func(name string) {
				mu.Lock()
				if staged++; staged == 1 {
					atFirst = writeBacks.Load()
				}
				later := staged > c.capabilities/2
				mu.Unlock()
				// The second half of the files waits (10 s at most) for a
				// write-back since the first file.
				for deadline := time.Now().Add(10 * time.Second); c.ahead && later && writeBacks.Load() == atFirst && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
				record("stage")(name)
			}},
			{Op: "Flush", Before: record("flush")},
			{Op: "RenameNoReplace", Before: record("put in place")}}}
		if out := Reconcile(Request{System: sys, Root: root}); out.Err != nil || len(out.Problems) > 0 || out.Plan.Count(plan.Create) != c.capabilities {
			t.Fatalf("%d capabilities: %s", c.capabilities, summary(out))
		}
		// The write-backs fall among the stages (one may come before the first
		// or after the last, as the clock ticks), all before the one flush, and
		// nothing is put in place before it.
		var kept []string
		for _, e := range events {
			if e != "write back" {
				kept = append(kept, e)
			}
		}
		if got := strings.Join(slices.Compact(kept), ", "); got != "stage, flush, put in place" {
			t.Errorf("%d capabilities: %s, want stage, flush, put in place", c.capabilities, strings.Join(events, ", "))
		}
		if flushAt := slices.Index(events, "flush"); flushAt >= 0 && slices.Contains(events[flushAt:], "write back") {
			t.Errorf("%d capabilities: a write-back after the flush: %s", c.capabilities, strings.Join(events, ", "))
		}
		if got := strings.Contains(strings.Join(events, ", "), "stage, write back, stage"); got != c.ahead {
			t.Errorf("%d capabilities: written back while staging %v, want %v: %s", c.capabilities, got, c.ahead, strings.Join(events, ", "))
		}
	}
}

// A step of a few files syncs each as it writes it, and its flush syncs nothing
// more; a step of more files than that leaves them all to the one flush.
func TestAFewFilesAreSyncedOneByOne(t *testing.T) {
	for _, c := range []struct {
		capabilities, synced int
	}{{3, 3}, {100, 0}} {
		root := t.TempDir()
		testkit.WriteFile(t, root, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  targets: [claude-code]\n"))
		testkit.WriteFile(t, root, "registry/things.yaml", []byte(capabilitiesFile(c.capabilities, nil)))
		var synced, flushes atomic.Int32
		sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
			{Op: "SyncFile", Before: func(string) { synced.Add(1) }},
			{Op: "Flush", Before: func(string) { flushes.Add(1) }}}}
		if out := Reconcile(Request{System: sys, Root: root}); out.Err != nil || len(out.Problems) > 0 || out.Plan.Count(plan.Create) != c.capabilities {
			t.Fatalf("%d capabilities: %s", c.capabilities, summary(out))
		}
		if got := synced.Load(); int(got) != c.synced {
			t.Errorf("%d capabilities: %d files synced one by one, want %d", c.capabilities, got, c.synced)
		}
		if got := flushes.Load(); got != 1 {
			t.Errorf("%d capabilities: %d flushes, want 1", c.capabilities, got)
		}
	}
}

// A file in a target that skillsync may not read (another user's, mode 600) is
// kept, whoever wrote it, and stops nothing else: one at a name nothing wants,
// or a skill directory that cannot be listed, is left alone while the rest of
// the plan is applied; one at a wanted path is a conflict naming why, and
// takes no name from the other targets as a person's skill would.
func TestAFileThatCannotBeReadIsKeptAndStopsNothingElse(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root}); out.Err != nil {
		t.Fatal(out.Err)
	}
	const private, listless, intent = ".claude/skills/private/SKILL.md", ".qwen/skills/locked", ".claude/skills/intent/SKILL.md"
	testkit.WriteFile(t, root, private, []byte("---\nname: private\ndescription: mine\n---\n"))
	testkit.WriteFile(t, root, listless+"/SKILL.md", []byte("---\nname: locked\ndescription: mine\n---\n"))
	before, err := os.ReadFile(filepath.Join(root, intent))
	if err != nil {
		t.Fatal(err)
	}
	// Written again, so that no record of the last scan spares reading it.
	if err := os.WriteFile(filepath.Join(root, intent), before, 0o644); err != nil {
		t.Fatal(err)
	}
	reg := filepath.Join(root, "registry", "intents.yaml")
	data, err := os.ReadFile(reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reg, bytes.Replace(data, []byte("title: Search intents"), []byte("title: Search intents again"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{
		{Op: "ReadRegular", Path: private, Err: syscall.EACCES},
		{Op: "ReadRegular", Path: intent, Err: syscall.EACCES},
		{Op: "Entries", Path: listless, Err: syscall.EACCES}}}
	out := Reconcile(Request{System: sys, Root: root})
	if out.Err != nil {
		t.Fatalf("err = %v, want the plan applied but for the conflict at %s", out.Err, intent)
	}
	if !slices.ContainsFunc(out.Plan.Changes, func(c plan.Change) bool { return c.Path == intent }) {
		t.Errorf("the plan has no change for %s", intent)
	}
	for _, c := range out.Plan.Changes {
		switch {
		case c.Path == intent && (c.Action != plan.Conflict || !strings.Contains(c.Reason, intent+" cannot be read")):
			t.Errorf("%s: %s %q, want a conflict saying it cannot be read", c.Path, c.Action, c.Reason)
		case c.Path != intent && (c.Action == plan.Conflict || c.Action == plan.Delete):
			t.Errorf("%s: %s %q, want nothing else kept or deleted", c.Path, c.Action, c.Reason)
		case strings.HasPrefix(c.Path, ".claude/skills/private") || strings.HasPrefix(c.Path, listless):
			t.Errorf("%s: %s, want it left alone", c.Path, c.Action)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(root, ".qwen/skills/find-intent/SKILL.md")); !bytes.Contains(got, []byte("Search intents again")) {
		t.Errorf("the registry's change was not applied elsewhere:\n%s", got)
	}
	if got, _ := os.ReadFile(filepath.Join(root, intent)); !bytes.Equal(got, before) {
		t.Errorf("%s, which could not be read, was changed", intent)
	}
	for _, p := range []string{private, listless + "/SKILL.md", ".qwen/skills/intent/SKILL.md", ".agents/skills/intent/SKILL.md"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
