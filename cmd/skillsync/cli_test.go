package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/apply"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/spf13/cobra"
)

// TestJSONLogs checks that --log-format json gives one JSON object per line with
// constant messages and lowerCamelCase keys.
func TestJSONLogs(t *testing.T) {
	ws := testkit.ExampleWorkspace(t)
	code, _, stderr := runCLI(t, ws, "--log-format", "json", "-v", "1", "reconcile", "--once")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) < 16 {
		t.Fatalf("want a line per created file and a summary, got %d lines:\n%s", len(lines), stderr)
	}
	lowerCamel := regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)
	messages := map[string]bool{}
	for _, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("not a JSON line: %q (%v)", l, err)
		}
		for k := range rec {
			if !lowerCamel.MatchString(k) {
				t.Errorf("key %q is not lowerCamelCase in %s", k, l)
			}
		}
		messages[rec["msg"].(string)] = true
	}
	if !messages["change applied"] || !messages["reconcile finished"] || len(messages) != 2 {
		t.Errorf("messages = %v, want the two constant ones", messages)
	}
	if code, _, stderr := runCLI(t, ws, "--log-format", "xml", "version"); code != exitInvalid || !strings.Contains(stderr, "--log-format") {
		t.Errorf("bad --log-format: exit %d, %s", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runCLI(t, t.TempDir(), "version")
	if code != exitOK || !strings.HasPrefix(stdout, "skillsync ") || !strings.Contains(stdout, registry.APIVersion) {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}

func TestOutcomeCodePrecedence(t *testing.T) {
	conflict := plan.Plan{Changes: []plan.Change{{Action: plan.Conflict}, {Action: plan.Create}}}
	create := plan.Plan{Changes: []plan.Change{{Action: plan.Create}}}
	cases := []struct {
		name  string
		out   controller.Outcome
		check bool
		want  int
	}{
		{"in sync", controller.Outcome{}, true, exitOK},
		{"changes under --check", controller.Outcome{Plan: create}, true, exitChanges},
		{"changes applied", controller.Outcome{Plan: create}, false, exitOK},
		{"conflicts beat changes", controller.Outcome{Plan: conflict}, true, exitConflicts},
		{"refused plan", controller.Outcome{Plan: plan.Plan{Refused: "empty"}}, false, exitConflicts},
		{"failure beats conflicts", controller.Outcome{Plan: conflict, Err: errors.New("disk")}, false, exitFailure},
		{"invalid input beats all", controller.Outcome{Plan: conflict, Err: errors.New("disk"), Problems: registry.Problems{{}}}, true, exitInvalid},
	}
	for _, c := range cases {
		if got := outcomeCode(c.out, c.check); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}

func TestSummaryCountsWhatHappened(t *testing.T) {
	ok := plan.Change{Path: "a", Action: plan.Update}
	bad := plan.Change{Path: "b", Action: plan.Update}
	out := controller.Outcome{
		Plan:    plan.Plan{Changes: []plan.Change{ok, bad, {Path: "c", Action: plan.None}}},
		Applied: []apply.Applied{{Change: &ok}, {Change: &bad, Err: errors.New("read-only file system")}},
	}
	if got := summaryLine(out, false); !strings.HasPrefix(got, "done: updated 1, failed 1; 1 in sync") {
		t.Errorf("summary = %q", got)
	}
}

// A run that stopped before applying (the lock was held) says nothing was done.
func TestOutputOfARunThatAppliedNothingClaimsNothing(t *testing.T) {
	update := plan.Change{Path: ".claude/skills/intent/SKILL.md", Action: plan.Update, Owner: "capability/intents.propose"}
	out := controller.Outcome{
		Plan:    plan.Plan{Changes: []plan.Change{update}, InSync: []string{"x"}},
		Planned: true,
		Err:     &state.HeldError{PID: 42},
	}
	var buf bytes.Buffer
	printPlan(&buf, out, false, false)
	got := buf.String()
	if regexp.MustCompile(`(?m)^(updated|done:)`).MatchString(got) {
		t.Errorf("output claims work although nothing was applied:\n%s", got)
	}
	if !strings.Contains(got, "update  .claude/skills/intent/SKILL.md  capability/intents.propose  not done") ||
		!strings.Contains(got, "nothing changed: not done: update 1; 1 in sync") {
		t.Errorf("output does not say the update was not done:\n%s", got)
	}
	report := reconcileReport(out, false, exitFailure, false)
	if len(report.Changes) != 1 || report.Changes[0].Done {
		t.Errorf("-o json reports %+v as done", report.Changes)
	}
}

// Housekeeping that the permissions left undone is reported as kept, run after
// run, never as done.
func TestKeptHousekeepingIsNotReportedAsDone(t *testing.T) {
	cleanup := plan.Change{Path: ".claude/skills/gone", Action: plan.Cleanup, Reason: "empty skill directory"}
	out := controller.Outcome{
		Plan:    plan.Plan{Changes: []plan.Change{cleanup}},
		Planned: true,
		Applied: []apply.Applied{{Change: &cleanup, Kept: "the empty directory is left in place (operation not permitted)", Undone: true}},
	}
	var buf bytes.Buffer
	printPlan(&buf, out, false, false)
	got := buf.String()
	if regexp.MustCompile(`(?m)^(cleaned|done:)`).MatchString(got) || !strings.Contains(got, "kept  .claude/skills/gone") ||
		!strings.Contains(got, "nothing changed: kept 1") {
		t.Errorf("output:\n%s", got)
	}
	if r := reconcileReport(out, false, exitOK, false); r.Changes[0].Done {
		t.Errorf("-o json reports the kept cleanup as done")
	}
}

func TestProfileFileMustNotBeASymlink(t *testing.T) {
	ws := testkit.ExampleWorkspace(t)
	outside := testkit.WriteFile(t, t.TempDir(), "profile", []byte("web-shell\n"))
	testkit.WriteFile(t, ws, ".skillsync/.gitignore", []byte("*\n"))
	if err := os.Symlink(outside, ws+"/.skillsync/profile"); err != nil {
		t.Fatal(err)
	}
	before := treeOf(t, ws)
	code, _, stderr := runCLI(t, ws, "reconcile", "--once")
	if code != exitInvalid || !strings.Contains(stderr, ".skillsync/profile: is not a regular file") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	if d := diffSnapshots(before, treeOf(t, ws)); d != "" {
		t.Errorf("workspace changed:\n%s", d)
	}
}

// TestStateDirSymlinkOutside points .skillsync at a directory outside the workspace:
// nothing there may be read (its "profile" holds a secret) or written.
func TestStateDirSymlinkOutside(t *testing.T) {
	ws, outside := testkit.ExampleWorkspace(t), t.TempDir()
	testkit.WriteFile(t, outside, "profile", []byte("secret-content\n"))
	if err := os.Symlink(outside, filepath.Join(ws, ".skillsync")); err != nil {
		t.Fatal(err)
	}
	beforeOutside, beforeWS := treeOf(t, outside), treeOf(t, ws)
	for _, args := range [][]string{{"validate"}, {"reconcile", "--once"}, {"profile", "use", "web-shell"}, {"status"}} {
		code, stdout, stderr := runCLI(t, ws, args...)
		if code != exitInvalid || !strings.Contains(stderr, ".skillsync: is a symlink or a file") || strings.Contains(stdout+stderr, "secret") {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", args, code, stdout, stderr)
		}
	}
	if d := diffSnapshots(beforeOutside, treeOf(t, outside)); d != "" {
		t.Errorf("outside the workspace changed:\n%s", d)
	}
	if d := diffSnapshots(beforeWS, treeOf(t, ws)); d != "" {
		t.Errorf("workspace changed:\n%s", d)
	}
}

func TestInitThroughSymlinkedDirectoryWritesNothingOutside(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "registry")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, dir, "init")
	if code != exitInvalid || !strings.Contains(stderr, "registry/capabilities.yaml") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("init wrote outside the workspace: %v", entries)
	}
	if _, err := os.Lstat(filepath.Join(dir, "skillsync.yaml")); !os.IsNotExist(err) {
		t.Errorf("init wrote part of the workspace before failing: %v", err)
	}
	fresh := t.TempDir()
	testkit.WriteFile(t, fresh, "skillsync.yaml", []byte("mine\n"))
	if code, _, stderr := runCLI(t, fresh, "init"); code != exitInvalid || !strings.Contains(stderr, "skillsync.yaml already exists") {
		t.Errorf("init over an existing config: exit %d, %s", code, stderr)
	}
}

func TestConfigThatIsAFIFOIsRefused(t *testing.T) {
	ws := t.TempDir()
	mkfifo(t, filepath.Join(ws, "skillsync.yaml"))
	code, _, stderr := runCLI(t, ws, "validate")
	if code != exitInvalid || !strings.Contains(stderr, "skillsync.yaml: cannot read workspace config: not a regular file") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
}

func TestReconcileIgnoresAStateDirAHostCreated(t *testing.T) {
	ws := testkit.ExampleWorkspace(t)
	testkit.WriteFile(t, ws, ".skillsync/profile", []byte("web-shell\n"))
	if code, _, stderr := runCLI(t, ws, "reconcile", "--once"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got, err := os.ReadFile(filepath.Join(ws, ".skillsync", ".gitignore")); err != nil || string(got) != "*\n" {
		t.Errorf(".gitignore = %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".qwen/skills/qwencode-viz/SKILL.md")); err != nil {
		t.Errorf("profile from the host's file not applied: %v", err)
	}
}

// Every command shows how it is used in its --help.
func TestEveryCommandHasExamples(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && !c.Hidden && c.Name() != "help" && c.Example == "" {
			t.Errorf("%s has no Example", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand(io.Discard, io.Discard))
}
