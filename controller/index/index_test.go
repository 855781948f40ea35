package index

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Each stamp is given the margin of its own clock: two seconds where its times are
// whole seconds, a fraction of a second where they are finer, whatever the other
// stamps are. A whole-second stamp in the second a pass began is racily clean,
// beside a nanosecond one that is not.
func TestRacyMarginIsEachStamps(t *testing.T) {
	second := int64(time.Second)
	whole := workspacefs.Stamp{Valid: true, Mtime: 1_700_000_000 * second, Ctime: 1_700_000_002 * second}
	if got := racyMargin(whole); got != 2*time.Second {
		t.Errorf("whole seconds: margin %v, want 2s", got)
	}
	fine := workspacefs.Stamp{Valid: true, Mtime: 1_700_000_000*second + 123, Ctime: 1_700_000_000 * second}
	if got := racyMargin(fine); got >= time.Second || got < 10*time.Millisecond {
		t.Errorf("nanoseconds: margin %v, want a fraction of a second above a clock tick", got)
	}
	began := time.Unix(1_700_000_002, 300_000_000)
	if !racilyClean(whole, began) {
		t.Error("a whole-second stamp of the second the pass began in is taken as clean")
	}
	if racilyClean(fine, began) {
		t.Error("a nanosecond stamp two seconds older than the pass is taken as racily clean")
	}
}

// A first no-op stamps thousands of paths, in runs stamped at once: a file
// rewritten or an entry added anywhere, in the first run, the last or between
// two, still makes the index answer nothing.
func TestEveryRunOfStampsIsChecked(t *testing.T) {
	root := t.TempDir()
	var paths []string
	for i := range 30 {
		dir := fmt.Sprintf("d%02d", i)
		paths = append(paths, dir)
		if err := os.Mkdir(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		for j := range 40 {
			name := fmt.Sprintf("%s/f%02d", dir, j)
			if err := os.WriteFile(filepath.Join(root, name), []byte("before"), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, name)
		}
	}
	slices.Sort(paths)
	if len(paths) < 4*runLength {
		t.Fatalf("%d paths make fewer than four runs of %d", len(paths), runLength)
	}
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	runs := max(1, min(2*runtime.GOMAXPROCS(0), len(paths)/runLength))
	probes := []int{0, len(paths) - 1}
	for k := 1; k < runs; k++ {
		start := k * len(paths) / runs
		probes = append(probes, start-1, start)
	}
	for _, i := range probes {
		data, ok := Make(r, "key", Found{}, paths, nil, nil, time.Now().Add(time.Hour))
		if !ok {
			t.Fatal("no index of a tree nobody changes")
		}
		if _, _, ok := Check(r, data, "key"); !ok {
			t.Fatal("the index does not answer the tree it stamped")
		}
		p := filepath.Join(root, paths[i])
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			p = filepath.Join(p, "new")
		}
		if err := os.WriteFile(p, []byte("after!"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, ok := Check(r, data, "key"); ok {
			t.Errorf("path %d of %d (%s) changed and the index still answers", i, len(paths), paths[i])
		}
	}
}
