package controller

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-logr/logr"

	"github.com/skillsync/skillsync/banner"
	"github.com/skillsync/skillsync/desired/registry"
)

// WatchOptions configure the long-running controller.
type WatchOptions struct {
	Request
	Debounce time.Duration // quiet period after the last event
	MaxWait  time.Duration // longest a run waits for quiet
	Resync   time.Duration // periodic full reconcile, with up to 10% jitter
	Poll     time.Duration // when set, poll for changes instead of using inotify
	Health   *Health
	Lock     *Lock // held by the caller; kept for as long as the loop runs
	Log      logr.Logger
}

// maxBackoff caps the retry delay after a failed run.
const maxBackoff = time.Minute

// Watch keeps the workspace converged until ctx ends: every trigger (start, a file
// event, the resync timer, a watcher overflow or error, a retry) marks the workspace
// dirty and one worker runs the same full reconcile as --once. When ctx ends, the
// run in progress finishes first.
func Watch(ctx context.Context, o WatchOptions) error {
	q := NewQueue(o.Debounce, o.MaxWait)
	src, err := newChangeSource(o, q)
	if err != nil {
		return err
	}
	defer src.close()
	go q.Debounce(ctx)
	go src.run(ctx)
	go resync(ctx, o.Resync, q)
	o.Health.SetAlive(true)
	defer o.Health.SetAlive(false)
	q.Add() // the start trigger

	backoff := time.Second
	var retry *time.Timer
	for {
		select {
		case <-ctx.Done():
			if retry != nil {
				retry.Stop()
			}
			return nil
		case <-q.Ready():
		}
		if ctx.Err() != nil { // stopping: no new run once a signal came
			return nil
		}
		if o.Lock != nil {
			if err := o.Lock.Keep(o.Root); err != nil {
				return err
			}
		}
		o.Health.RunStarted(time.Now())
		started := time.Now()
		out := Reconcile(o.Request)
		took := time.Since(started)
		// Watches first: once /readyz says ready, every later change is seen.
		if len(out.Problems) > 0 {
			src.refresh(nil)
		} else {
			src.refresh(out.Registry)
		}
		report := o.Health.Record(out, started, took)
		logRun(o.Log, out, report)
		if out.Verdict(false) == Failed {
			o.Log.Info("retrying after failure", "backoffMs", backoff.Milliseconds())
			retry = time.AfterFunc(backoff, q.Add)
			backoff = min(2*backoff, maxBackoff)
		} else {
			backoff = time.Second
		}
	}
}

func logRun(log logr.Logger, out Outcome, r RunReport) {
	for _, p := range out.Problems {
		log.Info("invalid input, nothing changed", "file", p.Pos.String(), "problem", p.Message, "hint", p.Hint)
	}
	for _, a := range out.Applied {
		if a.Err != nil {
			log.Error(a.Err, "change failed", "action", string(a.Action), "path", a.Path)
		} else {
			log.Info("change applied", "action", string(a.Action), "path", a.Path, "owner", a.Owner)
		}
	}
	for _, c := range out.Plan.Changes {
		if c.Action == Conflict {
			log.Info("conflict kept", "path", c.Path, "reason", c.Reason)
		}
	}
	log.Info("reconcile finished", "result", r.Result, "durationMs", r.DurationMS, "error", r.Error,
		"created", r.Counts["create"], "updated", r.Counts["update"], "deleted", r.Counts["delete"], "conflicts", r.Counts["conflict"], "inSync", r.Counts["none"])
}

func resync(ctx context.Context, every time.Duration, q *Queue) {
	if every <= 0 {
		return
	}
	for {
		jitter := time.Duration(rand.Int64N(int64(every)/10 + 1))
		select {
		case <-ctx.Done():
			return
		case <-time.After(every + jitter):
			q.Add()
		}
	}
}

// changeSource turns changes on disk into triggers: inotify through fsnotify, or a
// timer and a cheap fingerprint with --poll.
type changeSource struct {
	o       WatchOptions
	q       *Queue
	root    *os.Root
	fsw     *fsnotify.Watcher // nil when polling
	watched map[string]bool
	dirs    chan []string // refreshed watch sets for the poller
	// baseline is the fingerprint before the first run, so the poller sees every
	// change from then on, the first run's own writes included.
	baseline string
}

func newChangeSource(o WatchOptions, q *Queue) (*changeSource, error) {
	r, err := os.OpenRoot(o.Root)
	if err != nil {
		return nil, err
	}
	s := &changeSource{o: o, q: q, root: r, watched: map[string]bool{}, dirs: make(chan []string, 1)}
	if o.Poll == 0 {
		if s.fsw, err = fsnotify.NewWatcher(); err != nil {
			r.Close()
			return nil, err
		}
	}
	// Watch before the first run lists anything, so no change after this point can
	// fall between a scan and its watch. A registry with problems still names its
	// files and directories.
	reg, _ := registry.Load(o.Root)
	s.refresh(reg)
	if s.fsw == nil {
		s.baseline = fingerprint(r, sortedKeys(s.watched))
	}
	return s, nil
}

func (s *changeSource) close() {
	if s.fsw != nil {
		s.fsw.Close()
	}
	s.root.Close()
}

// refresh moves the watches to the directories that matter now. With inputs that do
// not load (reg is nil), the directories watched so far stay watched, so that fixing
// them is seen.
func (s *changeSource) refresh(reg *registry.Registry) {
	want := map[string]bool{}
	for _, d := range watchDirs(s.root, reg) {
		want[d] = true
	}
	if reg == nil {
		for d := range s.watched {
			want[d] = true
		}
	}
	if s.fsw != nil {
		// Ask fsnotify what it watches: a directory deleted or renamed away lost its
		// watch, and must get a new one when it is back.
		active := map[string]bool{}
		for _, p := range s.fsw.WatchList() {
			active[p] = true
		}
		for d := range s.watched {
			if !want[d] && active[s.abs(d)] {
				s.fsw.Remove(s.abs(d))
			}
		}
		for d := range want {
			if active[s.abs(d)] {
				continue
			}
			if err := s.fsw.Add(s.abs(d)); err != nil {
				s.o.Log.Error(err, "cannot watch directory", "dir", d)
				delete(want, d)
			}
		}
	}
	s.watched = want
	if s.fsw == nil {
		select { // replace a set the poller has not taken yet
		case <-s.dirs:
		default:
		}
		s.dirs <- sortedKeys(want)
	}
}

func (s *changeSource) abs(rel string) string {
	return filepath.Join(s.o.Root, filepath.FromSlash(rel))
}

func (s *changeSource) run(ctx context.Context) {
	if s.fsw == nil {
		s.poll(ctx)
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-s.fsw.Events:
			if !ok {
				return
			}
			if s.relevant(ev.Name) {
				s.q.Add()
			}
		case err, ok := <-s.fsw.Errors:
			if !ok {
				return
			}
			// An overflow means events were lost: only a full run is safe.
			s.o.Log.Error(err, "watcher error, reconciling in full", "overflow", errors.Is(err, fsnotify.ErrEventOverflow))
			s.q.Add()
		}
	}
}

// relevant drops events for skillsync's own temp files and lock.
func (s *changeSource) relevant(name string) bool {
	base := path.Base(filepath.ToSlash(name))
	if banner.IsTempName(base) {
		return false
	}
	rel, err := filepath.Rel(s.o.Root, name)
	return err != nil || filepath.ToSlash(rel) != LockFile
}

func (s *changeSource) poll(ctx context.Context) {
	var dirs []string
	last := s.baseline
	tick := time.NewTicker(s.o.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case dirs = <-s.dirs:
			continue
		case <-tick.C:
		}
		if fp := fingerprint(s.root, dirs); fp != last {
			s.q.Add()
			last = fp
		}
	}
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
