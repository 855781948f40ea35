package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/sarif"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/gitremote"
)

// sarifResult is one result of a SARIF log, as code scanning reads it.
type sarifResult struct {
	rule, level, message, uri string
	line, column              int
}

// sarifResults checks data against the SARIF 2.1.0 schema and returns its
// results; each names a rule the driver declares, at %SRCROOT%.
func sarifResults(t *testing.T, data string) []sarifResult {
	t.Helper()
	testkit.CheckSARIF(t, []byte(data))
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Name  string
					Rules []struct{ ID, HelpURI string }
				}
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI, URIBaseID string }
						Region           struct{ StartLine, StartColumn int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(data), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 || log.Runs[0].Tool.Driver.Name != "skillsync" {
		t.Fatalf("want one run of skillsync:\n%s", data)
	}
	rules := log.Runs[0].Tool.Driver.Rules
	var out []sarifResult
	for _, r := range log.Runs[0].Results {
		if r.RuleIndex >= len(rules) || rules[r.RuleIndex].ID != r.RuleID || rules[r.RuleIndex].HelpURI == "" {
			t.Errorf("result of %s names rule index %d, which is not it or has no help", r.RuleID, r.RuleIndex)
		}
		loc := r.Locations[0].PhysicalLocation
		if loc.ArtifactLocation.URIBaseID != "%SRCROOT%" {
			t.Errorf("result of %s is relative to %q", r.RuleID, loc.ArtifactLocation.URIBaseID)
		}
		out = append(out, sarifResult{r.RuleID, r.Level, r.Message.Text, loc.ArtifactLocation.URI, loc.Region.StartLine, loc.Region.StartColumn})
	}
	return out
}

// inRepository makes a git work tree whose folder sub holds a copy of the
// example workspace, and returns the workspace.
func inRepository(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(repo, "sub")
	testkit.CopyExample(t, ws)
	return ws
}

// reconcile --check -o sarif reports each file to write at the registry line
// declaring its skill, relative to the repository root, exits 1, and gives the
// same bytes again; in sync it reports nothing and exits 0; a generated file
// edited by hand is a conflict at the file, exit 3.
func TestSarifReconcileCheckLocatesDriftAndConflicts(t *testing.T) {
	ws := inRepository(t)
	run := runIn(t, ws)
	code, first, stderr := runCLI(t, ws, "reconcile", "--check", "-o", "sarif")
	if code != exitChanges {
		t.Fatalf("exit %d, want %d\n%s", code, exitChanges, stderr)
	}
	results := sarifResults(t, first)
	want := sarifResult{rule: "skillsync/drift", level: "error", uri: "sub/registry/intents.yaml", line: 16, column: 18,
		message: "create .claude/skills/intent/SKILL.md (run skillsync reconcile --once and commit the result)"}
	found := false
	for _, r := range results {
		found = found || r == want
		if r.rule != "skillsync/drift" || !strings.HasPrefix(r.uri, "sub/") {
			t.Errorf("result %+v: want drift under sub/", r)
		}
	}
	if !found {
		t.Errorf("no result %+v among\n%+v", want, results)
	}
	if _, again, _ := runCLI(t, ws, "reconcile", "--check", "-o", "sarif"); again != first {
		t.Error("a second run gave other bytes")
	}

	run(exitOK, "reconcile", "--once")
	if _, out, _ := runCLI(t, ws, "reconcile", "--check", "-o", "sarif"); len(sarifResults(t, out)) != 0 {
		t.Errorf("in sync, yet results:\n%s", out)
	}

	skill := filepath.Join(ws, ".claude/skills/intent/SKILL.md")
	data, err := os.ReadFile(skill)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(skill, append(data, "Edited by hand.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, ws, "reconcile", "--check", "-o", "sarif")
	results = sarifResults(t, out)
	if code != exitConflicts || len(results) != 1 || results[0].rule != "skillsync/conflict" ||
		results[0].uri != "sub/.claude/skills/intent/SKILL.md" || results[0].line != 1 {
		t.Errorf("exit %d, results %+v; want exit %d and one conflict at the edited file\n%s", code, results, exitConflicts, stderr)
	}
}

// validate -o sarif reports each problem of invalid input at its file and
// line, exit 2, and lists it on stderr too.
func TestSarifValidateLocatesProblems(t *testing.T) {
	ws := testkit.ExampleWorkspace(t)
	testkit.WriteFile(t, ws, testFile, []byte(capabilityDoc("effect: write", "effect: explode")))
	code, out, stderr := runCLI(t, ws, "validate", "-o", "sarif")
	results := sarifResults(t, out)
	if code != exitInvalid || len(results) != 1 || !strings.Contains(stderr, testFile+":6") {
		t.Fatalf("exit %d, results %+v, stderr:\n%s", code, results, stderr)
	}
	if r := results[0]; r.rule != "skillsync/invalid-input" || r.level != "error" || r.uri != testFile || r.line != 6 || !strings.Contains(r.message, "explode") {
		t.Errorf("result %+v: want invalid-input at %s:6 naming the value", r, testFile)
	}
}

// The trust scan's findings are results of skillsync/scan/KIND: in the
// workspace's own skill a warning at the file's line (validate exits 0); in
// what a source brings an error at the source's line in skillsync.yaml, the
// message naming the source's file (validate exits 2).
func TestSarifReportsScanFindingsByKind(t *testing.T) {
	u := gitremote.New(t)
	u.Commit(t, "main", map[string]string{"skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy the service.\n---\nRun the checks first." + inTags("x") + "\n"})
	for _, kv := range u.Env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())

	ws := t.TempDir()
	config := "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  skillDirs: [skills/*]\n  targets: [claude-code]\n  sources:\n    - name: team\n      git: " + u.URL + "\n      path: skills\n"
	testkit.WriteFiles(t, ws, map[string]string{
		"skillsync.yaml":         config + "      allow: [{finding: tag}]\n",
		"skills/notes/SKILL.md":  "---\nname: notes\ndescription: Take notes.\n---\nWrite\u200b them down.\n",
		"skills/notes/extra.txt": "plain\n",
	})
	runIn(t, ws)(exitOK, "update", "--yes")

	code, out, stderr := runCLI(t, ws, "validate", "-o", "sarif")
	results := sarifResults(t, out)
	want := sarifResult{rule: "skillsync/scan/zero-width", level: "warning", uri: "skills/notes/SKILL.md", line: 5, column: 6}
	if code != exitOK || len(results) != 1 || results[0].message == "" {
		t.Fatalf("exit %d, results %+v\n%s", code, results, stderr)
	}
	if results[0].message = ""; results[0] != want {
		t.Errorf("result %+v, want %+v", results[0], want)
	}

	testkit.WriteFile(t, ws, "skillsync.yaml", []byte(config))
	code, out, stderr = runCLI(t, ws, "validate", "-o", "sarif")
	results = sarifResults(t, out)
	if code != exitInvalid || len(results) != 1 {
		t.Fatalf("exit %d, results %+v\n%s", code, results, stderr)
	}
	r := results[0]
	if r.rule != "skillsync/scan/tag" || r.level != "error" || r.uri != "skillsync.yaml" || r.line != 8 ||
		!strings.HasPrefix(r.message, "team:skills/deploy/SKILL.md:5:22: ") {
		t.Errorf("result %+v: want scan/tag at skillsync.yaml:8, naming the source's file", r)
	}
}

// A problem whose file is not in the workspace is placed at skillsync.yaml,
// its message naming the file: the log is still written.
func TestSarifPlacesAProblemOutsideTheWorkspaceAtTheConfig(t *testing.T) {
	ps := registry.Problems{
		{Pos: registry.Position{File: "/etc/skills/x.yaml", Line: 3}, Message: "cannot read it"},
		{Pos: registry.Position{File: "../elsewhere/y.yaml", Line: 4, Column: 2}, Message: "not valid", Hint: "fix it"},
	}
	got := problemResults(ps, sarif.Error, ruleInvalidInput)
	want := []sarif.Result{
		{RuleID: ruleInvalidInput, Level: sarif.Error, Message: "/etc/skills/x.yaml:3: cannot read it", File: registry.ConfigName},
		{RuleID: ruleInvalidInput, Level: sarif.Error, Message: "../elsewhere/y.yaml:4:2: not valid (fix it)", File: registry.ConfigName},
	}
	if !slices.Equal(got, want) {
		t.Errorf("results %+v, want %+v", got, want)
	}
}

// A log names no path of the machine that wrote it: the same problem in two
// checkouts of a workspace at other paths gives the same bytes, so code
// scanning keeps one alert whichever runner ran the check.
func TestSarifNamesNoPathOfTheMachine(t *testing.T) {
	var logs []string
	for range 2 {
		ws := inRepository(t)
		testkit.WriteFile(t, ws, "registry/skills.yaml", []byte(strings.Replace(
			string(readFixture(t, ws, "registry/skills.yaml")), "bodyFile: ../skills/qwencode-viz.md", "bodyFile: ../../../etc/passwd", 1)))
		code, out, stderr := runCLI(t, ws, "validate", "-o", "sarif")
		if code != exitInvalid || len(sarifResults(t, out)) != 1 {
			t.Fatalf("exit %d, log:\n%s\nstderr:\n%s", code, out, stderr)
		}
		if strings.Contains(out, filepath.Dir(ws)) {
			t.Errorf("the log names the checkout's path %s:\n%s", filepath.Dir(ws), out)
		}
		logs = append(logs, out)
	}
	if logs[0] != logs[1] {
		t.Errorf("two checkouts give other logs:\n%s\n%s", logs[0], logs[1])
	}
}

// With invalid input, reconcile -o sarif writes no log: one without the drift
// would tell code scanning that every drift alert is fixed. It exits 2 and says
// why on stderr; validate -o sarif reports the problem.
func TestSarifReconcileWritesNoLogForInvalidInput(t *testing.T) {
	ws := inRepository(t)
	testkit.WriteFile(t, ws, testFile, []byte(capabilityDoc("effect: write", "effect: explode")))
	code, out, stderr := runCLI(t, ws, "reconcile", "--check", "-o", "sarif")
	if code != exitInvalid || out != "" || !strings.Contains(stderr, testFile+":6") {
		t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out, stderr)
	}
}

func readFixture(t *testing.T, ws, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
