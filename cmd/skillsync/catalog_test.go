package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/gitremote"
	"github.com/skillsync/skillsync/internal/testkit/ociregistry"
)

const ticketsCatalog = `apiVersion: skillsync/v1
kind: Capability
metadata: {name: tickets.create}
spec:
  title: Create a ticket
  description: Open a ticket in the tracker; use when asked to file, report or track work.
  effect: write
  input: {type: object, properties: {title: {type: string}}, required: [title]}
  cli: {command: [tickets, create]}
  skill: {alias: ticket, argument: title}
`

// TestACapabilityCatalogComesFromASource takes an organisation's registry
// documents from a git repository and from an OCI artifact that one workspace
// published: each consumer writes the capability's skill as the publisher
// does, shows the file in update, and a capability of its own shadows the
// catalog's, which validate notes.
func TestACapabilityCatalogComesFromASource(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("DOCKER_CONFIG", t.TempDir())

	pub := t.TempDir()
	testkit.WriteFiles(t, pub, map[string]string{
		"skillsync.yaml":        "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  skillDirs: [skills/*]\n  targets: [claude-code]\n",
		"registry/tickets.yaml": ticketsCatalog,
		"skills/greet/SKILL.md": "---\nname: greet\ndescription: Greet someone.\n---\nSay hello.\n",
	})
	runIn(t, pub)(exitOK, "reconcile", "--once")
	want, err := os.ReadFile(filepath.Join(pub, ".claude/skills/ticket/SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}

	reg := ociregistry.Start()
	defer reg.Close()
	if out := runIn(t, pub)(exitOK, "publish", "oci://"+reg.Host+"/acme/catalog:1"); !strings.Contains(out, "1 skill(s), 1 registry file(s)") {
		t.Errorf("publish said:\n%s", out)
	}
	u := gitremote.New(t)
	u.Commit(t, "main", map[string]string{"registry/tickets.yaml": ticketsCatalog, "skills/greet/SKILL.md": "---\nname: greet\ndescription: Greet someone.\n---\nSay hello.\n"})
	for _, kv := range u.Env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}

	for _, source := range []string{"oci: " + reg.Host + "/acme/catalog:1", "git: " + u.URL} {
		ws := t.TempDir()
		config := "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  targets: [claude-code]\n" +
			"  sources:\n    - name: catalog\n      " + source + "\n      include: [greet]\n      registry: [registry/*.yaml]\n"
		if strings.HasPrefix(source, "git:") {
			config += "      path: skills\n"
		}
		testkit.WriteFile(t, ws, "skillsync.yaml", []byte(config))
		run := runIn(t, ws)
		if out := run(exitOK, "update", "--yes"); !strings.Contains(out, "  + registry/tickets.yaml") || !strings.Contains(out, "  + greet") {
			t.Errorf("%s: update said:\n%s", source, out)
		}
		lock, _ := os.ReadFile(filepath.Join(ws, "skillsync.lock"))
		if !strings.Contains(string(lock), "    documents:\n      registry/tickets.yaml: sha256:") {
			t.Errorf("%s: the lock does not pin the registry file:\n%s", source, lock)
		}
		run(exitOK, "reconcile", "--once")
		got, err := os.ReadFile(filepath.Join(ws, ".claude/skills/ticket/SKILL.md"))
		gotContent, _ := banner.Remove(got)
		wantContent, _ := banner.Remove(want)
		if err != nil || string(gotContent) != string(wantContent) {
			t.Errorf("%s: the capability's skill differs from the publisher's: %v\n%s\nwant\n%s", source, err, got, want)
		}
		if o := banner.Origin(got); o != "catalog:registry/tickets.yaml" {
			t.Errorf("%s: the capability's skill says it came from %q", source, o)
		}

		// The workspace's own capability of that name shadows the catalog's.
		testkit.WriteFiles(t, ws, map[string]string{
			"skillsync.yaml": strings.Replace(config, "registry: []", "registry: [own.yaml]", 1),
			"own.yaml":       strings.Replace(ticketsCatalog, "Create a ticket", "Open one of ours", 1),
		})
		if out := run(exitOK, "validate"); !strings.Contains(out, "note: skillsync.yaml:7:7: capability tickets.create of source catalog is shadowed") {
			t.Errorf("%s: validate said:\n%s", source, out)
		}
		if out := run(exitOK, "explain", "ticket"); !strings.Contains(out, "shadows the declaration of the same name from source catalog") || !strings.Contains(out, "declared by capability/tickets.create at own.yaml:") {
			t.Errorf("%s: explain said:\n%s", source, out)
		}
	}
}
