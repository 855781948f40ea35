package testkit

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Root is the module's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// Fixture is the path of rel under the module's fixtures/.
func Fixture(rel string) string {
	return filepath.Join(Root(), "fixtures", filepath.FromSlash(rel))
}

// ExampleWorkspace is a fresh copy of fixtures/example in a temporary directory.
func ExampleWorkspace(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	CopyExample(t, dir)
	return dir
}

// CopyExample copies fixtures/example into dir, which is made if it does not
// exist and must hold none of the example's files if it does.
func CopyExample(t testing.TB, dir string) {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS(Fixture("example"))); err != nil {
		t.Fatal(err)
	}
}

// WriteFile writes data at rel under root, making the directories above it, and
// returns its path.
func WriteFile(t testing.TB, root, rel string, data []byte) string {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// WriteFiles writes each of files, a path under root to its content, as
// WriteFile does.
func WriteFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		WriteFile(t, root, rel, []byte(content))
	}
}
