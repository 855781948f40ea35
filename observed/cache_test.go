package observed

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// countingReads is the disk, counting the files read.
func countingReads(reads *int) workspacefs.System {
	return &workspacefs.Faulty{Base: workspacefs.OS{}, Faults: []workspacefs.Fault{{Op: "ReadRegular", Before: func(string) { *reads++ }}}}
}

// A file skillsync wrote, settled, is known by its stamp; an edit that keeps its
// size and puts its modification time back is still seen, by its change time.
func TestCacheKnowsSettledFilesByStamp(t *testing.T) {
	if !stampsKept(t) {
		t.Skip("this system keeps no change time; every file is read")
	}
	root := t.TempDir()
	rel := ".claude/skills/a/SKILL.md"
	put(t, root, rel, stamp(t, rel))
	cache := NewCache(func() time.Time { return time.Now().Add(time.Hour) })
	var reads int
	sys := countingReads(&reads)
	scan := func() File {
		st, err := ScanCached(sys, root, dirs, cache)
		if err != nil {
			t.Fatal(err)
		}
		cache.Sweep()
		return st.Files[rel]
	}
	if f := scan(); f.Ownership != Owned || reads != 1 {
		t.Fatalf("first scan: %v, %d reads", f.Ownership, reads)
	}
	if f := scan(); f.Ownership != Owned || reads != 1 {
		t.Fatalf("second scan read the file again (%d reads) or lost it: %v", reads, f.Ownership)
	}

	full := filepath.Join(root, rel)
	info, _ := os.Stat(full)
	data, _ := os.ReadFile(full)
	edited := bytes.Replace(data, []byte("body"), []byte("BODY"), 1)
	if err := os.WriteFile(full, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(full, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if f := scan(); f.Ownership != Modified || reads != 2 {
		t.Errorf("an edit of the same size with the old modification time: %v after %d reads", f.Ownership, reads)
	}
}

// A file whose times are within RacyWindow of the scan is read at every scan:
// a write in the same tick would leave its stamp as it was.
func TestCacheReadsRacyFiles(t *testing.T) {
	root := t.TempDir()
	rel := ".claude/skills/a/SKILL.md"
	put(t, root, rel, stamp(t, rel))
	cache := &Cache{}
	var reads int
	sys := countingReads(&reads)
	for range 3 {
		if _, err := ScanCached(sys, root, dirs, cache); err != nil {
			t.Fatal(err)
		}
		cache.Sweep()
	}
	if reads != 3 {
		t.Errorf("a file written just now was read %d times in 3 scans, want 3", reads)
	}
}

// A person's file is read at every scan, whatever its stamp.
func TestCacheReadsPeoplesFiles(t *testing.T) {
	root := t.TempDir()
	rel := ".claude/skills/mine/SKILL.md"
	put(t, root, rel, []byte("---\nname: mine\ndescription: d\n---\nMine.\n"))
	cache := NewCache(func() time.Time { return time.Now().Add(time.Hour) })
	var reads int
	sys := countingReads(&reads)
	for range 2 {
		if _, err := ScanCached(sys, root, dirs, cache); err != nil {
			t.Fatal(err)
		}
	}
	if reads != 2 {
		t.Errorf("a person's file was read %d times in 2 scans", reads)
	}
}

func stampsKept(t *testing.T) bool {
	root := t.TempDir()
	put(t, root, "x", []byte("x"))
	fsys, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	d, err := fsys.OpenDir(".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	st, err := d.Stamp("x")
	return err == nil && st.Valid
}
