//go:build linux

package controller

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// mount mounts a filesystem at dir (made if missing) for the rest of the test,
// with the arguments of mount(8) before the mount point; the test is skipped
// where mounting is not allowed (not root, no loop devices).
func mount(t *testing.T, dir string, args ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", append(args, dir)...).CombinedOutput(); err != nil {
		t.Skipf("cannot mount %s here (needs root and loop devices): %v: %s", strings.Join(args, " "), err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Logf("umount %s: %v: %s; detaching it lazily", dir, err, out)
			exec.Command("umount", "-l", dir).Run()
		}
	})
}

// mountWholeSeconds mounts at dir a new ext4 filesystem of 128-byte inodes, which
// keep whole seconds only.
func mountWholeSeconds(t *testing.T, dir string) {
	t.Helper()
	image := filepath.Join(t.TempDir(), "ext4.img")
	if err := os.WriteFile(image, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(image, 16<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.ext4", "-q", "-F", "-I", "128", image).CombinedOutput(); err != nil {
		t.Skipf("cannot make an ext4 filesystem here: %v: %s", err, out)
	}
	mount(t, dir, "-o", "loop", image)
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if stamp := workspacefs.StampOf(info); stamp.Mtime%int64(time.Second) != 0 || stamp.Ctime%int64(time.Second) != 0 {
		t.Fatalf("the filesystem at %s keeps finer times than seconds: %+v", dir, stamp)
	}
}

// stampAt is the stamp of the file at full.
func stampAt(t *testing.T, full string) workspacefs.Stamp {
	t.Helper()
	info, err := os.Lstat(full)
	if err != nil {
		t.Fatal(err)
	}
	return workspacefs.StampOf(info)
}

// A target directory on a filesystem of whole seconds, inside a workspace on one
// of nanoseconds: a generated file written, a --once pass and a hand edit of the
// same size, all in one second, leave the file's stamp as it was. The pass must
// not have recorded it, so the next --once reads the file and finds the edit.
func TestTheIndexSeesAnEditInTheSecondOfAPassOnAWholeSecondTarget(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	mountWholeSeconds(t, filepath.Join(root, ".claude/skills"))
	req := Request{System: workspacefs.OS{}, Root: root}
	if out := ReconcileOnce(req, time.Second); out.Err != nil || len(out.Applied) == 0 {
		t.Fatalf("first pass: %v, %d applied", out.Err, len(out.Applied))
	}
	file := filepath.Join(root, ".claude/skills/intent/SKILL.md")
	original, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The three must fall in one second of the filesystem's clock: try again from
	// the start of the next second until they do.
	for range 10 {
		if err := os.WriteFile(file, original, 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 50*time.Millisecond)))
		if err := os.WriteFile(file, original, 0o644); err != nil {
			t.Fatal(err)
		}
		written := stampAt(t, file)
		// Older than the margin of a nanosecond stamp, in the same second.
		time.Sleep(300 * time.Millisecond)
		if out := ReconcileOnce(req, time.Second); out.Err != nil || out.Plan.Pending() > 0 || out.Plan.Count(plan.Conflict) > 0 {
			t.Fatalf("the pass in the second of the write: %v, %d pending, %d conflicts", out.Err, out.Plan.Pending(), out.Plan.Count(plan.Conflict))
		}
		edited := []byte(strings.Replace(string(original), "intent", "intenT", 1)) // the same size
		if err := os.WriteFile(file, edited, 0o644); err != nil {
			t.Fatal(err)
		}
		if stampAt(t, file) != written {
			t.Logf("the edit fell in the next second; again")
			continue
		}
		out := ReconcileOnce(req, time.Second)
		if out.indexed || out.Plan.Count(plan.Conflict) != 1 {
			t.Fatalf("the edit in the second of the pass is not seen: answered from the index %v, %d conflicts\n%s", out.indexed, out.Plan.Count(plan.Conflict), indexSummary(out))
		}
		return
	}
	t.Fatal("no try wrote, passed and edited within one second")
}

// A target or an input on a filesystem not known to move its change time on
// every change (ramfs stands for FAT, exFAT, FUSE and network filesystems here):
// no index is written, and a change there that keeps a file's size and
// modification time is seen.
func TestNoIndexOnAFilesystemWhereStampsMayNotHold(t *testing.T) {
	for _, c := range []struct{ dir, edited, old, new string }{
		{".claude/skills", ".claude/skills/intent/SKILL.md", "intent", "intenT"},
		{"registry", "registry/intents.yaml", "Propose an intent", "Propose an Intent"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			root := testkit.ExampleWorkspace(t)
			full := filepath.Join(root, c.dir)
			// What the directory holds is put back on the filesystem mounted over it.
			saved := t.TempDir()
			os.CopyFS(saved, os.DirFS(full))
			mount(t, full, "-t", "ramfs", "ramfs")
			if err := os.CopyFS(full, os.DirFS(saved)); err != nil {
				t.Fatal(err)
			}
			req := Request{System: workspacefs.OS{}, Root: root}
			if out := ReconcileOnce(req, time.Second); out.Err != nil || len(out.Problems) > 0 {
				t.Fatalf("first pass: %v %v", out.Err, out.Problems)
			}
			if indexAsOf(t, req, later()) {
				t.Errorf("an index was written with %s on ramfs", c.dir)
			}
			before := Reconcile(Request{System: workspacefs.OS{}, Root: root, Check: true})
			editKeepingTimes(t, filepath.Join(root, c.edited), c.old, c.new)
			if out := ReconcileOnce(req, time.Second); out.indexed || indexSummary(out) == indexSummary(before) {
				t.Errorf("an edit of %s on ramfs is not seen: answered from the index %v\n%s", c.edited, out.indexed, indexSummary(out))
			}
		})
	}
}

// editKeepingTimes replaces the first old in the file at full with new, of the
// same length, and puts its modification time back.
func editKeepingTimes(t *testing.T, full, old, new string) {
	t.Helper()
	info, err := os.Stat(full)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), old, new, 1)
	if edited == string(data) || len(edited) != len(data) {
		t.Fatalf("%s: no %q to replace with %q of its length", full, old, new)
	}
	if err := os.WriteFile(full, []byte(edited), info.Mode()); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(full, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
}
