package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

const snapshotRel = "registry/mcp-tracker.yaml"

// snapshotWorkspace is the example workspace with the MCP source tracker, whose
// selector makes open_ticket the skill ticket.
func snapshotWorkspace(t *testing.T) string {
	t.Helper()
	root := testkit.ExampleWorkspace(t)
	selectAlias(t, root, "ticket")
	return root
}

// selectAlias makes the selector of the source tracker give open_ticket alias.
func selectAlias(t *testing.T, root, alias string) {
	t.Helper()
	config := "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  profile: cli\n  mcp: {server: majordomus}\n" +
		"  mcpSources:\n    - name: tracker\n      command: tracker-mcp\n      skills: [{tool: open_ticket, alias: " + alias + ", argument: summary}]\n"
	testkit.WriteFile(t, root, "skillsync.yaml", []byte(config))
}

// snapshotOf is a snapshot recording the tool open_ticket under title.
func snapshotOf(t *testing.T, title string) []byte {
	t.Helper()
	doc := "---\napiVersion: skillsync/v1\nkind: Capability\nmetadata:\n  name: tracker.open_ticket\nspec:\n  title: " + title + "\n  effect: write\n" +
		"  input: {type: object, properties: {summary: {type: string}}, required: [summary]}\n  mcp: {server: tracker, tool: open_ticket}\n"
	stamped, err := banner.Stamp([]byte(doc), "mcp/tracker", snapshotRel)
	if err != nil {
		t.Fatal(err)
	}
	return stamped
}

// A person's file that does not load is theirs to fix: it keeps no tool the
// server lists out of the snapshot.
func TestRecordSnapshotIgnoresProblemsNotItsOwn(t *testing.T) {
	root := snapshotWorkspace(t)
	testkit.WriteFile(t, root, "registry/broken.yaml", []byte("apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: half.written\n"))
	wrote, err := Record(workspacefs.OS{}, root, registry.ConfigName, snapshotRel, snapshotOf(t, "Open a ticket"), false)
	if !wrote || err != nil {
		t.Fatalf("wrote %v, err %v", wrote, err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, snapshotRel)); string(got) != string(snapshotOf(t, "Open a ticket")) {
		t.Errorf("the snapshot is not what was recorded:\n%s", got)
	}
}

// Another source's snapshot that does not load is that source's to mend: it
// keeps no tool of this one out.
func TestRecordSnapshotIgnoresAnotherSourcesProblems(t *testing.T) {
	root := snapshotWorkspace(t)
	config, err := os.ReadFile(filepath.Join(root, "skillsync.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, root, "skillsync.yaml", append(config, "    - name: other\n      command: other-mcp\n"...))
	other := "---\napiVersion: skillsync/v1\nkind: Capability\nmetadata:\n  name: other.tool\nspec:\n  title: A tool\n  effect: sometimes\n" +
		"  mcp: {server: other, tool: tool}\n"
	stamped, err := banner.Stamp([]byte(other), "mcp/other", "registry/mcp-other.yaml")
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, root, "registry/mcp-other.yaml", stamped)
	if _, err := controller.LoadInputs(controller.Request{System: workspacefs.OS{}, Root: root}); err == nil {
		t.Fatal("the other source's snapshot loads; the test needs one that does not")
	}
	if wrote, err := Record(workspacefs.OS{}, root, registry.ConfigName, snapshotRel, snapshotOf(t, "Open a ticket"), false); !wrote || err != nil {
		t.Fatalf("wrote %v, err %v", wrote, err)
	}
}

// A snapshot that brings a problem of its own is put back, and one already on
// disk that no longer loads is reported, not called unchanged.
func TestRecordSnapshotRefusesItsOwnProblems(t *testing.T) {
	root := snapshotWorkspace(t)
	selectAlias(t, root, "intent")
	var rejected *RejectedError
	wrote, err := Record(workspacefs.OS{}, root, registry.ConfigName, snapshotRel, snapshotOf(t, "Open a ticket"), false)
	if wrote || !errors.As(err, &rejected) || len(rejected.Problems) == 0 {
		t.Fatalf("a tool whose selector gives an alias another skill holds: wrote %v, err %v", wrote, err)
	}
	if _, err := os.Stat(filepath.Join(root, snapshotRel)); !os.IsNotExist(err) {
		t.Errorf("the rejected snapshot was not taken back: %v", err)
	}

	selectAlias(t, root, "ticket")
	if wrote, err := Record(workspacefs.OS{}, root, registry.ConfigName, snapshotRel, snapshotOf(t, "Open a ticket"), false); !wrote || err != nil {
		t.Fatalf("a snapshot that loads: wrote %v, err %v", wrote, err)
	}
	testkit.WriteFile(t, root, "registry/team.yaml", []byte("apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: ticket}\nspec: {description: Ours, body: Ours.}\n"))
	wrote, err = Record(workspacefs.OS{}, root, registry.ConfigName, snapshotRel, snapshotOf(t, "Open a ticket"), false)
	// The clash is told at both declarations: the selector that gives the alias,
	// and the Skill that holds the name.
	if wrote || !errors.As(err, &rejected) || len(rejected.Problems) != 2 ||
		!slices.ContainsFunc(rejected.Problems, func(p registry.Problem) bool { return p.Pos.File == "skillsync.yaml" }) ||
		!slices.ContainsFunc(rejected.Problems, func(p registry.Problem) bool { return p.Pos.File == "registry/team.yaml" }) {
		t.Errorf("the same snapshot, its alias now taken: wrote %v, err %v, problems %v", wrote, err, rejected.Problems)
	}
}
