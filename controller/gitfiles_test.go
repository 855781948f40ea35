package controller

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired/render"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// inGit makes the example workspace a git work tree, as far as skillsync looks.
func inGit(t *testing.T) string {
	t.Helper()
	root := testkit.ExampleWorkspace(t)
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// In git, each target directory gets one git file, naming the generated files
// in it; the ones an earlier version wrote in each skill directory are pruned,
// and a target that loses its last skill keeps its directory.
func TestOneGitFilePerTargetDirectory(t *testing.T) {
	root := inGit(t)
	old := ".claude/skills/intent/.gitattributes"
	data, err := render.SideFile("* linguist-generated=true\n", "capability/intents.propose", old)
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, root, old, data)
	out := Reconcile(Request{System: workspacefs.OS{}, Root: root})
	if out.Err != nil || len(out.Problems) > 0 || out.Verdict(false) != Converged {
		t.Fatalf("first pass: %v %v %v", out.Err, out.Problems, out.Plan.Changes)
	}
	for _, dir := range []string{".claude/skills", ".qwen/skills", ".agents/skills"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if err != nil {
			t.Fatal(err)
		}
		var git []string
		for _, e := range entries {
			if !e.IsDir() {
				git = append(git, e.Name())
				continue
			}
			for _, name := range []string{".gitattributes", ".gitignore"} {
				if _, err := os.Lstat(filepath.Join(root, dir, e.Name(), name)); err == nil {
					t.Errorf("%s/%s/%s is there", dir, e.Name(), name)
				}
			}
		}
		if strings.Join(git, " ") != ".gitattributes" {
			t.Errorf("%s holds the files %v, want the one .gitattributes", dir, git)
		}
	}
	attributes, err := os.ReadFile(filepath.Join(root, ".claude/skills/.gitattributes"))
	if err != nil || !strings.Contains(string(attributes), "\n/intent/SKILL.md linguist-generated=true\n") {
		t.Errorf("the .gitattributes does not mark intent's SKILL.md generated (%v):\n%s", err, attributes)
	}

	testkit.WriteFile(t, root, "skillsync.yaml", []byte(strings.Replace(string(readFile(t, root, "skillsync.yaml")), "[claude-code, qwen-code, agents]", "[qwen-code, agents]", 1)))
	out = Reconcile(Request{System: workspacefs.OS{}, Root: root})
	if out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("second pass: %v %v", out.Err, out.Problems)
	}
	entries, err := os.ReadDir(filepath.Join(root, ".claude/skills"))
	if err != nil || len(entries) != 0 {
		t.Errorf(".claude/skills, its target dropped: %v %v", entries, err)
	}
}

// A person's file, symlink or directory where a target's git file goes is
// theirs: it stays as it is, even with Force, and is no conflict; the skills are
// written all the same.
func TestAPersonsGitFileInATargetIsNeverTouched(t *testing.T) {
	const gitFile = ".claude/skills/.gitattributes"
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, root string) string // what to find there after
	}{
		{"file", func(t *testing.T, root string) string {
			testkit.WriteFile(t, root, gitFile, []byte("*.md text eol=lf\n"))
			return "*.md text eol=lf\n"
		}},
		{"copy of skillsync's banner for another path", func(t *testing.T, root string) string {
			data, err := render.SideFile("/x linguist-generated=true\n", "target/qwen-code", ".qwen/skills/.gitattributes")
			if err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, root, gitFile, data)
			return string(data)
		}},
		{"symlink", func(t *testing.T, root string) string {
			elsewhere := filepath.Join(t.TempDir(), "attributes")
			if err := os.WriteFile(elsewhere, []byte("mine\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, root, ".claude/skills/keep", nil)
			if err := os.Symlink(elsewhere, filepath.Join(root, gitFile)); err != nil {
				t.Fatal(err)
			}
			return "-> " + elsewhere
		}},
		{"directory", func(t *testing.T, root string) string {
			testkit.WriteFile(t, root, gitFile+"/mine", []byte("mine\n"))
			return "dir"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := inGit(t)
			want := c.setup(t, root)
			out := Reconcile(Request{System: workspacefs.OS{}, Root: root, Options: plan.Options{Force: true}})
			if out.Err != nil || len(out.Problems) > 0 || out.Plan.Refused != "" {
				t.Fatalf("%v %v %q", out.Err, out.Problems, out.Plan.Refused)
			}
			for _, ch := range out.Plan.Changes {
				if ch.Path == gitFile || strings.HasPrefix(ch.Path, gitFile+"/") || ch.Action == plan.Conflict {
					t.Errorf("planned %s %s: %s", ch.Action, ch.Path, ch.Reason)
				}
			}
			if got := describe(t, filepath.Join(root, gitFile)); got != want {
				t.Errorf("%s is now %q, was %q", gitFile, got, want)
			}
			if _, err := os.Stat(filepath.Join(root, ".claude/skills/intent/SKILL.md")); err != nil {
				t.Errorf("the skills were not written: %v", err)
			}
		})
	}
}

// describe is what is at p: a symlink's target, "dir", or a file's content.
func describe(t *testing.T, p string) string {
	t.Helper()
	info, err := os.Lstat(p)
	switch {
	case err != nil:
		return err.Error()
	case info.Mode()&os.ModeSymlink != 0:
		target, _ := os.Readlink(p)
		return "-> " + target
	case info.IsDir():
		if data, err := os.ReadFile(filepath.Join(p, "mine")); err != nil || string(data) != "mine\n" {
			return "a directory that lost its file"
		}
		return "dir"
	}
	data, _ := os.ReadFile(p)
	return string(data)
}

func readFile(t *testing.T, root, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
