package controller

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

type heldSources map[string][]registry.SourceFile

func (f heldSources) ReadSource(src registry.RemoteSource, at registry.LockedSource) ([]registry.SourceFile, error) {
	files, ok := f[src.Name]
	if !ok {
		return nil, errors.New("host unreachable")
	}
	return files, nil
}

const catalogConfig = "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  targets: [claude-code]\n  sources:\n    - name: catalog\n      git: https://git.example.com/acme/catalog.git\n      registry: [registry/*.yaml]\n"

func catalogDocument(desc string) string {
	return "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: tickets.list}\nspec:\n  title: List tickets\n  description: " + desc + "\n  effect: read\n  cli: {command: [tickets, list]}\n  input: {type: object, properties: {q: {type: string}}}\n  skill: {alias: tickets, argument: q}\n"
}

func catalogLock(doc string) string {
	sum := sha256.Sum256([]byte(doc))
	l := registry.Lock{Sources: []registry.LockedSource{{Name: "catalog", Git: "https://git.example.com/acme/catalog.git", Commit: "0123456789abcdef0123456789abcdef01234567",
		Skills: map[string]string{}, Registry: []string{"registry/*.yaml"}, Documents: map[string]string{"registry/catalog.yaml": registry.SkillDigest(sum)}}}}
	return string(registry.FormatLock(l))
}

func summary(out Outcome) string {
	var b strings.Builder
	b.WriteString(errString(out.Err))
	for _, p := range out.Problems {
		b.WriteString(p.String() + "\n")
	}
	for _, c := range out.Plan.Changes {
		content, _ := c.Content()
		b.WriteString(fmt.Sprint(c.Action) + " " + c.Path + "\n" + string(content) + "\n")
	}
	return b.String()
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error() + "\n"
}

// After "skillsync update" moves a source's registry document (the same
// names, new content), a watcher's pass plans what a pass from scratch plans.
func TestAWatcherSeesASourcesDocumentMove(t *testing.T) {
	root := t.TempDir()
	v1, v2 := catalogDocument("Version one."), catalogDocument("Version two.")
	testkit.WriteFile(t, root, "skillsync.yaml", []byte(catalogConfig))
	testkit.WriteFile(t, root, "skillsync.lock", []byte(catalogLock(v1)))
	held := heldSources{"catalog": {{Path: "registry/catalog.yaml", Document: true, Data: []byte(v1)}}}
	inf := NewInformer()
	req := Request{System: workspacefs.OS{}, Root: root, Sources: held}
	out := inf.Reconcile(req)
	if out.Err != nil || len(out.Problems) > 0 || out.Plan.Count(plan.Create) == 0 {
		t.Fatalf("first pass: %s", summary(out))
	}
	if out := inf.Reconcile(req); out.Err != nil || len(out.Problems) > 0 || len(out.Plan.Changes) != 0 {
		t.Fatalf("second pass: %s", summary(out))
	}
	// update: the lock and the source move together.
	held["catalog"] = []registry.SourceFile{{Path: "registry/catalog.yaml", Document: true, Data: []byte(v2)}}
	testkit.WriteFile(t, root, "skillsync.lock", []byte(catalogLock(v2)))
	inf.InputChanged("skillsync.lock", false)
	check := req
	check.Check = true
	wout := inf.Reconcile(check)
	got := summary(wout)
	want := summary(Reconcile(Request{System: workspacefs.OS{}, Root: root, Sources: held, Check: true}))
	if got != want {
		t.Fatalf("watcher pass plans otherwise than from scratch\n--- watcher\n%s\n--- scratch\n%s", got, want)
	}
	if !strings.Contains(want, "Version two.") {
		t.Fatalf("the pass from scratch does not take the moved document:\n%s", want)
	}
}
