package controller

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestLockIsExclusiveAndNamesItsHolder(t *testing.T) {
	root := t.TempDir()
	first, err := AcquireLock(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = AcquireLock(root, 0)
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
	second, err := AcquireLock(root, time.Minute) // waits for the release
	if err != nil {
		t.Fatalf("waiting acquire: %v", err)
	}
	<-released
	second.Release()
}

// TestLockOfADeadProcessIsTakenOver has a child process take the lock and die.
func TestLockOfADeadProcessIsTakenOver(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, StateDir), 0o755); err != nil {
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
	l, err := AcquireLock(root, 0)
	if err != nil {
		t.Fatalf("lock of dead pid %d not taken over: %v", dead, err)
	}
	defer l.Release()
	if l.TakenOver != dead {
		t.Errorf("TakenOver = %d, want %d", l.TakenOver, dead)
	}
}
