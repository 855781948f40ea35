package state

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// LockFile is the lock file, relative to the workspace root.
const LockFile = Dir + "/lock"

// HeldError says another process holds the workspace lock.
type HeldError struct{ PID int }

func (e *HeldError) Error() string {
	return fmt.Sprintf("another skillsync (pid %d) holds %s; stop it, or wait for it to finish", e.PID, LockFile)
}

// Lock is a held workspace lock.
type Lock struct {
	f   *os.File
	sys workspacefs.System
	// TakenOver is the pid a lock file still named when a dead process left it.
	TakenOver int
}

// Acquire takes the workspace lock, waiting up to wait for another holder to let
// go; with wait 0 it tries once.
func Acquire(sys workspacefs.System, root string, wait time.Duration) (*Lock, error) {
	r, err := sys.Open(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if err := Make(r); err != nil {
		return nil, err
	}
	f, err := openLockFile(r)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		err := workspacefs.TryLock(f)
		if err == nil {
			break
		}
		if !errors.Is(err, workspacefs.ErrLockHeld) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", LockFile, err)
		}
		if !time.Now().Before(deadline) {
			pid := recordedPID(f)
			f.Close()
			return nil, &HeldError{PID: pid}
		}
		time.Sleep(min(100*time.Millisecond, time.Until(deadline)))
	}
	l := &Lock{f: f, sys: sys}
	if pid := recordedPID(f); pid != 0 && pid != os.Getpid() {
		l.TakenOver = pid
	}
	if err := f.Truncate(0); err != nil {
		l.Release()
		return nil, err
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		l.Release()
		return nil, err
	}
	return l, nil
}

// openLockFile opens .skillsync/lock for writing without following a link of any
// kind: the pid is written into it, so a symlink or a hard link planted there would
// carry that write to another file.
func openLockFile(r workspacefs.FS) (*os.File, error) {
	d, err := r.OpenDir(Dir)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", Dir, workspacefs.Cause(err))
	}
	defer d.Close()
	f, err := d.OpenFile(path.Base(LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if errors.Is(err, workspacefs.ErrNotRegular) || errors.Is(err, workspacefs.ErrLinked) {
		return nil, registry.Problems{{Pos: registry.Position{File: LockFile}, Message: "is " + describeLockObstacle(err) + ", not skillsync's own lock file",
			Hint: "remove it; skillsync creates a fresh lock file"}}
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", LockFile, workspacefs.Explain(workspacefs.Cause(err)))
	}
	return f, nil
}

func describeLockObstacle(err error) string {
	if errors.Is(err, workspacefs.ErrLinked) {
		return "a hard link shared with another file"
	}
	return "a symlink or something other than a regular file"
}

// Release lets go of the lock. The file stays; an unlocked file means no holder.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	l.f.Truncate(0)
	workspacefs.Unlock(l.f)
	l.f.Close()
	l.f = nil
}

// Touch writes the holder's pid into the lock file again, a write that changes
// nothing, for the watcher to see its event; the sync makes Windows, which
// notices a write only once it leaves the cache, report it at once.
func (l *Lock) Touch() error {
	if _, err := l.f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		return err
	}
	return l.f.Sync()
}

func recordedPID(f *os.File) int {
	buf := make([]byte, 32)
	n, _ := f.ReadAt(buf, 0)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	return pid
}

// ErrLost means the lock file was replaced and another process took the new one.
var ErrLost = errors.New("lost the workspace lock")

// Keep makes sure the lock is still the file at .skillsync/lock: removing
// .skillsync/ (git clean -fdX does) would otherwise let a second writer start. A
// replaced lock file is taken again; if another process already holds the new one,
// Keep returns ErrLost wrapped in a HeldError message.
func (l *Lock) Keep(root string) error {
	held, err := l.f.Stat()
	if err != nil {
		return err
	}
	r, err := l.sys.Open(root)
	if err != nil {
		return err
	}
	current, err := r.Lstat(LockFile)
	r.Close()
	if err == nil && os.SameFile(held, current) {
		return nil
	}
	fresh, err := Acquire(l.sys, root, 0)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrLost, err)
	}
	l.Release()
	l.f = fresh.f
	return nil
}
