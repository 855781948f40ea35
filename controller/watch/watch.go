package watch

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/controller/state"
)

// Options configure the long-running controller.
type Options struct {
	controller.Request
	Debounce time.Duration // quiet period after the last event
	MaxWait  time.Duration // longest a run waits for quiet
	Resync   time.Duration // periodic full reconcile, with up to 10% jitter
	Poll     time.Duration // when set, poll for changes instead of using inotify
	// PollFlag is how a person asks for Poll, for the hints that suggest it; empty
	// leaves that suggestion out.
	PollFlag string
	Health   *Tracker
	// Build names the binary in the Health tracker's metrics.
	Build BuildInfo
	Lock  *state.Lock // held by the caller; kept for as long as the loop runs
	Log   *slog.Logger
	// OnTree, when set, is called each time the watcher starts on a tree (at its
	// start, and once the root came to lead elsewhere) with the tree's path and
	// a context that ends when the watcher leaves the tree: what belongs to one
	// tree, as a follower writing an MCP source's snapshot there, starts and
	// stops with it.
	OnTree func(ctx context.Context, root string)
	// OnPass, when set, is called with the outcome of each run over the tree the
	// root leads to: what a reader of the desired state, such as skillsync
	// serve, follows the workspace by.
	OnPass func(controller.Outcome)

	// informer is the loop's own: what the passes found, kept from pass to pass.
	informer *controller.Informer
}

// maxBackoff caps the retry delay after a failed run.
const maxBackoff = time.Minute

// Run keeps the workspace converged until ctx ends: every trigger (start, a file
// event, the resync timer, a watcher overflow or error, a retry, deletes waiting
// for the inputs to settle) marks the workspace dirty and one worker runs a pass.
// A pass reads and plans what the events since the last one named (see informer);
// the first, the resync's, one after a failure or after an event nothing can be
// made of are full passes, the same as --once. When the root comes to lead to
// another directory, the watcher moves there (see rootTree). When ctx ends, the
// run in progress finishes first.
func Run(ctx context.Context, o Options) error {
	o.informer = controller.NewInformer()
	root, err := newRootTree(o.Root, o.Health)
	if err != nil {
		return err
	}
	w := &watchLoop{o: o, q: newQueue(o.Debounce, o.MaxWait), root: root, backoff: time.Second}
	if err := w.watchTree(ctx, root.current()); err != nil {
		return err
	}
	defer func() { w.stopSource() }()
	go w.q.Debounce(ctx)
	go resync(ctx, o.Resync, func() {
		o.informer.NoteAll()
		w.q.Add()
	})
	o.Health.SetBuild(o.Build)
	o.Health.setAlive(true)
	defer o.Health.setAlive(false)
	w.q.Add() // the start trigger
	defer w.stopTimers()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-w.q.Ready():
		}
		if ctx.Err() != nil { // stopping: no new run once a signal came
			return nil
		}
		if err := w.run(ctx); err != nil {
			return err
		}
	}
}

// watchLoop is the state of Watch's one worker.
type watchLoop struct {
	o    Options
	q    *queue
	root *rootTree
	// src watches the tree root leads to; stopSource stops it.
	src           *changeSource
	stopSource    func()
	backoff       time.Duration
	retry, settle *time.Timer
}

// run runs one pass, first moving to the tree the root leads to now if that is
// another; an error ends the watcher.
func (w *watchLoop) run(ctx context.Context) error {
	if w.root.moved() {
		err := w.follow(ctx)
		if errors.Is(err, errRootGone) {
			w.o.Log.Error("cannot move to where the workspace root leads", "root", w.root.path, "err", err)
			w.o.Health.Record(Report{Time: time.Now().UTC(), Result: Stale, Error: err.Error()})
			w.failed()
			return nil
		}
		if err != nil {
			return err
		}
	}
	req := w.o.Request
	req.Root = w.root.current().Real
	if w.o.Lock != nil {
		if err := w.o.Lock.Keep(req.Root); err != nil {
			if w.root.moved() {
				w.q.Add() // the tree was removed as the root moved on: follow it
				return nil
			}
			return err
		}
	}
	w.o.Health.runStarted(time.Now())
	started := time.Now()
	out := w.src.pass(w.o.informer, req)
	report := runReport(out, started, time.Since(started))
	logRun(w.o.Log, out, report)
	if !w.root.publish(report) {
		w.q.Add() // a pass over the tree the root leads to now
		return nil
	}
	if w.o.OnPass != nil {
		w.o.OnPass(out)
	}
	if w.settle != nil {
		w.settle.Stop()
	}
	// Deletes that wait for the inputs to settle: one more run then.
	if len(out.Deferred) > 0 {
		w.settle = time.AfterFunc(time.Until(out.SettleAt)+10*time.Millisecond, w.q.Add)
	}
	if out.Verdict(false) == controller.Failed {
		w.failed()
	} else {
		w.backoff = time.Second
	}
	return nil
}

// failed schedules a full run after the backoff, and doubles it.
func (w *watchLoop) failed() {
	w.o.Log.Warn("retrying after failure", "backoffMs", w.backoff.Milliseconds())
	w.retry = time.AfterFunc(w.backoff, func() {
		w.o.informer.NoteAll()
		w.q.Add()
	})
	w.backoff = min(2*w.backoff, maxBackoff)
}

func (w *watchLoop) stopTimers() {
	for _, t := range []*time.Timer{w.retry, w.settle} {
		if t != nil {
			t.Stop()
		}
	}
}

// LogApplied logs each attempted change of out: a failure at error, the others at
// level; a key is left out rather than logged empty.
func LogApplied(log *slog.Logger, out controller.Outcome, level slog.Level) {
	ctx := context.Background()
	// The attributes of a record are made before the handler can refuse it: a
	// cold run's thousands of changes are not turned into records nobody logs.
	quiet := !log.Enabled(ctx, level)
	for _, a := range out.Applied {
		switch {
		case a.Err != nil:
			log.Error("change failed", "action", string(a.Action), "path", a.Path, "err", a.Err)
		case quiet:
		case a.Undone:
			log.Log(ctx, level, "housekeeping left undone", "action", string(a.Action), "path", a.Path, "kept", a.Kept)
		case a.Kept != "":
			log.Log(ctx, level, "change applied", "action", string(a.Action), "path", a.Path, "owner", a.Owner, "kept", a.Kept)
		default:
			log.Log(ctx, level, "change applied", "action", string(a.Action), "path", a.Path, "owner", a.Owner)
		}
	}
}

// logRun logs what a run did: invalid input and conflicts at warn, failures at
// error, the rest at info; a key is left out rather than logged empty.
func logRun(log *slog.Logger, out controller.Outcome, r Report) {
	for _, p := range out.Problems {
		attrs := []any{"file", p.Pos.String(), "problem", p.Message}
		if p.Hint != "" {
			attrs = append(attrs, "hint", p.Hint)
		}
		log.Warn("invalid input, nothing changed", attrs...)
	}
	LogApplied(log, out, slog.LevelInfo)
	for _, c := range out.Plan.Changes {
		if c.Action == plan.Conflict {
			log.Warn("conflict kept", "path", c.Path, "reason", c.Reason)
		}
	}
	if len(out.Deferred) > 0 {
		log.Info("deletes wait for the inputs to settle", "deletes", len(out.Deferred), "reason", out.SettleWhy,
			"retryInMs", max(time.Until(out.SettleAt), 0).Milliseconds())
	}
	attrs := []any{"result", string(r.Result), "durationMs", r.DurationMS, "created", r.Counts["create"], "updated", r.Counts["update"],
		"deleted", r.Counts["delete"], "conflicts", r.Counts["conflict"], "inSync", r.Counts["none"]}
	if n := r.Counts["deferred"]; n > 0 {
		attrs = append(attrs, "deferred", n)
	}
	if sc := out.Scope; sc != nil && !sc.Full {
		attrs = append(attrs, "entriesRead", len(sc.Read))
	} else if sc != nil {
		attrs = append(attrs, "full", true)
	}
	level := slog.LevelInfo
	switch r.Result {
	case Failed:
		level = slog.LevelError
	case Invalid, Refused:
		level = slog.LevelWarn
	}
	if r.Error != "" {
		attrs = append(attrs, "error", r.Error)
	}
	log.Log(context.Background(), level, "reconcile finished", attrs...)
}

// resync calls trigger every period, with up to 10% jitter, until ctx ends.
func resync(ctx context.Context, every time.Duration, trigger func()) {
	if every <= 0 {
		return
	}
	for {
		jitter := time.Duration(rand.Int64N(int64(every)/10 + 1))
		select {
		case <-ctx.Done():
			return
		case <-time.After(every + jitter):
			trigger()
		}
	}
}
