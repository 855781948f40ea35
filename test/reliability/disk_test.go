//go:build reliability && linux

package reliability

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
)

// example copies fixtures/example into a new directory under parent.
func example(t *testing.T, parent string) string {
	t.Helper()
	ws, err := os.MkdirTemp(parent, "ws-")
	if err != nil {
		t.Fatal(err)
	}
	testkit.CopyExample(t, ws)
	return ws
}

// runOnce runs the real binary and returns its exit code and combined output.
func runOnce(t *testing.T, ws string, args ...string) (int, string) {
	t.Helper()
	out, err := exec.Command(testkit.Binary(t), append([]string{"--workspace", ws, "reconcile", "--once"}, args...)...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// TestPermissionsAndDisk: each obstacle gives exit 4 with a message naming the path,
// and every change not behind the obstacle is still applied (the rest of the plan
// goes on; a change either happens whole or not at all).
func TestPermissionsAndDisk(t *testing.T) {
	type obstacle struct {
		name    string
		setup   func(t *testing.T, ws string) (cleanup func())
		blocked string // a path the message must name
		applied string // a file of the plan that must still be written
	}
	obstacles := []obstacle{
		{"read-only target directory", func(t *testing.T, ws string) func() {
			dir := filepath.Join(ws, ".claude/skills")
			must(t, os.MkdirAll(dir, 0o755))
			if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
				t.Skipf("chattr +i unavailable here, skipped: %v %s", err, out)
			}
			return func() { exec.Command("chattr", "-i", dir).Run() }
		}, ".claude/skills/", ".qwen/skills/intent/SKILL.md"},
		{"SKILL.md that is a directory", func(t *testing.T, ws string) func() {
			must(t, os.MkdirAll(filepath.Join(ws, ".qwen/skills/intent/SKILL.md"), 0o755))
			return func() {}
		}, ".qwen/skills/intent/SKILL.md", ".claude/skills/intent/SKILL.md"},
		{"target directory that is a file", func(t *testing.T, ws string) func() {
			must(t, os.WriteFile(filepath.Join(ws, ".agents"), []byte("a file"), 0o644))
			return func() {}
		}, ".agents/skills", ".claude/skills/intent/SKILL.md"},
	}
	failures := 0
	for _, o := range obstacles {
		t.Run(o.name, func(t *testing.T) {
			ws := example(t, t.TempDir())
			defer o.setup(t, ws)()
			code, out := runOnce(t, ws)
			_, err := os.Stat(filepath.Join(ws, o.applied))
			if code != 4 || !strings.Contains(out, o.blocked) || err != nil {
				failures++
				t.Errorf("exit %d (want 4), names %s: %v, rest applied: %v\n%s", code, o.blocked, strings.Contains(out, o.blocked), err, out)
			}
		})
	}
	cases := len(obstacles) + 2
	t.Run("unreadable skill directory", func(t *testing.T) {
		// Whose an unreadable skill directory is cannot be told, so it is kept and
		// takes no name from the other targets; it stops nothing else. At a name
		// nothing wants it is left alone (exit 0); at a wanted one (intent) it is
		// a conflict naming it (exit 3), and intent is written in the others.
		parent, err := os.MkdirTemp("", "unreadable-") // t.TempDir's parent is closed to others
		must(t, err)
		t.Cleanup(func() { os.RemoveAll(parent) })
		must(t, os.Chmod(parent, 0o755))
		bin := filepath.Join(parent, "skillsync")
		data, err := os.ReadFile(testkit.Binary(t))
		must(t, err)
		must(t, os.WriteFile(bin, data, 0o755))
		for _, c := range []struct {
			locked string
			code   int
		}{{".qwen/skills/locked", 0}, {".qwen/skills/intent", 3}} {
			ws := example(t, parent)
			locked := filepath.Join(ws, c.locked)
			must(t, os.MkdirAll(locked, 0o755))
			cmd := exec.Command(bin, "--workspace", ws, "reconcile", "--once")
			if os.Getuid() == 0 { // root reads anything: run as nobody, who owns the workspace
				filepath.Walk(ws, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, 65534, 65534) })
				must(t, os.Chmod(ws, 0o755))
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			}
			must(t, os.Chmod(locked, 0))
			out, err := cmd.CombinedOutput()
			os.Chmod(locked, 0o755)
			if _, exited := err.(*exec.ExitError); err != nil && !exited {
				t.Fatal(err)
			}
			code := cmd.ProcessState.ExitCode()
			entries, _ := os.ReadDir(locked)
			_, claude := os.Stat(filepath.Join(ws, ".claude/skills/intent/SKILL.md"))
			_, agents := os.Stat(filepath.Join(ws, ".agents/skills/intent/SKILL.md"))
			named := c.code == 0 || strings.Contains(string(out), c.locked+" cannot be read")
			if code != c.code || !named || len(entries) > 0 || claude != nil || agents != nil {
				failures++
				t.Errorf("%s: exit %d (want %d), named: %v, %d entries written in it, intent elsewhere: %v %v:\n%s", c.locked, code, c.code, named, len(entries), claude, agents, out)
			}
		}
	})
	t.Run("full filesystem", func(t *testing.T) {
		mnt := t.TempDir()
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", mnt).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a small tmpfs here, skipped: %v %s", err, out)
		}
		defer exec.Command("umount", mnt).Run()
		ws := example(t, mnt)
		code, out := runOnce(t, ws)
		if code != 4 || !strings.Contains(out, "no space left on device") || !strings.Contains(out, "SKILL.md") {
			failures++
			t.Errorf("exit %d (want 4 naming a SKILL.md and ENOSPC):\n%s", code, out)
		}
		// What fitted is whole: every SKILL.md on disk is complete, no temp file is left.
		filepath.Walk(ws, func(p string, info os.FileInfo, err error) error {
			if err != nil {
				return nil
			}
			if strings.HasPrefix(info.Name(), ".skillsync-") && strings.HasSuffix(info.Name(), ".tmp") {
				failures++
				t.Errorf("temp file left: %s", p)
			}
			if info.Name() == "SKILL.md" {
				data, _ := os.ReadFile(p)
				if !strings.HasSuffix(string(data), "\n") || !strings.Contains(string(data), "\n---\n") {
					failures++
					t.Errorf("partial file: %s", p)
				}
			}
			return nil
		})
	})
	report("permissions and disk", cases, failures, "exit 4 naming the path; the rest of the plan applied; an unreadable skill directory kept, taking no name (exit 0, 3 at a wanted name); nothing partial on ENOSPC")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
