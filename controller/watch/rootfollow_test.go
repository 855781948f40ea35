package watch

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// runningWatcher is Watch running on a workspace, its /readyz served on
// 127.0.0.1, and what it logged.
type runningWatcher struct {
	url  string
	logs *levels
	done chan error
	stop context.CancelFunc
}

// startWatcher runs Watch with o, holding the workspace lock as the command
// does, and waits for its first run to converge.
func startWatcher(t *testing.T, o Options) *runningWatcher {
	t.Helper()
	lock, err := state.Acquire(workspacefs.OS{}, o.Root, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lock.Release)
	tracker := &Tracker{}
	srv := httptest.NewServer(tracker.Handler())
	t.Cleanup(srv.Close)
	w := &runningWatcher{url: srv.URL + "/readyz", logs: &levels{}, done: make(chan error, 1)}
	o.Health, o.Lock, o.Log = tracker, lock, slog.New(w.logs)
	if o.Debounce == 0 {
		o.Debounce, o.MaxWait = 20*time.Millisecond, 200*time.Millisecond
	}
	o.Resync = time.Hour // only what the watcher sees can make it follow
	ctx, cancel := context.WithCancel(t.Context())
	w.stop = cancel
	go func() { w.done <- Run(ctx, o) }()
	t.Cleanup(func() {
		cancel()
		<-w.done
	})
	await(t, func() bool { return w.ready() == Converged })
	// Under polling the first run's own writes cause one more: let it pass, so
	// that only what the test does can cause the next.
	for runs := -1; runs != w.runs(); time.Sleep(10*o.Debounce + 5*o.Poll) {
		runs = w.runs()
	}
	return w
}

// runs counts the runs that finished.
func (w *runningWatcher) runs() int {
	return len(w.logs.matching("INFO reconcile finished")) + len(w.logs.matching("WARN reconcile finished")) +
		len(w.logs.matching("ERROR reconcile finished"))
}

// ready is the result /readyz names when it answers ready, "" when it does not.
func (w *runningWatcher) ready() Result {
	ready, result, _ := w.readyz()
	if !ready {
		return ""
	}
	return result
}

// readyz is what /readyz answers: ready, the last run's result and error.
func (w *runningWatcher) readyz() (bool, Result, string) {
	resp, err := http.Get(w.url)
	if err != nil {
		return false, "", err.Error()
	}
	defer resp.Body.Close()
	var body struct {
		Ready   bool    `json:"ready"`
		LastRun *Report `json:"lastRun"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || body.LastRun == nil {
		return false, "", ""
	}
	return body.Ready && resp.StatusCode == http.StatusOK, body.LastRun.Result, body.LastRun.Error
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// holds tells whether the file rel under root holds text.
func holds(root, rel, text string) bool {
	data, err := os.ReadFile(filepath.Join(root, rel))
	return err == nil && strings.Contains(string(data), text)
}

// copyExample copies fixtures/example to dir, which must not exist.
func copyExample(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(testkit.Fixture("example"))); err != nil {
		t.Fatal(err)
	}
}

// swapLink points the symlink link at target the way git-sync publishes a
// worktree: a new link beside it, renamed over it.
func swapLink(t *testing.T, link, target string) {
	t.Helper()
	tmp := link + ".tmp"
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, link); err != nil {
		t.Fatal(err)
	}
}

const weeklyReport = ".claude/skills/weekly-report/SKILL.md"

// The root is a symlink git-sync swaps at every sync. Once it leads to the new
// worktree, the watcher writes the new worktree's skill files, sees its edits,
// holds its lock and has let go of the old one's, all without a resync; with
// events and by polling alike.
func TestWatchFollowsARootLinkSwappedLikeGitSync(t *testing.T) {
	for _, c := range []struct {
		name string
		poll time.Duration
	}{{"inotify", 0}, {"poll", 50 * time.Millisecond}} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			one, two := filepath.Join(base, ".worktrees/one"), filepath.Join(base, ".worktrees/two")
			root := filepath.Join(base, "root")
			copyExample(t, one)
			if err := os.Symlink(".worktrees/one", root); err != nil {
				t.Fatal(err)
			}
			w := startWatcher(t, Options{Request: controller.Request{System: workspacefs.OS{}, Root: root}, Poll: c.poll})

			copyExample(t, two)
			replaceIn(t, filepath.Join(two, "registry/journal.yaml"), "title: Weekly report for a team", "title: Weekly report, synced")
			swapLink(t, root, ".worktrees/two")
			await(t, func() bool {
				return holds(two, weeklyReport, "Weekly report, synced") && w.ready() == Converged
			})
			if _, err := state.Acquire(workspacefs.OS{}, two, 0); !errors.As(err, new(*state.HeldError)) {
				t.Errorf("the new worktree's lock is not held: %v", err)
			}
			if l, err := state.Acquire(workspacefs.OS{}, one, 0); err != nil {
				t.Errorf("the old worktree's lock is still held: %v", err)
			} else {
				l.Release()
			}

			replaceIn(t, filepath.Join(two, "registry/journal.yaml"), "alias: note,", "alias: jot,")
			await(t, func() bool {
				_, err := os.Stat(filepath.Join(two, ".claude/skills/jot/SKILL.md"))
				return err == nil && w.ready() == Converged
			})
			if holds(one, weeklyReport, "synced") {
				t.Error("the old worktree got the new worktree's skills")
			}
		})
	}
}

// The root directory is moved away and a copy put in its place. While nothing
// is at the root's path the watcher is not ready and says why; once the copy is
// there it works on the copy. The copy is made beside and renamed into place:
// one made in place is followed once it holds skillsync.yaml, and the watcher's
// own writes could race the copying tool's.
func TestWatchFollowsARootMovedAwayAndCopied(t *testing.T) {
	base := t.TempDir()
	root, old := filepath.Join(base, "ws"), filepath.Join(base, "ws.old")
	copyExample(t, root)
	w := startWatcher(t, Options{Request: controller.Request{System: workspacefs.OS{}, Root: root}})

	if err := os.Rename(root, old); err != nil {
		t.Fatal(err)
	}
	await(t, func() bool {
		ready, result, _ := w.readyz()
		return !ready && result == Stale
	})
	must(t, os.CopyFS(root+".copy", os.DirFS(old)))
	must(t, os.Rename(root+".copy", root))
	replaceIn(t, filepath.Join(root, "registry/journal.yaml"), "alias: note,", "alias: jot,")
	await(t, func() bool {
		_, err := os.Stat(filepath.Join(root, ".claude/skills/jot/SKILL.md"))
		return err == nil && w.ready() == Converged
	})
	if _, err := state.Acquire(workspacefs.OS{}, root, 0); !errors.As(err, new(*state.HeldError)) {
		t.Errorf("the copy's lock is not held: %v", err)
	}
	if _, err := os.Stat(filepath.Join(old, ".claude/skills/jot")); err == nil {
		t.Error("the tree moved away was written to")
	}
}

// Where the root leads now, another skillsync holds the lock: two writers on one
// tree is what the lock forbids, so the watcher stops with an error naming both
// trees and the holder, for its supervisor to restart it.
func TestWatchStopsWhenTheNewTreesLockIsHeld(t *testing.T) {
	base := t.TempDir()
	one, two := filepath.Join(base, "one"), filepath.Join(base, "two")
	root := filepath.Join(base, "root")
	copyExample(t, one)
	copyExample(t, two)
	if err := os.Symlink("one", root); err != nil {
		t.Fatal(err)
	}
	w := startWatcher(t, Options{Request: controller.Request{System: workspacefs.OS{}, Root: root}})
	other, err := state.Acquire(workspacefs.OS{}, two, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	swapLink(t, root, "two")
	var stopped error
	await(t, func() bool {
		select {
		case stopped = <-w.done:
			w.done <- stopped // for the cleanup
			return true
		default:
			return false
		}
	})
	if !errors.Is(stopped, state.ErrLost) || !strings.Contains(stopped.Error(), root+" now leads to "+two) ||
		!strings.Contains(stopped.Error(), "holds .skillsync/lock") {
		t.Errorf("the watcher stopped with %v", stopped)
	}
	if ready, _, _ := w.readyz(); ready {
		t.Error("ready after stopping")
	}
}

// A probe of /readyz that looks at the root before the watcher does answers
// stale, and leaves the watcher to see the move for itself: were the probe to
// mark the move seen, the watcher's own look would find nothing new and stay
// on the old tree until a resync.
func TestAProbeDoesNotKeepTheWatcherFromMoving(t *testing.T) {
	for _, c := range []struct {
		name string
		poll time.Duration
	}{{"inotify", 0}, {"poll", 300 * time.Millisecond}} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			one, two := filepath.Join(base, ".worktrees/one"), filepath.Join(base, ".worktrees/two")
			root := filepath.Join(base, "root")
			copyExample(t, one)
			copyExample(t, two)
			replaceIn(t, filepath.Join(two, "registry/journal.yaml"), "title: Weekly report for a team", "title: Weekly report, synced")
			must(t, os.Symlink(".worktrees/one", root))
			w := startWatcher(t, Options{Request: controller.Request{System: workspacefs.OS{}, Root: root}, Poll: c.poll})

			swapLink(t, root, ".worktrees/two")
			if ready, result, _ := w.readyz(); ready || result != Stale {
				t.Errorf("right after the swap /readyz answers ready %v, %s", ready, result)
			}
			await(t, func() bool {
				return holds(two, weeklyReport, "Weekly report, synced") && w.ready() == Converged
			})
		})
	}
}
