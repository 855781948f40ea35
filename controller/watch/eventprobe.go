package watch

import (
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// eventProbeWait is how long the watcher waits, at start, for the event of a write
// of its own. Where file events arrive at all they arrive in milliseconds; on a
// network share or a bind mount from another machine (Docker Desktop's on macOS
// and Windows) they never do.
const eventProbeWait = 2 * time.Second

// eventsArrive calls touch, which writes the file at name in a directory the
// caller watches, and tells whether the write's event comes through events
// within wait. Where touch fails it cannot tell, and says yes.
func eventsArrive(touch func() error, name string, events <-chan fsnotify.Event, wait time.Duration) bool {
	if err := touch(); err != nil {
		return true
	}
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return true
			}
			if filepath.Clean(ev.Name) == filepath.Clean(name) {
				return true
			}
		case <-timeout.C:
			return false
		}
	}
}

// noEventsHint says why file events may not arrive, and how to choose the poll
// interval where pollFlag names the way.
func noEventsHint(pollFlag string) string {
	hint := "a network share or a bind mount from another machine (Docker Desktop) sends none"
	if pollFlag != "" {
		hint += "; pass " + pollFlag + " to choose the interval"
	}
	return hint
}
