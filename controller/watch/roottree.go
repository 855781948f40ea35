package watch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// The workspace root's path can come to lead to another directory while the
// watcher runs: git-sync publishes each worktree by renaming a fresh symlink over
// the old one, and a tool may move the directory away and put a copy in its
// place. Everything a watcher holds (its watches, its caches, the lock) is of the
// tree it opened, and a pass over a tree the root no longer leads to converges
// nothing anyone reads. So the watcher watches (or polls) the directories that
// decide where the root leads (workspacefs.RootHolders); once the root leads
// elsewhere, /readyz is not ready until the watcher has taken the new tree's
// lock, watches it afresh and has run a full pass over it.

// rootTree is the tree a watcher works on, and whether the root's path still
// leads to it.
type rootTree struct {
	path   string // the root as given
	health *Tracker

	mu    sync.Mutex
	tree  workspacefs.Tree
	stale bool             // the root was seen to lead elsewhere
	gone  bool             // and, at the last check, to no directory
	led   workspacefs.Tree // or to this one, while stale
}

func newRootTree(path string, h *Tracker) (*rootTree, error) {
	tree, err := workspacefs.TreeAt(path)
	if err != nil {
		return nil, err
	}
	r := &rootTree{path: path, health: h, tree: tree}
	h.followRoot(r.elsewhere)
	return r, nil
}

// current is the tree the watcher works on.
func (r *rootTree) current() workspacefs.Tree {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.tree
}

// check looks where the root leads, after an event that may have moved it or at
// a poll; once it leads elsewhere, the endpoints say so at once. It tells whether
// a run is called for to move to the new tree: when the move is first seen, when
// the root leads to a directory again after it led to none, and when it moves on
// again before the watcher got to the tree it led to (git-sync may publish and
// remove a worktree while the watcher waits to retry a move to it).
func (r *rootTree) check() bool {
	now, err := workspacefs.TreeAt(r.path)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil && now.Same(r.tree) {
		r.gone = false
		return false
	}
	first, back := !r.stale, r.gone && err == nil
	onward := r.stale && err == nil && !now.Same(r.led)
	r.saw(now, err)
	return first || back || onward
}

// saw records that the root leads to now (or, with err, to no directory)
// rather than to the tree; r.mu is held.
func (r *rootTree) saw(now workspacefs.Tree, err error) {
	r.gone = err != nil
	if err == nil {
		r.led = now
	}
	r.markStale()
}

// markStale records that the root leads elsewhere than the tree; r.mu is held.
func (r *rootTree) markStale() {
	if r.stale {
		return
	}
	r.stale = true
	r.health.Record(Report{Time: time.Now().UTC(), Result: Stale,
		Error: fmt.Sprintf("the workspace root %s no longer leads to %s; moving to where it leads now", r.path, r.tree.Real)})
}

// moved tells whether the watcher must move before its next run.
func (r *rootTree) moved() bool {
	now, err := workspacefs.TreeAt(r.path)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil || !now.Same(r.tree) {
		r.saw(now, err)
	}
	return r.stale
}

// elsewhere is the stale report the endpoints answer with while the root leads
// elsewhere than the tree, or nil while it leads to it. It changes nothing:
// were a probe to mark the move seen, the watcher's own look would find nothing
// new and stay where it is.
func (r *rootTree) elsewhere() *Report {
	now, err := workspacefs.TreeAt(r.path)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil && now.Same(r.tree) && !r.stale {
		return nil
	}
	return &Report{Time: time.Now().UTC(), Result: Stale,
		Error: fmt.Sprintf("the workspace root %s no longer leads to %s; moving to where it leads now", r.path, r.tree.Real)}
}

// leadsAway tells whether the root no longer leads to tree: git-sync removes a
// worktree it published once it has published the next, which can be before
// the watcher got to it.
func (r *rootTree) leadsAway(tree workspacefs.Tree) bool {
	now, err := workspacefs.TreeAt(r.path)
	return err != nil || !now.Same(tree)
}

// publish records the report of a run over the tree, unless the root leads
// elsewhere by now: then the run converged a tree no one reads, and the
// endpoints keep saying so. It tells whether the report stands.
func (r *rootTree) publish(rep Report) bool {
	now, err := workspacefs.TreeAt(r.path)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil || !now.Same(r.tree) {
		r.saw(now, err)
	}
	if r.stale {
		return false
	}
	rep.Tree = r.tree.Real
	r.health.Record(rep)
	return true
}

// settle makes tree the one the watcher works on.
func (r *rootTree) settle(tree workspacefs.Tree) {
	r.mu.Lock()
	r.tree, r.stale, r.gone, r.led = tree, false, false, workspacefs.Tree{}
	r.mu.Unlock()
}

// errRootGone says the root leads to no workspace for now; the watcher tries
// again, not ready meanwhile.
var errRootGone = errors.New("the workspace root leads to no workspace")

// follow moves the watcher to the tree the root leads to now: it takes that
// tree's lock, letting go of the old one's (another holder of it ends the
// watcher: two writers on one tree is what the lock forbids), starts watching it
// afresh, and makes the next run a full one. An error wrapping errRootGone is
// passing; any other ends the watcher.
func (w *watchLoop) follow(ctx context.Context) error {
	was := w.root.current()
	tree, err := workspacefs.TreeAt(w.root.path)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", errRootGone, w.root.path, workspacefs.Cause(err))
	}
	// A directory still being filled (a copy under way) is no workspace yet, and
	// gets no lock file or state directory written into it.
	if !holdsConfig(w.o.System, tree.Real, w.o.Config()) {
		return fmt.Errorf("%w: %s leads to %s, which holds no %s yet", errRootGone, w.root.path, tree.Real, w.o.Config())
	}
	if w.o.Lock != nil {
		if err := w.o.Lock.Keep(tree.Real); err != nil {
			if w.root.leadsAway(tree) {
				return fmt.Errorf("%w: %s left %s before its lock was taken: %w", errRootGone, w.root.path, tree.Real, err)
			}
			return fmt.Errorf("the workspace root %s now leads to %s: %w", w.root.path, tree.Real, err)
		}
	}
	if err := w.watchTree(ctx, tree); err != nil {
		return fmt.Errorf("%w: watch %s: %w", errRootGone, tree.Real, err)
	}
	w.o.informer.NoteAll()
	w.o.informer.InputEvent(time.Now())
	w.o.Log.Info("the workspace root leads to another directory; watching that one", "root", w.root.path, "was", was.Real, "now", tree.Real)
	return nil
}

// holdsConfig tells whether the directory at real holds the workspace config,
// the file config relative to it.
func holdsConfig(sys workspacefs.System, real, config string) bool {
	r, err := sys.Open(real)
	if err != nil {
		return false
	}
	defer r.Close()
	info, err := r.Lstat(config)
	return err == nil && !info.IsDir()
}

// watchTree starts a change source on tree, in place of the one before.
func (w *watchLoop) watchTree(ctx context.Context, tree workspacefs.Tree) error {
	o := w.o
	o.Root = tree.Real
	src, err := newChangeSource(o, w.q, w.root)
	if err != nil {
		return err
	}
	if w.stopSource != nil {
		w.stopSource()
	}
	srcCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		src.run(srcCtx)
		close(done)
	}()
	w.src = src
	w.stopSource = func() {
		stop()
		<-done
		src.close()
	}
	w.root.settle(tree)
	if o.OnTree != nil {
		o.OnTree(srcCtx, tree.Real)
	}
	return nil
}

// holderEvent tells whether name, an event's path, is one that can move the
// root: a name in a directory RootHolders lists, or such a directory itself.
func (s *changeSource) holderEvent(name string) bool {
	return s.rootNames[filepath.Clean(name)]
}
