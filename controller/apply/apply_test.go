package apply

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
	"github.com/skillsync/skillsync/observed"
)

// generated returns a real generated file for path, as the renderers stamp it.
func generated(t *testing.T, path, body string) []byte {
	t.Helper()
	b, err := banner.Stamp([]byte("---\nname: x\ndescription: d\n---\n\n"+body+"\n"), "capability/x", path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func scan(t *testing.T, root string) observed.State {
	t.Helper()
	st, err := observed.Scan(workspacefs.OS{}, root, []string{".claude/skills", ".qwen/skills", ".agents/skills"})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func reconcileFiles(t *testing.T, root string, files map[string][]byte, opts plan.Options) ([]Applied, error) {
	t.Helper()
	want := desired.State{Files: map[string]desired.File{}}
	for p, b := range files {
		want.Files[p] = desired.File{Path: p, Owner: "capability/x", Bytes: b}
	}
	return Apply(workspacefs.OS{}, root, plan.Make(want, scan(t, root), opts))
}

func TestApplyCreatesUpdatesAndDeletes(t *testing.T) {
	root := t.TempDir()
	a, b := ".claude/skills/a/SKILL.md", ".qwen/skills/b/SKILL.md"
	if _, err := reconcileFiles(t, root, map[string][]byte{a: generated(t, a, "one"), b: generated(t, b, "one")}, plan.Options{}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(root, a))
	if err != nil || info.Mode().Perm() != 0o644 {
		t.Fatalf("created file: %v %v", info, err)
	}
	if _, err := reconcileFiles(t, root, map[string][]byte{a: generated(t, a, "two")}, plan.Options{AllowEmpty: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, a)); string(got) != string(generated(t, a, "two")) {
		t.Errorf("update wrote %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, ".qwen/skills/b")); !os.IsNotExist(err) {
		t.Errorf("orphan's empty skill directory survived: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".qwen/skills")); err != nil {
		t.Errorf("the target directory itself must stay: %v", err)
	}
	testkit.AssertNoTempFiles(t, root)
}

func TestApplyNoOpWritesNothing(t *testing.T) {
	root := t.TempDir()
	a := ".claude/skills/a/SKILL.md"
	files := map[string][]byte{a: generated(t, a, "one")}
	if _, err := reconcileFiles(t, root, files, plan.Options{}); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, p := range []string{a, filepath.Dir(a)} {
		if err := os.Chtimes(filepath.Join(root, p), past, past); err != nil {
			t.Fatal(err)
		}
	}
	applied, err := reconcileFiles(t, root, files, plan.Options{})
	if err != nil || len(applied) != 0 {
		t.Fatalf("no-op reconcile applied %v, %v", applied, err)
	}
	for _, p := range []string{a, filepath.Dir(a)} {
		info, _ := os.Stat(filepath.Join(root, p))
		if !info.ModTime().Equal(past) {
			t.Errorf("%s mtime changed on a no-op run", p)
		}
	}
}

func TestApplyKeepsDirectoryWithOtherFiles(t *testing.T) {
	root := t.TempDir()
	a := ".claude/skills/a/SKILL.md"
	testkit.WriteFile(t, root, a, generated(t, a, "one"))
	notes := testkit.WriteFile(t, root, ".claude/skills/a/notes.txt", []byte("mine"))
	if _, err := reconcileFiles(t, root, map[string][]byte{}, plan.Options{AllowEmpty: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, a)); !os.IsNotExist(err) {
		t.Errorf("orphan not deleted: %v", err)
	}
	if got, err := os.ReadFile(notes); err != nil || string(got) != "mine" {
		t.Errorf("a person's file beside the orphan: %q %v", got, err)
	}
}

// TestApplyRechecksBeforeTouching changes the file between plan and apply, the way a
// person saving at the wrong moment would, and expects it to be left alone.
func TestApplyRechecksBeforeTouching(t *testing.T) {
	a := ".claude/skills/a/SKILL.md"
	cases := map[string]struct {
		want     map[string][]byte
		between  []byte // what the person writes after the plan was made
		planned  plan.Action
		opts     plan.Options
		original []byte
	}{
		"delete of a file taken over":  {want: map[string][]byte{}, between: []byte("now mine\n"), planned: plan.Delete, opts: plan.Options{AllowEmpty: true}},
		"delete of a file edited":      {want: map[string][]byte{}, planned: plan.Delete, opts: plan.Options{AllowEmpty: true}},
		"update of a file taken over":  {want: map[string][]byte{a: []byte("---\nnew\n")}, between: []byte("now mine\n"), planned: plan.Update},
		"update of a file edited":      {want: map[string][]byte{a: []byte("---\nnew\n")}, planned: plan.Update},
		"create where a file appeared": {want: map[string][]byte{a: []byte("---\nnew\n")}, between: []byte("appeared\n"), planned: plan.Create},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if c.planned != plan.Create {
				testkit.WriteFile(t, root, a, generated(t, a, "one"))
			}
			want := desired.State{Files: map[string]desired.File{}}
			for p, b := range c.want {
				want.Files[p] = desired.File{Path: p, Bytes: b}
			}
			plan := plan.Make(want, scan(t, root), c.opts)
			if plan.Changes[0].Action != c.planned {
				t.Fatalf("planned %s, want %s", plan.Changes[0].Action, c.planned)
			}
			between := c.between
			if between == nil { // an edit that keeps the banner
				between = append(generated(t, a, "one"), "edited\n"...)
			}
			testkit.WriteFile(t, root, a, between)
			_, err := Apply(workspacefs.OS{}, root, plan)
			if err == nil || !strings.Contains(err.Error(), a) {
				t.Fatalf("Apply error = %v, want one naming %s", err, a)
			}
			if got, _ := os.ReadFile(filepath.Join(root, a)); string(got) != string(between) {
				t.Errorf("file changed to %q", got)
			}
			testkit.AssertNoTempFiles(t, root)
		})
	}
}

func TestApplyRemovesLeftoverTempFiles(t *testing.T) {
	root := t.TempDir()
	a := ".agents/skills/a/SKILL.md"
	half := generated(t, a, "one")[:60]
	tmp := testkit.WriteFile(t, root, ".agents/skills/a/.skillsync-0123456789abcdef.tmp", half)
	empty := testkit.WriteFile(t, root, ".agents/skills/a/.skillsync-00000000000000ff.tmp", nil)
	// A person's files: a name that only looks similar, and the exact name with
	// content skillsync never writes.
	similar := testkit.WriteFile(t, root, ".agents/skills/a/.skillsync-notes.tmp", []byte("mine"))
	foreign := testkit.WriteFile(t, root, ".agents/skills/b/.skillsync-fedcba9876543210.tmp", []byte("my notes"))
	if _, err := reconcileFiles(t, root, map[string][]byte{}, plan.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{tmp, empty} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("leftover temp file %s survived: %v", p, err)
		}
	}
	for _, p := range []string{similar, foreign} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a person's file %s was removed: %v", p, err)
		}
	}
	lone := testkit.WriteFile(t, root, ".qwen/skills/gone/.skillsync-0000000000000007.tmp", half)
	if _, err := reconcileFiles(t, root, map[string][]byte{}, plan.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(lone)); !os.IsNotExist(err) {
		t.Errorf("skill directory emptied by the cleanup survived: %v", err)
	}
}

func TestApplyContinuesPastAFailure(t *testing.T) {
	root := t.TempDir()
	a, b := ".claude/skills/a/SKILL.md", ".qwen/skills/b/SKILL.md"
	// A file where the skill directory should be makes the create of a fail.
	testkit.WriteFile(t, root, ".claude/skills/a", []byte("a file, not a directory"))
	plan := plan.Make(desired.State{Files: map[string]desired.File{
		a: {Path: a, Bytes: generated(t, a, "x")}, b: {Path: b, Bytes: generated(t, b, "x")},
	}}, observed.State{}, plan.Options{})
	_, err := Apply(workspacefs.OS{}, root, plan)
	if err == nil || !strings.Contains(err.Error(), a) {
		t.Fatalf("error = %v, want one naming %s", err, a)
	}
	if _, err := os.Stat(filepath.Join(root, b)); err != nil {
		t.Errorf("the rest of the plan was not applied: %v", err)
	}
}

// TestApplyNeverFollowsASwappedDirectoryOut swaps the target directory for a symlink
// to outside the workspace between plan and apply, the race a person (or an attacker)
// could win: nothing may be written, read or deleted out there.
func TestApplyNeverFollowsASwappedDirectoryOut(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	a, b := ".claude/skills/a/SKILL.md", ".claude/skills/b/SKILL.md"
	testkit.WriteFile(t, root, b, generated(t, b, "old"))
	testkit.WriteFile(t, outside, "b/SKILL.md", generated(t, b, "old")) // same bytes: a re-check alone would pass
	plan := plan.Make(desired.State{Files: map[string]desired.File{
		a: {Path: a, Bytes: generated(t, a, "new")},
		b: {Path: b, Bytes: generated(t, b, "new")},
	}}, scan(t, root), plan.Options{})
	if err := os.RemoveAll(filepath.Join(root, ".claude/skills")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, ".claude/skills")); err != nil {
		t.Fatal(err)
	}
	if _, err := Apply(workspacefs.OS{}, root, plan); err == nil {
		t.Error("Apply reported success writing through a symlink out of the workspace")
	}
	if _, err := os.Stat(filepath.Join(outside, "a")); !os.IsNotExist(err) {
		t.Errorf("created outside the workspace: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "b/SKILL.md")); string(got) != string(generated(t, b, "old")) {
		t.Errorf("file outside the workspace changed to %q", got)
	}
}

// TestApplyRemovesEmptySkillDirectories: a run killed between deleting a SKILL.md
// and its directory leaves the directory empty; the next run removes it (found by
// the crash-safety suite).
func TestApplyRemovesEmptySkillDirectories(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".qwen/skills/gone", ".claude/skills/a"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a := ".claude/skills/a/SKILL.md"
	if _, err := reconcileFiles(t, root, map[string][]byte{a: generated(t, a, "x")}, plan.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".qwen/skills/gone")); !os.IsNotExist(err) {
		t.Errorf("empty skill directory survived: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, a)); err != nil {
		t.Errorf("wanted skill in a directory that was empty: %v", err)
	}
}

func TestApplyCarriesOutNoRefusedPlan(t *testing.T) {
	p := ".claude/skills/intent/SKILL.md"
	owned := observed.File{Path: p, Ownership: observed.Owned, Owner: "capability/x", Bytes: []byte("old")}
	emptying := plan.Make(desired.State{Files: map[string]desired.File{}},
		observed.State{Files: map[string]observed.File{p: owned}}, plan.Options{})
	linksOut := plan.Make(desired.State{Files: map[string]desired.File{p: {Path: p, Owner: "capability/x", Bytes: []byte("new")}}},
		observed.State{Files: map[string]observed.File{p: owned}, Escapes: []string{".claude/skills"}}, plan.Options{Force: true, AllowEmpty: true})
	for name, refused := range map[string]plan.Plan{"emptying": emptying, "links outside": linksOut} {
		if refused.Refused == "" {
			t.Fatalf("%s: the plan was not refused", name)
		}
		if _, err := Apply(workspacefs.OS{}, t.TempDir(), refused); !errors.Is(err, ErrRefused) {
			t.Errorf("%s: Apply carried out a refused plan: %v", name, err)
		}
	}
}

// TestApplyKeepsNothingInADirectoryMovedOutMidStep moves a skill directory out
// of the workspace, leaving a symlink to it, while its files are staged through
// the directory's open handle: nothing is put in place, and no staged file is
// left out there.
func TestApplyKeepsNothingInADirectoryMovedOutMidStep(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	dir := ".claude/skills/a"
	if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
		t.Fatal(err)
	}
	var pl plan.Plan
	for _, name := range []string{"f1", "f2", "f3"} {
		pl.Changes = append(pl.Changes, plan.Change{Path: dir + "/" + name, Action: plan.Create, Supporting: true, New: []byte(name)})
	}
	sys := &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{Op: "WriteNew", Path: dir + "/*", Times: 1, Before: func(string) {
		os.Rename(filepath.Join(root, dir), filepath.Join(outside, "a"))
		os.Symlink(filepath.Join(outside, "a"), filepath.Join(root, dir))
	}}}}
	if _, err := Apply(sys, root, pl); err == nil {
		t.Error("Apply reported success writing into a directory moved out of the workspace")
	}
	entries, err := os.ReadDir(filepath.Join(outside, "a"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left outside the workspace: %s", e.Name())
	}
}
