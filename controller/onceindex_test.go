package controller

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/controller/state"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/property"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// indexAsOf runs a pass that plans and writes nothing and records it in the index
// as a pass that began at began would; it says whether an index was written.
func indexAsOf(t *testing.T, req Request, began time.Time) bool {
	t.Helper()
	check := req
	check.Check = true
	var seen seenTargets
	out := reconcileKeeping(pass{Request: check}, nil, seen.keep)
	os.Remove(filepath.Join(req.Root, state.IndexFile))
	writeIndex(req, out, &seen, began)
	_, err := os.Stat(filepath.Join(req.Root, state.IndexFile))
	return err == nil
}

// later is a moment that makes every stamp on disk older than any margin.
func later() time.Time { return time.Now().Add(3 * time.Second) }

// indexSummary is what an outcome says that the index keeps.
func indexSummary(out Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "profile %s from %s\nrefused %q problems %v err %v\nin sync %v\nhand-written %v\n",
		out.Profile.Name, out.Profile.Source, out.Plan.Refused, out.Problems, out.Err, out.Plan.InSync, out.HandWritten)
	for _, c := range out.Plan.Changes {
		fmt.Fprintf(&b, "%s %s %s %q %v %v %x\n", c.Action, c.Path, c.Owner, c.Reason, c.Obstruction, c.Override, c.OldSum)
	}
	for _, w := range out.Withheld {
		fmt.Fprintf(&b, "withheld %s %s %s: %s %v\n", w.Skill, w.Owner, w.Target, w.Reason, w.HandWritten)
	}
	return b.String()
}

// A pass that found nothing to do is answered again from the index, the same, as
// long as nothing it read changed.
func TestTheIndexAnswersAPassThatFindsNothingToDo(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	req := Request{System: workspacefs.OS{}, Root: root}
	if out := ReconcileOnce(req, time.Second); out.Err != nil || len(out.Plan.Changes) == 0 {
		t.Fatalf("first pass: %v, %d changes", out.Err, len(out.Plan.Changes))
	}
	// People's skills under names the index must write and read back as they are.
	for _, name := range []string{"with space", "new\nline", `quote"d`, "ü"} {
		testkit.WriteFile(t, root, ".claude/skills/"+name+"/SKILL.md", []byte("---\nname: x\ndescription: mine\n---\nMine.\n"))
	}
	if !indexAsOf(t, req, later()) {
		t.Fatal("no index written for a pass that found nothing to do")
	}
	got, ok := fromIndex(req)
	if !ok || !got.indexed {
		t.Fatal("the index does not answer the pass it recorded")
	}
	want := Reconcile(Request{System: workspacefs.OS{}, Root: root, Check: true})
	if indexSummary(got) != indexSummary(want) {
		t.Errorf("answered from the index:\n%s\nfrom scratch:\n%s", indexSummary(got), indexSummary(want))
	}
	if out := ReconcileOnce(req, time.Second); !out.indexed {
		t.Error("ReconcileOnce read the workspace though the index holds")
	}
	other := req
	other.ProfileFlag = "web-shell"
	if _, ok := fromIndex(other); ok {
		t.Error("the index answered a pass for another profile")
	}
}

// Stamps as new as the pass are racily clean: an edit in the same tick of the
// clock would leave them as they are, so no index is written with them.
func TestNoIndexOfRacilyCleanStamps(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	req := Request{System: workspacefs.OS{}, Root: root}
	ReconcileOnce(req, time.Second)
	if indexAsOf(t, req, time.Now()) {
		t.Error("an index was written with stamps no older than the pass")
	}
	if !indexAsOf(t, req, later()) {
		t.Error("no index, though every stamp is older than the margin")
	}
}

// indexCases is how many steps the index property test takes.
func indexCases(t *testing.T) int { return property.Cases(t, "INDEX_CASES", 150) }

// Whatever changes in the workspace, the index answers only a pass whose answer
// it holds: after every step of a random sequence (the steps of the incremental
// property test, edits that keep a file's size and modification time, chmods,
// and links along a chain pointed elsewhere), an answer from the index is what a
// pass from scratch finds.
func TestTheIndexNeverAnswersAChangedWorkspace(t *testing.T) {
	seed := property.Seed(t, "INDEX_SEED")
	rng := rand.New(rand.NewPCG(seed, seed))
	root := testkit.ExampleWorkspace(t)
	outside := t.TempDir()
	chainOfLinks(t, root, outside)
	req := Request{System: workspacefs.OS{}, Root: root}
	var steps []string
	answered, refused := 0, 0
	for i := range indexCases(t) {
		if rng.IntN(2) == 0 {
			ReconcileOnce(req, time.Second)
			indexAsOf(t, req, later())
		}
		switch rng.IntN(7) {
		case 0:
			steps = append(steps, "nothing")
		case 4:
			steps = append(steps, property.ResetWorkspace(t, root))
		case 1:
			steps = append(steps, sameStamp(t, rng, root))
		case 5, 6:
			steps = append(steps, relink(t, rng, root, outside))
		default:
			steps = append(steps, property.RandomStep(t, rng, root, outside, func() (int, error) { out := ReconcileOnce(req, time.Second); return len(out.Applied), out.Err }))
		}
		if got, ok := fromIndex(req); ok {
			answered++
			want := Reconcile(Request{System: workspacefs.OS{}, Root: root, Check: true})
			if indexSummary(got) != indexSummary(want) {
				t.Fatalf("after step %d (%s), the index answers otherwise than a pass from scratch (replay: INDEX_SEED=%d INDEX_CASES=%d)\n"+
					"steps: %s\n--- index\n%s\n--- from scratch\n%s", i, steps[i], seed, i+1, strings.Join(steps, "; "), indexSummary(got), indexSummary(want))
			}
		} else {
			refused++
		}
		// The comparison means something only if the index both answers and
		// refuses: every so often, whatever the seed, a workspace put right must be
		// answered and an edit of it refused.
		if i%property.ProbeEvery == property.ProbeEvery-1 {
			property.ResetWorkspace(t, root)
			ReconcileOnce(req, time.Second)
			if !indexAsOf(t, req, later()) {
				t.Fatalf("after step %d, no index of a workspace put right (replay: INDEX_SEED=%d INDEX_CASES=%d)", i, seed, i+1)
			}
			if _, ok := fromIndex(req); !ok {
				t.Fatalf("after step %d, the index does not answer the workspace put right it recorded (replay: INDEX_SEED=%d INDEX_CASES=%d)", i, seed, i+1)
			}
			data, err := os.ReadFile(filepath.Join(root, "registry/journal.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, root, "registry/journal.yaml", []byte(strings.Replace(string(data), "title: Weekly", "title: Probe Weekly", 1)))
			if _, ok := fromIndex(req); ok {
				t.Fatalf("after step %d, the index answers though a registry file was edited (replay: INDEX_SEED=%d INDEX_CASES=%d)", i, seed, i+1)
			}
		}
	}
	t.Logf("the index answered %d and refused %d of %d random passes", answered, refused, indexCases(t))
}

// sameStamp changes a file the way a stamp of size and modification time alone
// would miss: the same number of bytes, the modification time put back; or only
// its mode.
func sameStamp(t *testing.T, rng *rand.Rand, root string) string {
	t.Helper()
	files := []string{"registry/intents.yaml", "registry/journal.yaml", "skillsync.yaml",
		".claude/skills/intent/SKILL.md", ".agents/skills/note/SKILL.md", ".agents/skills/note/agents/openai.yaml", ".qwen/skills/intent/SKILL.md"}
	rel := files[rng.IntN(len(files))]
	full := filepath.Join(root, rel)
	info, err := os.Stat(full)
	if err != nil {
		return "nothing at " + rel
	}
	if rng.IntN(3) == 0 {
		os.Chmod(full, info.Mode()^0o100)
		return "chmod " + rel
	}
	data, err := os.ReadFile(full)
	if err != nil || len(data) == 0 {
		return "nothing to edit at " + rel
	}
	i := rng.IntN(len(data))
	data[i] ^= 0x01 // one byte, the same length
	if err := os.WriteFile(full, data, info.Mode()); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(full, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	return "same-stamp edit " + rel
}

// chainOfLinks lays out what relink points: a/hop leads to hops/in, whose
// links lead inside the workspace, or hops/out, whose links lead outside.
func chainOfLinks(t *testing.T, root, outside string) {
	t.Helper()
	for _, skill := range chainSkills {
		symlink(t, root, "../../registry", "hops/in/"+skill)
		symlink(t, root, outside, "hops/out/"+skill)
	}
	symlink(t, root, "../hops/in", "a/hop")
}

// chainSkills are the names relink makes skill directories of: one the registry
// declares, one it does not.
var chainSkills = []string{"intent", "x"}

// relink makes a skill directory a link along the chain (to a/hop/<skill>, see
// chainOfLinks), or points one link of the chain elsewhere. Each link of the
// chain is in a directory no pass reads, so only the index's stamps of the
// chain can see it change.
func relink(t *testing.T, rng *rand.Rand, root, outside string) string {
	t.Helper()
	pick := func(options ...string) string { return options[rng.IntN(len(options))] }
	skill := chainSkills[rng.IntN(len(chainSkills))]
	var rel, to string
	switch rng.IntN(3) {
	case 0:
		rel, to = pick(".claude/skills", ".agents/skills")+"/"+skill, "../../a/hop/"+skill
		os.RemoveAll(filepath.Join(root, rel))
	case 1:
		rel, to = "a/hop", pick("../hops/in", "../hops/out")
	default:
		rel, to = pick("hops/in", "hops/out")+"/"+skill, pick(outside, "../../registry", "../../nowhere")
	}
	symlink(t, root, to, rel)
	return "link " + rel + " to " + to
}

// indexAgrees fails when the index answers otherwise than a pass from scratch.
func indexAgrees(t *testing.T, req Request, what string) {
	t.Helper()
	got, ok := fromIndex(req)
	if !ok {
		t.Logf("%s: the index refuses (fine)", what)
		return
	}
	want := Reconcile(Request{System: workspacefs.OS{}, Root: req.Root, Check: true})
	if indexSummary(got) != indexSummary(want) {
		t.Fatalf("%s: the index answers otherwise than a pass from scratch\n--- index\n%s\n--- from scratch\n%s", what, indexSummary(got), indexSummary(want))
	}
}

// A target directory that is a symlink (inside the workspace) is blocked: a pass
// keeps conflicts and writes the index. The link replaced by a real directory is
// seen.
func TestTheIndexSeesALinkedTargetReplaced(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	os.MkdirAll(filepath.Join(root, ".claude"), 0o755)
	os.MkdirAll(filepath.Join(root, "elsewhere"), 0o755)
	if err := os.Symlink("../elsewhere", filepath.Join(root, ".claude/skills")); err != nil {
		t.Fatal(err)
	}
	req := Request{System: workspacefs.OS{}, Root: root}
	ReconcileOnce(req, time.Second)
	if !indexAsOf(t, req, later()) {
		t.Fatal("no index written")
	}
	indexAgrees(t, req, "before")
	os.Remove(filepath.Join(root, ".claude/skills"))
	os.Mkdir(filepath.Join(root, ".claude/skills"), 0o755)
	indexAgrees(t, req, "the symlinked target replaced by a directory")
}

// What an interrupted write leaves in a skill directory's agents/, which holds a
// person's file but no side file, is seen.
func TestTheIndexSeesASideFileDirectory(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	req := Request{System: workspacefs.OS{}, Root: root}
	ReconcileOnce(req, time.Second)
	testkit.WriteFile(t, root, ".agents/skills/weekly-report/agents/notes.txt", []byte("mine\n"))
	if !indexAsOf(t, req, later()) {
		t.Fatal("no index written")
	}
	indexAgrees(t, req, "before")
	testkit.WriteFile(t, root, ".agents/skills/weekly-report/agents/"+banner.NewTempName(), []byte("---\n"))
	indexAgrees(t, req, "a temp file left in agents/")
}

// An index that is not one this binary wrote for this request, or that does not
// parse, answers nothing: the pass reads everything, as without one.
func TestABrokenIndexAnswersNothing(t *testing.T) {
	root := testkit.ExampleWorkspace(t)
	req := Request{System: workspacefs.OS{}, Root: root}
	ReconcileOnce(req, time.Second)
	if !indexAsOf(t, req, later()) {
		t.Fatal("no index written")
	}
	good, err := os.ReadFile(filepath.Join(root, state.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(good), "\n")
	for name, data := range map[string]string{
		"garbage":         "\x00\x01not an index\n",
		"another version": "skillsync-index 0\n" + rest,
		"another key":     head + "\nkey 00\n" + rest[strings.Index(rest, "\n")+1:],
		"a torn line":     strings.TrimSuffix(string(good), "\n")[:len(good)-10],
		"lines lost":      lostLines(string(good)),
	} {
		testkit.WriteFile(t, root, state.IndexFile, []byte(data))
		if _, ok := fromIndex(req); ok {
			t.Errorf("%s: the index answered", name)
		}
		if out := ReconcileOnce(req, time.Second); out.indexed || out.Err != nil || len(out.Problems) > 0 {
			t.Errorf("%s: indexed %v, err %v, problems %v", name, out.indexed, out.Err, out.Problems)
		}
	}
}

// lostLines is an index whose last stamp is gone, its count line kept.
func lostLines(index string) string {
	lines := strings.SplitAfter(index, "\n")
	lines = lines[:len(lines)-1] // the empty string after the last line break
	return strings.Join(append(lines[:len(lines)-2], lines[len(lines)-1]), "")
}

// skillDirWithSideFile is a workspace of one skill directory, skills/release,
// holding a client's side file (agents/openai.yaml), in sync in every target
// and old enough for its stamps to stand for what a pass reads.
func skillDirWithSideFile(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	testkit.WriteFile(t, root, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  skillDirs: [skills/*]\n  targets: [claude-code, agents]\n"))
	testkit.WriteFile(t, root, "skills/release/SKILL.md", []byte("---\nname: release\ndescription: Cut a release.\n---\n\nTag it and ship it.\n"))
	testkit.WriteFile(t, root, "skills/release/agents/openai.yaml", []byte("interface:\n  display_name: \"Release\"\n"))
	if out := ReconcileOnce(Request{System: workspacefs.OS{}, Root: root}, time.Second); out.Err != nil || len(out.Problems) > 0 || out.Plan.Count(plan.Create) != 3 {
		t.Fatalf("first run: %s", summary(out))
	}
	time.Sleep(250 * time.Millisecond)
	return root
}

// appendTo writes more at the end of the file rel of root in place, as an
// editor that does not save by rename does: its folder's stamp stays as it was.
func appendTo(t *testing.T, root, rel, more string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(root, rel), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(more); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A client's side file in a skill directory of the registry is an input like
// its SKILL.md: edited in place, the index does not answer for it.
func TestTheIndexSeesASkillDirectorysSideFileEdited(t *testing.T) {
	root := skillDirWithSideFile(t)
	req := Request{System: workspacefs.OS{}, Root: root}
	if !indexAsOf(t, req, later()) {
		t.Fatal("no index written")
	}
	indexAgrees(t, req, "before")
	appendTo(t, root, "skills/release/agents/openai.yaml", "  short_description: \"Ship it\"\n")
	indexAgrees(t, req, "the side file edited in place")
	if out := Reconcile(Request{System: workspacefs.OS{}, Root: root, Check: true}); out.Plan.Count(plan.Update) != 1 {
		t.Fatalf("a pass from scratch does not see the edit either: %s", summary(out))
	}
}

// policed reads no source, under the organisation's policy it holds.
type policed struct {
	policy *registry.Policy
	err    error
}

func (p policed) ReadSource(registry.RemoteSource, registry.LockedSource) ([]registry.SourceFile, error) {
	return nil, nil
}
func (p policed) Policy() (*registry.Policy, error) { return p.policy, p.err }

// The organisation's policy decides what a workspace may take and lies outside
// it: the index answers only under the policy it was made under.
func TestTheIndexAnswersOnlyUnderItsPolicy(t *testing.T) {
	policy := func(sources string) *registry.Policy {
		p, ps := registry.ParsePolicy("policy.yaml", []byte("apiVersion: skillsync/v1\nkind: Policy\nspec:\n  sources: ["+sources+"]\n"), nil)
		if len(ps) > 0 {
			t.Fatal(ps)
		}
		return &p
	}
	root := testkit.ExampleWorkspace(t)
	req := Request{System: workspacefs.OS{}, Root: root, Sources: policed{policy: policy("github.com/acme")}}
	if out := ReconcileOnce(req, time.Second); out.Err != nil || len(out.Problems) > 0 {
		t.Fatal(out.Err, out.Problems)
	}
	if !indexAsOf(t, req, later()) {
		t.Fatal("no index written for a pass that found nothing to do")
	}
	if _, ok := fromIndex(req); !ok {
		t.Fatal("the index does not answer under the policy it was made under")
	}
	for name, sources := range map[string]registry.SourceReader{
		"another policy":                policed{policy: policy("github.com/other")},
		"no policy":                     policed{},
		"a policy that cannot be read":  policed{err: os.ErrPermission},
		"a reader that knows no policy": nil,
	} {
		other := req
		other.Sources = sources
		if _, ok := fromIndex(other); ok {
			t.Errorf("the index answered under %s", name)
		}
	}
}
