package workspacegen

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// Backdate ages the inputs and leaves every file skillsync writes as it was.
func TestBackdateAgesInputsOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	if err := Write(dir, 1, nil, nil); err != nil {
		t.Fatal(err)
	}
	if out := controller.Reconcile(controller.Request{System: workspacefs.OS{}, Root: dir}); out.Err != nil || len(out.Problems) > 0 {
		t.Fatal(out.Err, out.Problems)
	}
	if err := Backdate(dir); err != nil {
		t.Fatal(err)
	}
	written := map[string]bool{".claude": true, ".qwen": true, ".agents": true, ".skillsync": true}
	recent := time.Now().Add(-30 * time.Minute)
	seen := map[bool]int{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		isWritten := written[strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]]
		seen[isWritten]++
		if aged := info.ModTime().Before(recent); aged == isWritten {
			t.Errorf("%s: aged %v, written by skillsync %v", rel, aged, isWritten)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen[true] == 0 || seen[false] == 0 {
		t.Fatalf("walked %d written and %d input paths; want both", seen[true], seen[false])
	}
}
