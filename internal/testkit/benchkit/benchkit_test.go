package benchkit

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
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

// The benchmarks build skillsync as the release does: the environment and
// flags of BuildAsReleased are those of .goreleaser.yaml's build.
func TestBenchmarksBuildAsTheReleaseDoes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var config struct {
		Builds []struct {
			Main    string
			Env     []string
			Flags   []string
			Ldflags []string
		}
	}
	if err := yaml.Unmarshal(data, &config); err != nil {
		t.Fatal(err)
	}
	if len(config.Builds) != 1 || config.Builds[0].Main != "./cmd/skillsync" {
		t.Fatalf(".goreleaser.yaml builds %+v, want the one build of ./cmd/skillsync", config.Builds)
	}
	release := config.Builds[0]
	if !slices.Equal(releaseEnv, release.Env) {
		t.Errorf("benchmarks build with %q, the release with %q", releaseEnv, release.Env)
	}
	var ldflags string
	var flags []string
	for _, f := range releaseFlags {
		if v, ok := strings.CutPrefix(f, "-ldflags="); ok {
			ldflags = v
		} else {
			flags = append(flags, f)
		}
	}
	if !slices.Equal(flags, release.Flags) {
		t.Errorf("benchmarks build with flags %q, the release with %q", flags, release.Flags)
	}
	// The release adds its version, commit and date with -X, which change
	// nothing a run does.
	if len(release.Ldflags) != 1 || !strings.HasPrefix(release.Ldflags[0], ldflags+" -X ") {
		t.Errorf("benchmarks link with %q, the release with %q", ldflags, release.Ldflags)
	}
}
