package controller

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

func openStateDir(t *testing.T) (string, *workspacefs.Dir) {
	t.Helper()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	d, err := workspacefs.OpenDir(root, ".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return dir, d
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
		t.Errorf("the probe left %v (%v)", entries, err)
	}
}

// With real fsnotify on a local disk the probe's own event arrives.
func TestEventsArriveOnALocalDisk(t *testing.T) {
	dir, state := openStateDir(t)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	if !eventsArrive(state, w.Events, time.Minute) {
		t.Error("no event for the probe file on a local disk")
	}
	assertEmpty(t, dir)
}

// Where no event ever comes (a network share, a bind mount from another machine)
// the probe says so once its wait is over, and an unrelated event does not count.
func TestNoEventsWhereNoneArrive(t *testing.T) {
	dir, state := openStateDir(t)
	events := make(chan fsnotify.Event, 1)
	events <- fsnotify.Event{Name: filepath.Join(dir, "someone-elses-file"), Op: fsnotify.Create}
	if eventsArrive(state, events, 50*time.Millisecond) {
		t.Error("events said to arrive where none for the probe came")
	}
	assertEmpty(t, dir)
}
