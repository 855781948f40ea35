package benchkit

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A bench program that stops on an error removes the workspaces it made: run
// as a child, this test's binary makes a scratch directory with a file in it
// and stops through Check, and the directory must be gone.
func TestAStoppedProgramRemovesItsScratchDirectory(t *testing.T) {
	if report := os.Getenv("BENCHKIT_CHILD_REPORT"); report != "" {
		dir := ScratchDir("benchkit-test-")
		if err := os.WriteFile(filepath.Join(dir, "workspace"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(report, []byte(dir), 0o644); err != nil {
			t.Fatal(err)
		}
		Check(errors.New("the benchmark failed"))
		t.Fatal("Check returned after an error")
	}
	report := filepath.Join(t.TempDir(), "scratch")
	cmd := exec.Command(os.Args[0], "-test.run=^TestAStoppedProgramRemovesItsScratchDirectory$")
	cmd.Env = append(os.Environ(), "BENCHKIT_CHILD_REPORT="+report)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(out), "the benchmark failed") {
		t.Fatalf("the child did not stop with the error: %v\n%s", err, out)
	}
	dir, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("the child made no scratch directory: %v\n%s", err, out)
	}
	if _, err := os.Stat(string(dir)); !errors.Is(err, os.ErrNotExist) {
		os.RemoveAll(string(dir))
		t.Errorf("the scratch directory %s is still there after the program stopped (%v)", dir, err)
	}
}
