package controller

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// symlink makes rel in root a symlink to target, replacing what was there, and
// the directories above it.
func symlink(t *testing.T, root, target, rel string) {
	t.Helper()
	full := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(full)
	if err := os.Symlink(target, full); err != nil {
		t.Fatal(err)
	}
}

// appliedWorkspace is the example workspace after a pass that applied it, with
// elsewhere, a directory inside it no pass reads.
func appliedWorkspace(t *testing.T) (string, Request) {
	t.Helper()
	root := testkit.ExampleWorkspace(t)
	req := Request{System: workspacefs.OS{}, Root: root}
	if out := ReconcileOnce(req, time.Second); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("first pass: %v %v", out.Err, out.Problems)
	}
	if err := os.MkdirAll(filepath.Join(root, "elsewhere"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, req
}

// onceAgrees fails unless a --once pass, answered from the index when it holds,
// has the verdict want, and the index answers as a pass from scratch does.
func onceAgrees(t *testing.T, req Request, want Verdict, what string) {
	t.Helper()
	indexAgrees(t, req, what)
	if got := ReconcileOnce(req, time.Second).Verdict(false); got != want {
		t.Errorf("%s: --once verdict %d, want %d (from scratch: %d)", what, got, want, Reconcile(Request{System: workspacefs.OS{}, Root: req.Root, Check: true}).Verdict(false))
	}
}

// A skill directory that is a symlink to hop/x, itself a link inside the
// workspace: when hop/x is pointed outside, a pass from scratch refuses the
// workspace, and so must a pass the index would answer.
func TestTheIndexSeesALinkOnTheWayPointedOutside(t *testing.T) {
	root, req := appliedWorkspace(t)
	symlink(t, root, "../../hop/x", ".claude/skills/x")
	symlink(t, root, "../elsewhere", "hop/x")
	if !indexAsOf(t, req, later()) {
		t.Fatal("no index written for a workspace whose links stay inside it")
	}
	onceAgrees(t, req, Converged, "links inside")
	symlink(t, root, t.TempDir(), "hop/x")
	if refused := Reconcile(Request{System: workspacefs.OS{}, Root: root, Check: true}).Plan.Refused; !strings.Contains(refused, "symlinks lead outside the workspace") {
		t.Fatalf("from scratch, a link on the way out is not refused: %q", refused)
	}
	onceAgrees(t, req, Refused, "hop/x pointed outside")
}

// A chain of two links: .claude/skills/x leads to a/hop/x, and a/hop is a link
// to a directory holding x, a link inside. a/hop pointed at another directory,
// whose x leads outside, is seen.
func TestTheIndexSeesTheSecondLinkOfAChain(t *testing.T) {
	root, req := appliedWorkspace(t)
	symlink(t, root, "../../a/hop/x", ".claude/skills/x")
	symlink(t, root, "../../elsewhere", "hops/one/x")
	symlink(t, root, t.TempDir(), "hops/two/x")
	symlink(t, root, "../hops/one", "a/hop")
	if !indexAsOf(t, req, later()) {
		t.Fatal("no index written")
	}
	onceAgrees(t, req, Converged, "the chain inside")
	symlink(t, root, "../hops/two", "a/hop")
	onceAgrees(t, req, Refused, "a/hop pointed at a directory whose x leads outside")
}

// An absolute link into the workspace is followed in it: the index is written,
// and the link it leads through, pointed outside, is seen.
func TestTheIndexFollowsAnAbsoluteLinkInside(t *testing.T) {
	root, req := appliedWorkspace(t)
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	symlink(t, root, filepath.Join(real, "hop", "x"), ".agents/skills/x")
	symlink(t, root, "../elsewhere", "hop/x")
	if !indexAsOf(t, req, later()) {
		t.Fatal("no index written for an absolute link inside the workspace")
	}
	onceAgrees(t, req, Converged, "an absolute link inside")
	symlink(t, root, t.TempDir(), "hop/x")
	onceAgrees(t, req, Refused, "hop/x pointed outside")
}

// A link whose way leaves the workspace and comes back in is not refused, but
// what lies outside has no stamp in the workspace: no index is written, and the
// link outside pointed elsewhere is seen.
func TestNoIndexOfALinkWhoseWayLeavesTheWorkspace(t *testing.T) {
	root, req := appliedWorkspace(t)
	outside := t.TempDir()
	symlink(t, root, filepath.Join(outside, "back"), ".claude/skills/x")
	if err := os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(outside, "back")); err != nil {
		t.Fatal(err)
	}
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root, Check: true}); out.Plan.Refused != "" {
		t.Fatalf("from scratch, a link that comes back in is refused: %s", out.Plan.Refused)
	}
	if indexAsOf(t, req, later()) {
		t.Error("an index was written though a link's way leaves the workspace")
	}
	os.Remove(filepath.Join(outside, "back"))
	if err := os.Symlink(t.TempDir(), filepath.Join(outside, "back")); err != nil {
		t.Fatal(err)
	}
	onceAgrees(t, req, Refused, "the link outside pointed elsewhere outside")
}

// A registry glob that lists a directory through a link, whose files are all
// elsewhere: a link on its way pointed at another directory inside the
// workspace brings in a registry file, and the index does not answer as before
// (the directories holding each link on the way to a glob's directory are
// stamped, see registry.Dirs).
func TestTheIndexSeesALinkOnTheWayOfAGlobRepointed(t *testing.T) {
	root, req := appliedWorkspace(t)
	config, err := os.ReadFile(filepath.Join(root, "skillsync.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testkit.WriteFile(t, root, "skillsync.yaml", []byte(strings.Replace(string(config), "registry: [registry/*.yaml]", `registry: [registry/*.yaml, "*/more.yaml"]`, 1)))
	capability := func(name string) []byte {
		return []byte("apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: " + name + ".cap}\nspec:\n  title: " + name + "\n  effect: read\n" +
			"  input: {type: object, properties: {text: {type: string}}, required: [text]}\n  mcp: {tool: " + name + "}\n  skill: {alias: " + name + ", argument: text}\n")
	}
	testkit.WriteFile(t, root, "a/more.yaml", capability("more"))
	testkit.WriteFile(t, root, "deep2/d/more.yaml", capability("other"))
	if err := os.MkdirAll(filepath.Join(root, "deep1/d"), 0o755); err != nil {
		t.Fatal(err)
	}
	// .b is no match of "*": only lnk, which leads through it, is listed.
	symlink(t, root, ".b/hop/d", "lnk")
	symlink(t, root, "../deep1", ".b/hop")
	if out := ReconcileOnce(req, time.Second); out.Err != nil || len(out.Problems) > 0 {
		t.Fatalf("pass: %v %v", out.Err, out.Problems)
	}
	if !indexAsOf(t, req, later()) {
		t.Fatal("no index written")
	}
	indexAgrees(t, req, "before")
	symlink(t, root, "../deep2", ".b/hop")
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root, Check: true}); out.Plan.Pending() == 0 {
		t.Fatalf("from scratch, the file the glob finds through the link plans nothing:\n%s", indexSummary(out))
	}
	indexAgrees(t, req, ".b/hop pointed at a directory holding d/more.yaml")
}
