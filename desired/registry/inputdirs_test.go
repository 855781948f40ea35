package registry

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillsync/skillsync/internal/workspacefs"
)

func TestGlobDirsCoverWildcardDirectories(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"extra/a", "extra/b/deeper", "other"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, err := workspacefs.OS{}.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := globDirs(r, "extra/*/*.yaml")
	sort.Strings(got)
	if diff := cmp.Diff([]string{"extra", "extra/a", "extra/b"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Every level of the directory part, not only the last: a directory replaced in
	// the middle (extra/b) changes what the glob matches.
	got = globDirs(r, "extra/*/deeper/*.yaml")
	sort.Strings(got)
	if diff := cmp.Diff([]string{"extra", "extra/a", "extra/b", "extra/b/deeper"}, got); diff != "" {
		t.Errorf("a middle level: (-want +got):\n%s", diff)
	}
	// Names starting with "." are matched only by a segment that starts with one,
	// as the loader matches them: .git is not a registry directory of */*.yaml.
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := globDirs(r, "*/*.yaml"); slices.Contains(got, ".git") {
		t.Errorf("globDirs(*/*.yaml) = %v, holds .git", got)
	}
	if diff := cmp.Diff([]string{"registry"}, globDirs(r, "registry/*.yaml")); diff != "" {
		t.Errorf("a missing fixed directory: (-want +got):\n%s", diff)
	}
}
