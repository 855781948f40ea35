package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// testWatcher is a watcher's informer and change source on a workspace, with
// the requests it runs and a function that waits for the events so far.
type testWatcher struct {
	inf        *controller.Informer
	req, check controller.Request
	src        *changeSource
	sync       func()
}

// convergedWatcher starts a watcher's change source (real inotify) on root and
// runs a full pass that applies, then one that finds nothing to do.
func convergedWatcher(t *testing.T, root string) testWatcher {
	t.Helper()
	w := testWatcher{inf: controller.NewInformer()}
	w.req = controller.Request{System: workspacefs.OS{}, Root: root}
	w.src, w.sync = watchedBy(t, w.req, w.inf)
	w.check = w.req
	w.check.Check = true
	w.src.pass(w.inf, w.req)
	w.sync() // the events of its own writes
	w.src.pass(w.inf, w.check)
	return w
}

// agreeAfter makes each change on a converged watcher of root, waits for its
// events and compares the watcher's next pass with one from scratch.
func agreeAfter(t *testing.T, root string, changes ...func()) {
	t.Helper()
	w := convergedWatcher(t, root)
	for i, change := range changes {
		change()
		w.sync()
		out := w.src.pass(w.inf, w.check)
		got := planSummary(out)
		want := planSummary(controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: root, Check: true}))
		if got != want {
			full := out.Scope != nil && out.Scope.Full
			t.Fatalf("after change %d (full pass: %v) the watcher plans otherwise than a pass from scratch\n--- watcher\n%s\n--- from scratch\n%s", i, full, got, want)
		}
	}
}

// behindLink moves the input rel of root to to, and puts a symlink to it, link
// target as written, in its place.
func behindLink(t *testing.T, root, rel, to, target string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(root, to)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, rel), filepath.Join(root, to)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(root, rel)); err != nil {
		t.Fatal(err)
	}
}

func replaceIn(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s holds no %q", file, old)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// An input behind a symlink inside the workspace: a registry file that links to
// a file elsewhere, or a registry directory that links to one elsewhere (its
// target sorting after the link or before it). An edit where the link leads is
// an event in a watched directory, and the watcher sees it, in a pass that reads
// what changed and in a full pass (a target directory removed meanwhile) alike.
func TestWatchSeesAnEditWhereAnInputLinks(t *testing.T) {
	for _, c := range []struct {
		name, rel, to, target string
		full                  bool
	}{
		{"file", "registry/journal.yaml", "real/journal.yaml", "../real/journal.yaml", false},
		{"file, full pass", "registry/journal.yaml", "real/journal.yaml", "../real/journal.yaml", true},
		{"directory", "registry", "linked/registry", "linked/registry", false},
		{"directory that sorts first", "registry", "a/registry", "a/registry", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := testkit.ExampleWorkspace(t)
			behindLink(t, root, c.rel, c.to, c.target)
			edited := filepath.Join(root, strings.Replace("registry/journal.yaml", c.rel, c.to, 1))
			agreeAfter(t, root, func() {
				replaceIn(t, edited, "title: Weekly report", "title: Monthly report")
				if c.full {
					os.RemoveAll(filepath.Join(root, ".qwen"))
				}
			})
		})
	}
}

// A skill directory removed and made again while a pass that does not read it
// runs, the next pass a full one (a resync): the directory's watch went with the
// old one, and is added again, so a hand edit in it is seen.
func TestASkillDirectoryMadeAgainDuringAPassIsWatchedAgain(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	w := convergedWatcher(t, root)
	inf, src, sync, check := w.inf, w.src, w.sync, w.check
	dir := filepath.Join(root, ".claude/skills/intent")
	data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	// A pass P has taken the dirty set (nothing) when the directory is removed
	// and made again, as `git checkout` or a sync tool does.
	taken := inf.Take()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, root, ".claude/skills/intent/SKILL.md", data)
	sync()
	stash := inf.Take()
	inf.PutBack(taken)
	out := src.pass(inf, check) // P: partial, reads nothing, refreshes some watches
	if out.Scope == nil || out.Scope.Full {
		t.Fatalf("P is not a partial pass")
	}
	inf.PutBack(stash) // what events named during P
	inf.NoteAll()      // and the resync fires
	if out := src.pass(inf, check); !out.Scope.Full {
		t.Fatalf("P2 is not a full pass")
	}
	// A hand edit in the directory: its event must arrive.
	testkit.WriteFile(t, root, ".claude/skills/intent/SKILL.md", append(data, "edited by hand\n"...))
	sync()
	got := planSummary(src.pass(inf, check))
	want := planSummary(controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: root, Check: true}))
	if got != want {
		t.Fatalf("the hand edit in a directory made again was not seen\n--- watcher\n%s\n--- from scratch\n%s", got, want)
	}
}

// The config widens a glob; a file only the new glob matches is saved while the
// pass that first reads it runs. Its event is judged against the inputs that
// pass leaves, so the file is read again.
func TestASaveDuringAPassIsJudgedByTheInputsItLeaves(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	w := convergedWatcher(t, root)
	inf, src, sync, check := w.inf, w.src, w.sync, w.check
	extra := "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: extra.cap}\nspec:\n  title: Extra\n  effect: read\n" +
		"  input: {type: object, properties: {text: {type: string}}, required: [text]}\n  mcp: {tool: extra}\n  skill: {alias: extra, argument: text}\n"
	testkit.WriteFile(t, root, "registry/extra.yml", []byte(extra))
	replaceIn(t, filepath.Join(root, "skillsync.yaml"), "registry: [registry/*.yaml]", "registry: [registry/*.yaml, registry/*.yml]")
	sync()
	// pass(), split where the save lands: after the reconcile read the inputs,
	// before the watches and inputs are refreshed.
	src.runStarting()
	out := inf.Reconcile(check)
	replaceIn(t, filepath.Join(root, "registry/extra.yml"), "title: Extra", "title: Extra retitled")
	sync()
	src.refresh(out.Registry)
	src.runEnded(out)
	got := planSummary(src.pass(inf, check))
	want := planSummary(controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: root, Check: true}))
	if got != want {
		t.Fatalf("the save during the pass was lost\n--- watcher\n%s\n--- from scratch\n%s", got, want)
	}
}
