package watch

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A run that ends after the root has come to lead elsewhere converged a tree no
// one reads: its report is not published, and /readyz says the view is stale,
// until the watcher has moved. Each move the watcher sees calls for one run:
// the first, one back from nowhere, and one onward to yet another tree.
func TestARunOverATreeTheRootNoLongerLeadsToIsNotPublished(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"one", "two", "three"} {
		must(t, os.Mkdir(filepath.Join(base, d), 0o755))
	}
	root := filepath.Join(base, "root")
	must(t, os.Symlink("one", root))
	tracker := &Tracker{}
	tree, err := newRootTree(root, tracker)
	must(t, err)
	converged := Report{Time: time.Now(), Result: Converged}
	if !tree.publish(converged) || !tracker.Ready() {
		t.Fatal("a run over the tree the root leads to is not published")
	}
	swapLink(t, root, "two")
	if tree.publish(converged) || tracker.Ready() {
		t.Error("a run over the tree the root no longer leads to is published")
	}
	if !tree.moved() {
		t.Error("the watcher does not move")
	}
	if tree.check() {
		t.Error("a second look at the same move calls for another run")
	}
	must(t, os.Remove(root))
	if tree.check() {
		t.Error("a root that leads nowhere calls for a run")
	}
	must(t, os.Symlink("two", root))
	if !tree.check() {
		t.Error("a root that leads to a directory again calls for no run")
	}
	swapLink(t, root, "three")
	if !tree.check() {
		t.Error("a root that moves on again before the watcher moved calls for no run")
	}
	if tree.check() {
		t.Error("a second look at the move onward calls for another run")
	}
	now, err := newRootTree(root, tracker)
	must(t, err)
	tree.settle(now.current())
	if tree.moved() || !tree.publish(converged) || !tracker.Ready() {
		t.Error("once moved, the watcher's runs are not published")
	}
}
