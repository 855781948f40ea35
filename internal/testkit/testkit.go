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
	if err := os.CopyFS(dir, os.DirFS(Fixture("example"))); err != nil {
		t.Fatal(err)
	}
	return dir
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
