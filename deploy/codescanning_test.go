//go:build linux

package deploy_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/skillsync/skillsync/internal/testkit"
)

// compositeAction is the part of action.yml the tests read.
type compositeAction struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	Run              string            `yaml:"run"`
	Shell            string            `yaml:"shell"`
	WorkingDirectory string            `yaml:"working-directory"`
	Env              map[string]string `yaml:"env"`
	With             map[string]string `yaml:"with"`
}

func readAction(t *testing.T) compositeAction {
	t.Helper()
	data, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a compositeAction
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs using %q, not composite", a.Runs.Using)
	}
	return a
}

// expression matches what the action's env, working-directory and with
// values may hold: an input or a step's output, and nothing else, so that
// no run script is built from text an expression gives.
var expression = regexp.MustCompile(`\$\{\{\s*(inputs|steps\.([a-z-]+)\.outputs)\.([a-z-]+)\s*\}\}`)

// runner plays the part of the GitHub runner for the run steps of action.yml:
// it gives each the runner's files and variables in temporary directories,
// and evaluates the expressions of its env and working-directory.
type runner struct {
	t               *testing.T
	workspace, temp string
	path            string // PATH, the built skillsync first
	inputs          map[string]string
	outputs         map[string]map[string]string // by step id
	addedPath       []string
	stdout, stderr  bytes.Buffer
	extraEnv        []string
}

func newRunner(t *testing.T, a compositeAction, binDir string, inputs map[string]string) *runner {
	r := &runner{t: t, workspace: t.TempDir(), temp: t.TempDir(), path: binDir + ":" + os.Getenv("PATH"),
		inputs: map[string]string{}, outputs: map[string]map[string]string{}}
	for name, in := range a.Inputs {
		r.inputs[name] = in.Default
	}
	for name, v := range inputs {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("action.yml has no input %s", name)
		}
		r.inputs[name] = v
	}
	return r
}

func (r *runner) eval(s string) string {
	r.t.Helper()
	if strings.Contains(expression.ReplaceAllString(s, ""), "${{") {
		r.t.Fatalf("%q holds an expression the test runner does not know", s)
	}
	return expression.ReplaceAllStringFunc(s, func(m string) string {
		sub := expression.FindStringSubmatch(m)
		if sub[1] == "inputs" {
			v, ok := r.inputs[sub[3]]
			if !ok {
				r.t.Fatalf("%s names no input of action.yml", m)
			}
			return v
		}
		return r.outputs[sub[2]][sub[3]]
	})
}

// run runs step's script as the runner's bash shell does, and returns its
// exit code.
func (r *runner) run(step actionStep) int {
	r.t.Helper()
	if step.Shell != "bash" {
		r.t.Fatalf("step %s runs in %q; the action's steps run in bash", step.ID, step.Shell)
	}
	if strings.Contains(step.Run, "${{") {
		r.t.Fatalf("step %s builds its script from an expression; pass it in env instead", step.ID)
	}
	script := filepath.Join(r.temp, step.ID+".sh")
	if err := os.WriteFile(script, []byte(step.Run), 0o644); err != nil {
		r.t.Fatal(err)
	}
	outputFile, pathFile := filepath.Join(r.temp, step.ID+".output"), filepath.Join(r.temp, step.ID+".path")
	for _, f := range []string{outputFile, pathFile} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = filepath.Join(r.workspace, r.eval(step.WorkingDirectory))
	cmd.Env = append(os.Environ(), "PATH="+r.path, "GITHUB_WORKSPACE="+r.workspace, "RUNNER_TEMP="+r.temp,
		"GITHUB_OUTPUT="+outputFile, "GITHUB_PATH="+pathFile, "GITHUB_ACTIONS=true", "RUNNER_OS=Linux", "RUNNER_ARCH=X64")
	cmd.Env = append(cmd.Env, r.extraEnv...)
	for k, v := range step.Env {
		cmd.Env = append(cmd.Env, k+"="+r.eval(v))
	}
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			r.t.Fatalf("step %s: %v", step.ID, err)
		}
		code = exit.ExitCode()
	}
	r.outputs[step.ID] = readKeyValues(r.t, outputFile)
	added, err := os.ReadFile(pathFile)
	if err != nil {
		r.t.Fatal(err)
	}
	r.addedPath = append(r.addedPath, strings.Fields(string(added))...)
	return code
}

// readKeyValues reads a GITHUB_OUTPUT file of name=value lines.
func readKeyValues(t *testing.T, file string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

// sarifResultCount checks the log at file against the SARIF 2.1.0 schema and
// returns how many results it has.
func sarifResultCount(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("no SARIF log: %v", err)
	}
	testkit.CheckSARIF(t, data)
	var log struct {
		Runs []struct {
			Results []struct {
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	for _, r := range log.Runs[0].Results {
		if uri := r.Locations[0].PhysicalLocation.ArtifactLocation.URI; !strings.HasPrefix(uri, "skills-ws/") {
			t.Errorf("result at %q, not under the workspace's folder skills-ws of the repository", uri)
		}
	}
	return len(log.Runs[0].Results)
}

// The action, its install step left out for the binary built here and its
// upload step for the runner's: on a workspace out of step, the SARIF step
// writes a valid log with the results, relative to the repository root, and
// succeeds, the upload's condition holds, and the last step fails with exit 1;
// in step, the log has no results and every step succeeds.
func TestTheActionWritesSARIFAndFailsOnDrift(t *testing.T) {
	a := readAction(t)
	bin := testkit.Binary(t)
	r := newRunner(t, a, filepath.Dir(bin), map[string]string{"working-directory": "skills-ws"})
	if err := os.Mkdir(filepath.Join(r.workspace, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	testkit.CopyExample(t, filepath.Join(r.workspace, "skills-ws"))

	var ran []string
	steps := func(want string) {
		t.Helper()
		ran = nil
		for _, step := range a.Runs.Steps {
			switch {
			case step.ID == "install":
				continue
			case step.Uses != "":
				if !regexp.MustCompile(`^github/codeql-action/upload-sarif@[0-9a-f]{40}$`).MatchString(step.Uses) {
					t.Errorf("the upload step uses %q, not upload-sarif pinned by a full commit id", step.Uses)
				}
				// Each log goes up under a category of its own, when it was written.
				output, name, category := "file", "upload", "skillsync"
				if strings.Contains(step.With["sarif_file"], "input-file") {
					output, name, category = "input-file", "upload-input", "skillsync-input"
				}
				if step.If != "inputs.upload == 'true' && steps.sarif.outputs."+output+" != ''" || r.inputs["upload"] != "true" {
					t.Errorf("the %s step runs if %q, upload %q", name, step.If, r.inputs["upload"])
				}
				if got := r.eval(step.With["category"]); got != category {
					t.Errorf("the %s step uploads under the category %q, want %q", name, got, category)
				}
				if r.outputs["sarif"][output] == "" {
					continue // not written: not uploaded
				}
				if got, want := r.eval(step.With["sarif_file"]), filepath.Join(r.workspace, "skillsync"+strings.TrimSuffix("-"+output, "-file")+".sarif"); got != want {
					t.Errorf("the %s step uploads %q, want %q", name, got, want)
				}
				ran = append(ran, name)
				continue
			}
			code := r.run(step)
			ran = append(ran, fmt.Sprintf("%s:%d", step.ID, code))
		}
		if strings.Join(ran, " ") != want {
			t.Fatalf("steps ran %v, want %s\nstdout:\n%s\nstderr:\n%s", ran, want, &r.stdout, &r.stderr)
		}
	}

	steps("sarif:0 upload-input upload check:1")
	if n := sarifResultCount(t, filepath.Join(r.workspace, "skillsync.sarif")); n == 0 {
		t.Error("out of step, yet the log has no results")
	}
	if r.outputs["sarif"]["exit-code"] != "1" {
		t.Errorf("the exit-code output is %q, want 1", r.outputs["sarif"]["exit-code"])
	}
	if !strings.Contains(r.stdout.String(), "::error file=registry/intents.yaml,line=16") {
		t.Errorf("the check step wrote no annotation at the registry line:\n%s", &r.stdout)
	}

	reconcile := exec.Command(bin, "reconcile", "--once")
	reconcile.Dir = filepath.Join(r.workspace, "skills-ws")
	if out, err := reconcile.CombinedOutput(); err != nil {
		t.Fatalf("reconcile --once: %v\n%s", err, out)
	}
	steps("sarif:0 upload-input upload check:0")
	if n := sarifResultCount(t, filepath.Join(r.workspace, "skillsync.sarif")); n != 0 {
		t.Errorf("in step, yet the log has %d results", n)
	}

	// Invalid input: the input's log holds the problem; no drift log is
	// written or uploaded, so the drift alerts are not read as fixed.
	registryFile := filepath.Join(r.workspace, "skills-ws", "registry", "journal.yaml")
	data, err := os.ReadFile(registryFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(registryFile, append(data, "  nonsense: [\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	r.outputs["sarif"] = nil
	steps("sarif:0 upload-input check:2")
	if _, err := os.Stat(filepath.Join(r.workspace, "skillsync.sarif")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("invalid input, yet a drift log: %v", err)
	}
	if n := sarifResultCount(t, filepath.Join(r.workspace, "skillsync-input.sarif")); n != 1 {
		t.Errorf("invalid input, yet the input's log has %d results", n)
	}
}

// The install step takes the archive only when checksums.txt gives its
// SHA-256, and puts skillsync on the runner's PATH. A stand-in curl serves a
// release made here from a directory: nothing leaves the machine.
func TestTheActionInstallsAVerifiedRelease(t *testing.T) {
	a := readAction(t)
	var install actionStep
	for _, s := range a.Runs.Steps {
		if s.ID == "install" {
			install = s
		}
	}
	if install.Run == "" {
		t.Fatal("action.yml has no install step")
	}
	version := a.Inputs["version"].Default
	release, archive := makeRelease(t, version, "linux", "amd64")
	shell := standIn(t, "curl", version)
	for _, tc := range checksumCases(archive) {
		t.Run(tc.name, func(t *testing.T) {
			writeChecksums(t, release, archive, tc.checksums)
			r := newRunner(t, a, shell, nil)
			r.extraEnv = []string{"RELEASE=" + release}
			code := r.run(install)
			if code != tc.want {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.want, &r.stdout, &r.stderr)
			}
			if tc.want != 0 {
				if len(r.addedPath) > 0 {
					t.Errorf("a refused archive was put on PATH: %v", r.addedPath)
				}
				return
			}
			if len(r.addedPath) != 1 {
				t.Fatalf("PATH gained %v, want one directory", r.addedPath)
			}
			out, err := exec.Command(filepath.Join(r.addedPath[0], "skillsync")).Output()
			if err != nil || strings.TrimSpace(string(out)) != "skillsync v"+version {
				t.Errorf("the installed skillsync says %q (%v)", out, err)
			}
		})
	}
}

// makeRelease makes, in a directory it returns, the archive of a release as
// .goreleaser.yaml names it for goos and arch, holding a skillsync that prints
// its version; the archive's name is returned too.
func makeRelease(t *testing.T, version, goos, arch string) (dir, archive string) {
	t.Helper()
	archive = "skillsync_" + version + "_" + goos + "_" + arch + ".tar.gz"
	dir, bin := t.TempDir(), t.TempDir()
	testkit.WriteFiles(t, bin, map[string]string{"skillsync": "#!/bin/sh\necho skillsync v" + version + "\n"})
	if err := os.Chmod(filepath.Join(bin, "skillsync"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("tar", "-czf", filepath.Join(dir, archive), "-C", bin, "skillsync").CombinedOutput(); err != nil {
		t.Fatalf("tar: %v\n%s", err, out)
	}
	return dir, archive
}

type checksumCase struct {
	name, checksums string // checksums.txt; the archive's true sum when empty
	want            int
}

// checksumCases are a checksums.txt that vouches for archive, one that gives
// another sum, and one that names only another file.
func checksumCases(archive string) []checksumCase {
	return []checksumCase{
		{"verified", "", 0},
		{"tampered", strings.Repeat("0", 64) + "  " + archive + "\n", 1},
		{"not listed", strings.Repeat("0", 64) + "  " + archive + ".sbom.json\n", 1},
	}
}

// writeChecksums writes the release's checksums.txt: checksums, or the
// archive's true SHA-256 when it is empty.
func writeChecksums(t *testing.T, release, archive, checksums string) {
	t.Helper()
	if checksums == "" {
		sum := exec.Command("sha256sum", archive)
		sum.Dir = release
		out, err := sum.Output()
		if err != nil {
			t.Fatal(err)
		}
		checksums = string(out)
	}
	testkit.WriteFiles(t, release, map[string]string{"checksums.txt": checksums})
}

// standIn is a directory holding a stand-in for the downloader tool (curl
// or wget): given -o FILE or -O FILE and a URL of the release version's
// downloads, it copies the file the URL ends in from the directory $RELEASE;
// any other URL fails.
func standIn(t *testing.T, tool, version string) string {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteFiles(t, dir, map[string]string{tool: `#!/bin/sh
for last; do :; done
case "$last" in
  https://github.com/skillsync/skillsync/releases/download/v` + version + `/*) ;;
  *) echo "` + tool + `: unexpected URL $last" >&2; exit 22 ;;
esac
while [ "$1" != -o ] && [ "$1" != -O ]; do shift; done
cp "$RELEASE/${last##*/}" "$2"
`})
	if err := os.Chmod(filepath.Join(dir, tool), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A sarif-file of more than one line is refused: its name goes into
// GITHUB_OUTPUT, where a second line would set an output of its own.
func TestTheActionRefusesASarifFileOfTwoLines(t *testing.T) {
	a := readAction(t)
	r := newRunner(t, a, filepath.Dir(testkit.Binary(t)), map[string]string{"sarif-file": "skillsync.sarif\nfile=/etc/passwd"})
	testkit.CopyExample(t, r.workspace)
	for _, step := range a.Runs.Steps {
		if step.ID != "sarif" {
			continue
		}
		if code := r.run(step); code != 1 || r.outputs["sarif"]["file"] != "" {
			t.Errorf("exit %d, outputs %v; want exit 1 and no file", code, r.outputs["sarif"])
		}
	}
}
