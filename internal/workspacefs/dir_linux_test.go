//go:build linux && !skillsync_portable

package workspacefs

import (
	"testing"

	"golang.org/x/sys/unix"
)

// A Flush syncs the filesystem only when a file was written through the Dir, or
// one opened from it, without a sync of its own since the last Flush.
func TestFlushSyncsOnlyWhatWasNotSyncedAlready(t *testing.T) {
	root, syncs := countingSyncs(t)
	mustDo(t, root.Mkdir("sub", 0o755))
	sub, err := root.Beneath("sub")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	flush := func(want int, when string) {
		t.Helper()
		*syncs = 0
		mustDo(t, root.Flush())
		if *syncs != want {
			t.Errorf("%s: %d syncfs, want %d", when, *syncs, want)
		}
	}
	mustDo(t, sub.WriteNewSynced("a", []byte("a"), 0o644))
	mustDo(t, root.WriteNewSynced("b", []byte("b"), 0o644))
	flush(0, "after files synced one by one")
	mustDo(t, sub.WriteNew("c", []byte("c"), 0o644))
	flush(1, "after a file written unsynced in a folder opened from it")
	flush(0, "after a flush with nothing written since")
}

// A WriteBack syncs the filesystem only when a file was written unsynced, and
// leaves it to the Flush that follows, which syncs it still.
func TestAWriteBackLeavesTheFlushToBeMade(t *testing.T) {
	root, syncs := countingSyncs(t)
	root.WriteBack()
	mustDo(t, root.WriteNewSynced("a", []byte("a"), 0o644))
	root.WriteBack()
	if *syncs != 0 {
		t.Errorf("%d syncfs with nothing written unsynced, want 0", *syncs)
	}
	mustDo(t, root.WriteNew("b", []byte("b"), 0o644))
	root.WriteBack()
	if *syncs != 1 {
		t.Errorf("%d syncfs by a write-back after a file written unsynced, want 1", *syncs)
	}
	mustDo(t, root.Flush())
	if *syncs != 2 {
		t.Errorf("%d syncfs in all after the flush, want 2: the write-back left it to be made", *syncs)
	}
}

// countingSyncs opens a temp directory as a Dir and counts the syncfs calls
// made from then until the test ends.
func countingSyncs(t *testing.T) (Dir, *int) {
	t.Helper()
	syncs := new(int)
	syncfs = func(fd int) error { *syncs++; return unix.Syncfs(fd) }
	t.Cleanup(func() { syncfs = unix.Syncfs })
	r, err := OS{}.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	root, err := r.OpenDir(".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, syncs
}

// A Flush that fails leaves what it was to sync for the next one.
func TestAFailedFlushKeepsWhatItWasToSync(t *testing.T) {
	calls := 0
	syncfs = func(fd int) error {
		if calls++; calls == 1 {
			return unix.EIO
		}
		return unix.Syncfs(fd)
	}
	t.Cleanup(func() { syncfs = unix.Syncfs })
	r, err := OS{}.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	root, err := r.OpenDir(".")
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	mustDo(t, root.WriteNew("a", []byte("a"), 0o644))
	if err := root.Flush(); err == nil {
		t.Fatal("the failed syncfs was not reported")
	}
	mustDo(t, root.Flush())
	if calls != 2 {
		t.Errorf("%d syncfs, want 2: the second Flush forgot the file the first could not sync", calls)
	}
}

// The Linux Dir swaps in one step on the filesystems the tests run on, so the
// apply's check after a swap is what they exercise, not the fallback.
func TestTheLinuxDirExchanges(t *testing.T) {
	path, d := openTestDir(t)
	mustWrite(t, path+"/a", "a")
	mustWrite(t, path+"/b", "b")
	mustDo(t, d.Exchange("a", "b"))
	wantContent(t, path+"/a", "b")
	wantContent(t, path+"/b", "a")
}
