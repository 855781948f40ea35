//go:build reliability && linux

package reliability

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspaceEscape: every way an input or a directory could point outside the
// workspace gives a clear error (exit 2 or 3), reads and writes nothing outside,
// and changes nothing inside.
func TestWorkspaceEscape(t *testing.T) {
	const secret = "the-secret-outside-the-workspace"
	capability := func(alias string) string {
		return fmt.Sprintf("apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: esc.case}\nspec:\n  title: Escape\n  effect: read\n"+
			"  input: {type: object, properties: {text: {type: string}}}\n  mcp: {tool: esc}\n  skill: {alias: %q, argument: text}\n", alias)
	}
	skill := func(bodyFile string) string {
		return fmt.Sprintf("apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: esc-skill}\nspec: {description: d, bodyFile: %q}\n", bodyFile)
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, ws, outside string)
		exits []int
	}{
		{"target directory symlinked outside", func(t *testing.T, ws, outside string) {
			must(t, os.MkdirAll(filepath.Join(ws, ".claude"), 0o755))
			must(t, os.Symlink(outside, filepath.Join(ws, ".claude/skills")))
		}, []int{3}},
		{"skill directory symlinked outside", func(t *testing.T, ws, outside string) {
			must(t, os.MkdirAll(filepath.Join(ws, ".qwen/skills"), 0o755))
			must(t, os.Symlink(outside, filepath.Join(ws, ".qwen/skills/intent")))
		}, []int{3}},
		{"bodyFile ../../etc/passwd", writes("registry/zz.yaml", skill("../../etc/passwd")), []int{2}},
		{"bodyFile absolute", writes("registry/zz.yaml", skill("/etc/passwd")), []int{2}},
		{"bodyFile through a symlink outside", func(t *testing.T, ws, outside string) {
			must(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(ws, "skills/linked.md")))
			writes("registry/zz.yaml", skill("../skills/linked.md"))(t, ws, outside)
		}, []int{2}},
		{"alias with traversal", writes("registry/zz.yaml", capability("../../x")), []int{2}},
		{"alias with a slash", writes("registry/zz.yaml", capability("a/b")), []int{2}},
		{"alias with NUL", writes("registry/zz.yaml", capability("a\x00b")), []int{2}},
		{"alias with a unicode look-alike", writes("registry/zz.yaml", capability("іntent")), []int{2}}, // Cyrillic і
		{"registry glob outside", writes("skillsync.yaml", "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml, ../*.yaml]\n  profile: cli\n"), []int{2}},
		{"registry file symlinked outside", func(t *testing.T, ws, outside string) {
			must(t, os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(ws, "registry/zz.yaml")))
		}, []int{2}},
		{".skillsync symlinked outside", func(t *testing.T, ws, outside string) {
			must(t, os.Symlink(outside, filepath.Join(ws, ".skillsync")))
		}, []int{2}},
	}
	failures := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parent := t.TempDir()
			outside := filepath.Join(parent, "outside")
			must(t, os.MkdirAll(outside, 0o755))
			for _, f := range []string{"secret.md", "secret.yaml", "profile", "x.yaml"} {
				must(t, os.WriteFile(filepath.Join(outside, f), []byte(secret+"\n"), 0o644))
			}
			ws := example(t, parent)
			c.setup(t, ws, outside)
			beforeOut, beforeWS := digestTree(t, outside), digestTree(t, ws)
			for _, args := range [][]string{{}, {"--force", "--allow-empty"}} {
				code, out := runOnce(t, ws, args...)
				ok := contains(c.exits, code) && !strings.Contains(out, secret)
				if !ok || digestTree(t, outside) != beforeOut || digestTree(t, ws) != beforeWS {
					failures++
					t.Errorf("%v: exit %d (want %v), secret in output %v, outside changed %v, inside changed %v\n%s", args, code, c.exits,
						strings.Contains(out, secret), digestTree(t, outside) != beforeOut, digestTree(t, ws) != beforeWS, out)
				}
			}
		})
	}
	report("workspace escape", 2*len(cases), failures, "exit 2 or 3, no byte read or written outside, nothing inside changed")
}

func writes(rel, content string) func(t *testing.T, ws, outside string) {
	return func(t *testing.T, ws, _ string) {
		must(t, os.WriteFile(filepath.Join(ws, rel), []byte(content), 0o644))
	}
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// digestTree summarises every entry under dir (not following symlinks): names,
// modes, mtimes and contents.
func digestTree(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, _ := d.Info()
		fmt.Fprintf(h, "%s %v %d\n", p, info.Mode(), info.ModTime().UnixNano())
		if info.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			h.Write(data)
		}
		return nil
	})
	return fmt.Sprintf("%x", h.Sum(nil))
}
