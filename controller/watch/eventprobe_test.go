package watch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

func touchFile(path string) func() error {
	return func() error { return os.WriteFile(path, []byte("123\n"), 0o644) }
}

// With real fsnotify on a local disk the probe's own event arrives.
func TestEventsArriveOnALocalDisk(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "lock")
	if err := os.WriteFile(lock, []byte("123\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	if !eventsArrive(touchFile(lock), lock, w.Events, time.Minute) {
		t.Error("no event for the write on a local disk")
	}
}

// Where no event ever comes (a network share, a bind mount from another machine)
// the probe says so once its wait is over, and an unrelated event does not count.
func TestNoEventsWhereNoneArrive(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "lock")
	events := make(chan fsnotify.Event, 1)
	events <- fsnotify.Event{Name: filepath.Join(dir, "someone-elses-file"), Op: fsnotify.Write}
	if eventsArrive(touchFile(lock), lock, events, 50*time.Millisecond) {
		t.Error("events said to arrive where none for the probe came")
	}
}
