package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
)

// TestWhatOneWorkspacePublishesAnotherConsumesByteForByte publishes the skill
// directories of one workspace as a discovery index, serves it, and declares it
// as a source in another: the skills each writes into its targets are the same
// files, byte for byte and mode for mode. Publishing again writes the same
// bytes; a directory holding an index skillsync did not write is left alone.
func TestWhatOneWorkspacePublishesAnotherConsumesByteForByte(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	a := t.TempDir()
	testkit.WriteFiles(t, a, map[string]string{
		"skillsync.yaml":                  "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  skillDirs: [skills/*]\n  targets: [claude-code, agents]\n",
		"skills/deploy/SKILL.md":          "---\nname: deploy\ndescription: Deploy the service.\n---\nRun [the script](scripts/deploy.sh).\n",
		"skills/deploy/references/faq.md": "Questions.\n",
		"skills/greet/SKILL.md":           "---\nname: greet\ndescription: Greet someone.\n---\nSay hello.\n",
	})
	script := testkit.WriteFile(t, a, "skills/deploy/scripts/deploy.sh", []byte("#!/bin/sh\necho deployed\n"))
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(t.TempDir(), "public")
	code, out, stderr := runCLI(t, a, "publish", "--well-known", site)
	if code != exitOK || !strings.Contains(out, "published 2 skill(s)") {
		t.Fatalf("publish: exit %d\n%s%s", code, out, stderr)
	}
	first := treeOf(t, site)
	if _, err := os.Stat(filepath.Join(site, ".well-known/agent-skills/deploy.tar.gz")); err != nil {
		t.Errorf("no archive for the skill with files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(site, ".well-known/agent-skills/greet/SKILL.md")); err != nil {
		t.Errorf("no SKILL.md for the skill without files: %v", err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()

	b := t.TempDir()
	testkit.WriteFile(t, b, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  targets: [claude-code, agents]\n"+
		"  sources:\n    - name: team\n      index: "+srv.URL+"/.well-known/agent-skills/index.json\n      allow: [{finding: executable, path: deploy/scripts/*}]\n"))
	for _, c := range []struct {
		ws   string
		args []string
	}{{a, []string{"reconcile", "--once"}}, {b, []string{"update", "--yes"}}, {b, []string{"reconcile", "--once"}}} {
		if code, out, stderr := runCLI(t, c.ws, c.args...); code != exitOK {
			t.Fatalf("%v: exit %d\n%s%s", c.args, code, out, stderr)
		}
	}
	for _, target := range []string{".claude/skills", ".agents/skills"} {
		sameContents(t, a, b, target, "source team (index "+srv.URL+"/.well-known/agent-skills/index.json, ")
	}

	// Publishing again writes the same bytes.
	if code, out, stderr := runCLI(t, a, "publish", "--well-known", site); code != exitOK {
		t.Fatalf("publish again: exit %d\n%s%s", code, out, stderr)
	}
	if d := diffContents(first, treeOf(t, site)); d != "" {
		t.Errorf("publishing the same skills again changed the site:\n%s", d)
	}

	// An index skillsync did not write is kept, and nothing is written.
	foreign := t.TempDir()
	testkit.WriteFile(t, foreign, ".well-known/agent-skills/index.json", []byte(`{"skills": []}`))
	before := treeOf(t, foreign)
	if code, _, stderr := runCLI(t, a, "publish", "--well-known", foreign); code != exitFailure || !strings.Contains(stderr, "skillsync did not publish it; kept") {
		t.Errorf("publish over another's index: exit %d\n%s", code, stderr)
	}
	if d := diffSnapshots(before, treeOf(t, foreign)); d != "" {
		t.Errorf("publish over another's index changed it:\n%s", d)
	}
}
