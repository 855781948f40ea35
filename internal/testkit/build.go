package testkit

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit/benchkit"
)

// Build builds the main package pkg, named from the module's root like
// ./cmd/skillsync, with go build and flags, env added to the environment, into
// a temporary directory of t's, and returns the executable's path. It is for a
// test that needs a build of its own; Binary shares one.
func Build(t testing.TB, pkg string, env []string, flags ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), path.Base(pkg))
	if err := benchkit.Build(Root(), out, pkg, env, slices.Concat(likeTheTests(env), flags)...); err != nil {
		t.Fatal(err)
	}
	return out
}

// likeTheTests are the flags that build a command as the running tests were
// built: with the race detector when they have it, unless env turns cgo off,
// which the detector needs. A build like the tests' reuses the packages go test
// compiled, and the detector then watches the command too.
func likeTheTests(env []string) []string {
	if raceDetector && !slices.Contains(env, "CGO_ENABLED=0") {
		return []string{"-race"}
	}
	return nil
}

// Binary is the skillsync command as Program builds it.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := Program("./cmd/skillsync")
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

var programs struct {
	sync.Mutex
	dir   string // made by the first build, removed by RemoveBinaries
	built map[string]func() (string, error)
}

// Program is the main package pkg, named from the module's root like
// ./test/e2e/mcpserver, built once in the test process (see likeTheTests), the
// first time it is asked for: every later call, from any test, has the same
// executable, named as pkg's last element (so two packages built this way must
// not share one), or the same error. It returns the error, rather than failing
// a test, for TestMain, which has none to fail; a test calls Binary. A package
// whose tests use it calls RemoveBinaries at the end of TestMain.
func Program(pkg string) (string, error) {
	programs.Lock()
	if programs.dir == "" {
		dir, err := os.MkdirTemp("", "skillsync-testkit-")
		if err != nil {
			programs.Unlock()
			return "", err
		}
		programs.dir, programs.built = dir, map[string]func() (string, error){}
	}
	build, ok := programs.built[pkg]
	if !ok {
		out := filepath.Join(programs.dir, path.Base(pkg))
		build = sync.OnceValues(func() (string, error) {
			return out, benchkit.Build(Root(), out, pkg, nil, likeTheTests(nil)...)
		})
		programs.built[pkg] = build
	}
	programs.Unlock()
	return build()
}

// RemoveBinaries removes what Program built; TestMain calls it once the tests
// have run.
func RemoveBinaries() {
	programs.Lock()
	defer programs.Unlock()
	if programs.dir != "" {
		os.RemoveAll(programs.dir)
	}
	programs.dir, programs.built = "", nil
}
