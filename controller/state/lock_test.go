package state

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

func TestLockIsExclusiveAndNamesItsHolder(t *testing.T) {
	root := t.TempDir()
	first, err := Acquire(workspacefs.OS{}, root, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(workspacefs.OS{}, root, 0)
	var held *HeldError
	if !errors.As(err, &held) || held.PID != os.Getpid() || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second acquire: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, ".skillsync/.gitignore")); string(got) != "*\n" {
		t.Errorf(".gitignore = %q", got)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(50 * time.Millisecond)
		first.Release()
		close(released)
	}()
	second, err := Acquire(workspacefs.OS{}, root, time.Minute) // waits for the release
	if err != nil {
		t.Fatalf("waiting acquire: %v", err)
	}
	<-released
	second.Release()
}

// TestLockOfADeadProcessIsTakenOver has a child process take the lock and die.
func TestLockOfADeadProcessIsTakenOver(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	// flock from a child shell that is killed while holding the lock.
	cmd := exec.Command("sh", "-c", `exec 9>>"$1"; flock -x 9; echo $$ > "$1"; kill -9 $$`, "sh", filepath.Join(root, LockFile))
	out, _ := cmd.CombinedOutput()
	data, _ := os.ReadFile(filepath.Join(root, LockFile))
	dead, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if dead == 0 {
		t.Skipf("flock(1) not available to take the lock from a child: %s", out)
	}
	l, err := Acquire(workspacefs.OS{}, root, 0)
	if err != nil {
		t.Fatalf("lock of dead pid %d not taken over: %v", dead, err)
	}
	defer l.Release()
	if l.TakenOver != dead {
		t.Errorf("TakenOver = %d, want %d", l.TakenOver, dead)
	}
}

// The pid is written into the lock file, so a link planted at .skillsync/lock must
// never carry that write to another file: not a symlink (os.Root follows one that
// stays inside the workspace even with O_NOFOLLOW), not a hard link.
func TestLockNeverWritesThroughALink(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(t *testing.T, root, victim string)
	}{
		{"symlink inside the workspace", func(t *testing.T, root, victim string) {
			if err := os.Symlink("../registry.yaml", filepath.Join(root, LockFile)); err != nil {
				t.Fatal(err)
			}
		}},
		{"symlink out of the workspace", func(t *testing.T, root, victim string) {
			if err := os.Symlink(victim, filepath.Join(root, LockFile)); err != nil {
				t.Fatal(err)
			}
		}},
		{"hard link", func(t *testing.T, root, victim string) {
			if err := os.Link(victim, filepath.Join(root, LockFile)); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, Dir), 0o755); err != nil {
				t.Fatal(err)
			}
			victim := filepath.Join(root, "registry.yaml")
			if c.name == "symlink out of the workspace" {
				victim = filepath.Join(t.TempDir(), "precious")
			}
			if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c.plant(t, root, victim)
			lock, err := Acquire(workspacefs.OS{}, root, 0)
			if err == nil {
				lock.Release()
				t.Fatal("took a lock through a link")
			}
			if !strings.Contains(err.Error(), LockFile) || !strings.Contains(err.Error(), "remove it") {
				t.Errorf("error %q does not name %s and what to do", err, LockFile)
			}
			if got, _ := os.ReadFile(victim); string(got) != "precious\n" {
				t.Errorf("the linked file now holds %q", got)
			}
		})
	}
}
