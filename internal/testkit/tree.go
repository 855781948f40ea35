package testkit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skillsync/skillsync/internal/banner"
)

// Tree is every path under root with its type and content, for "nothing
// changed".
func Tree(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(p)
		out[p] = d.Type().String() + string(data)
		return nil
	})
	return out
}

// AssertNoTempFiles fails t for every temp file of an interrupted write left
// under root.
func AssertNoTempFiles(t testing.TB, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && banner.IsTempName(d.Name()) {
			t.Errorf("temp file left behind: %s", p)
		}
		return nil
	})
}
