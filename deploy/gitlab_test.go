//go:build linux

package deploy_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/skillsync/skillsync/internal/testkit"
)

// gitlabJob is the part of the template's job the test reads.
type gitlabJob struct {
	Image        string            `yaml:"image"`
	Variables    map[string]string `yaml:"variables"`
	BeforeScript []string          `yaml:"before_script"`
	Script       []string          `yaml:"script"`
	Artifacts    struct {
		When  string   `yaml:"when"`
		Paths []string `yaml:"paths"`
	} `yaml:"artifacts"`
}

func readGitLabJob(t *testing.T) gitlabJob {
	t.Helper()
	data, err := os.ReadFile("gitlab/skillsync.gitlab-ci.yml")
	if err != nil {
		t.Fatal(err)
	}
	var jobs map[string]gitlabJob
	if err := yaml.Unmarshal(data, &jobs); err != nil {
		t.Fatal(err)
	}
	job, ok := jobs["skillsync"]
	if !ok || len(job.Script) == 0 || len(job.BeforeScript) == 0 {
		t.Fatalf("the template has no job skillsync with a before_script and a script: %v", jobs)
	}
	return job
}

// The template's before_script takes the archive of the machine's
// architecture only when checksums.txt gives its SHA-256, and puts skillsync
// on PATH for the script. A stand-in wget serves a release made here from a
// directory: nothing leaves the machine.
func TestTheGitLabTemplateInstallsAVerifiedRelease(t *testing.T) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("the template installs on amd64 and arm64, not %s", runtime.GOARCH)
	}
	job := readGitLabJob(t)
	version := job.Variables["SKILLSYNC_VERSION"]
	release, archive := makeRelease(t, version, "linux", runtime.GOARCH)
	shell := standIn(t, "wget", version)
	for _, tc := range checksumCases(archive) {
		t.Run(tc.name, func(t *testing.T) {
			writeChecksums(t, release, archive, tc.checksums)
			lines := append(append([]string{}, job.BeforeScript...), "skillsync version")
			cmd := exec.Command("sh", "-e", "-c", strings.Join(lines, "\n"))
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "PATH="+shell+":"+os.Getenv("PATH"), "RELEASE="+release, "TMPDIR="+t.TempDir())
			for k, v := range job.Variables {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			out, err := cmd.CombinedOutput()
			code := 0
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = exit.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.want {
				t.Fatalf("exit %d, want %d\n%s", code, tc.want, out)
			}
			if code == 0 && !strings.HasSuffix(string(out), "skillsync v"+version+"\n") {
				t.Errorf("the installed skillsync was not the release's:\n%s", out)
			}
		})
	}
}

// The GitLab template's script, its before_script (the install) left out for
// the binary built here, run as the runner's shell runs it (each line under
// set -e) in a clone's directory: out of step it keeps a valid skillsync.sarif
// and fails with exit 1; in step it keeps a log without results and passes;
// with invalid input it keeps the input's log alone and fails with exit 2.
func TestTheGitLabTemplateKeepsSARIFAndFailsOnDrift(t *testing.T) {
	job := readGitLabJob(t)
	if job.Artifacts.When != "always" || !slices.Equal(job.Artifacts.Paths, []string{"skillsync.sarif", "skillsync-input.sarif"}) {
		t.Errorf("the job keeps %v when %q; want both logs always, so a failed check keeps them too", job.Artifacts.Paths, job.Artifacts.When)
	}
	bin := testkit.Binary(t)
	project := t.TempDir()
	if err := os.Mkdir(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	testkit.CopyExample(t, filepath.Join(project, "skills-ws"))

	script := func() int {
		t.Helper()
		cmd := exec.Command("sh", "-e", "-c", strings.Join(job.Script, "\n"))
		cmd.Dir = project
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"), "CI=true", "CI_PROJECT_DIR="+project)
		for k, v := range job.Variables {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Env = append(cmd.Env, "SKILLSYNC_WORKSPACE=skills-ws")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &exit):
			t.Logf("script output:\n%s", out)
			return exit.ExitCode()
		}
		t.Fatal(err)
		return -1
	}
	if code := script(); code != 1 {
		t.Fatalf("out of step: exit %d, want 1", code)
	}
	if n := sarifResultCount(t, filepath.Join(project, "skillsync.sarif")); n == 0 {
		t.Error("out of step, yet the log has no results")
	}
	reconcile := exec.Command(bin, "reconcile", "--once", "--workspace", filepath.Join(project, "skills-ws"))
	if out, err := reconcile.CombinedOutput(); err != nil {
		t.Fatalf("reconcile --once: %v\n%s", err, out)
	}
	if code := script(); code != 0 {
		t.Fatalf("in step: exit %d, want 0", code)
	}
	if n := sarifResultCount(t, filepath.Join(project, "skillsync.sarif")); n != 0 {
		t.Errorf("in step, yet the log has %d results", n)
	}

	// Invalid input: the input's log holds the problem, and no drift log is kept.
	registryFile := filepath.Join(project, "skills-ws", "registry", "journal.yaml")
	data, err := os.ReadFile(registryFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(registryFile, append(data, "  nonsense: [\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := script(); code != 2 {
		t.Fatalf("invalid input: exit %d, want 2", code)
	}
	if _, err := os.Stat(filepath.Join(project, "skillsync.sarif")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("invalid input, yet a drift log: %v", err)
	}
	if n := sarifResultCount(t, filepath.Join(project, "skillsync-input.sarif")); n != 1 {
		t.Errorf("invalid input, yet the input's log has %d results", n)
	}
}

// A version that is not a release's (a path, say) is refused before anything
// is downloaded.
func TestTheGitLabTemplateRefusesAVersionThatIsNoRelease(t *testing.T) {
	job := readGitLabJob(t)
	for _, version := range []string{"0.1.0/../../other", "", "v", "latest", "0.1.0 x"} {
		cmd := exec.Command("sh", "-e", "-c", strings.Join(job.BeforeScript, "\n"))
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "SKILLSYNC_VERSION="+version, "TMPDIR="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "is not a release version") {
			t.Errorf("version %q: %v\n%s", version, err, out)
		}
	}
}
