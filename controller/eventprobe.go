package controller

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// eventProbeWait is how long the watcher waits, at start, for the event of a file it
// creates. Where file events arrive at all they arrive in milliseconds; on a network
// share or a bind mount from another machine (Docker Desktop's on macOS and Windows)
// they never do.
const eventProbeWait = 2 * time.Second

// eventsArrive creates a file in the state directory, which the caller watches,
// and tells whether its event comes through events within wait. The file is
// removed again. Where the state directory cannot be written, it cannot tell and
// says yes.
func eventsArrive(state *workspacefs.Dir, events <-chan fsnotify.Event, wait time.Duration) bool {
	var random [8]byte
	rand.Read(random[:])
	name := ".events-probe-" + hex.EncodeToString(random[:])
	if err := state.WriteNew(name, nil, 0o644); err != nil {
		return true
	}
	defer state.Remove(name)
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return true
			}
			if filepath.Base(ev.Name) == name {
				return true
			}
		case <-timeout.C:
			return false
		}
	}
}
