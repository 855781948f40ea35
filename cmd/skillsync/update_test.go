package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/gitremote"
)

// TestASourceIsFetchedOnceThenReadFromTheCache holds the network to what the
// lock needs: update resolves and fetches; a reconcile with the commit in the
// cache makes no request at all; --offline makes none even when the cache lacks
// the commit, and says so; a run without --offline fetches it again, once.
func TestASourceIsFetchedOnceThenReadFromTheCache(t *testing.T) {
	u := gitremote.New(t)
	u.Commit(t, "main", map[string]string{
		"skills/deploy/SKILL.md":       "---\nname: deploy\ndescription: Deploy the service.\n---\nRun scripts/go.sh.\n",
		"skills/deploy/scripts/go.sh*": "#!/bin/sh\necho go\n",
	})
	for _, kv := range u.Env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	ws := t.TempDir()
	testkit.WriteFile(t, ws, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  targets: [claude-code]\n"+
		"  sources:\n    - name: team\n      git: "+u.URL+"\n      path: skills\n"))
	run := func(want int, args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, ws, args...)
		if code != want {
			t.Fatalf("skillsync %v: exit %d, want %d\n%s%s", args, code, want, stdout, stderr)
		}
		return stdout + stderr
	}
	run(exitOK, "update", "--yes")
	fetched := u.Requests.Load()
	if fetched == 0 {
		t.Fatal("update made no request")
	}
	run(exitOK, "reconcile", "--once")
	run(exitOK, "reconcile", "--once")
	if n := u.Requests.Load() - fetched; n != 0 {
		t.Errorf("reconciles with the commit in the cache made %d requests", n)
	}
	if _, err := os.Stat(filepath.Join(ws, ".claude/skills/deploy/scripts/go.sh")); err != nil {
		t.Fatalf("the source's script was not written: %v", err)
	}

	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	runCLI(t, ws, "__complete", "explain", "")
	if n := u.Requests.Load() - fetched; n != 0 {
		t.Errorf("completing a skill name made %d requests", n)
	}
	out := run(exitFailure, "--offline", "reconcile", "--check")
	if !strings.Contains(out, "is not in the cache") || u.Requests.Load() != fetched {
		t.Errorf("--offline with an empty cache: %d requests, said:\n%s", u.Requests.Load()-fetched, out)
	}
	run(exitOK, "reconcile", "--check")
	refetched := u.Requests.Load()
	if refetched == fetched {
		t.Error("a run with an empty cache made no request")
	}
	run(exitOK, "reconcile", "--check")
	if n := u.Requests.Load() - refetched; n != 0 {
		t.Errorf("a run after the fetch made %d requests", n)
	}

	// The branch moves; a run still answers from the lock (and from the index
	// of the last run that found nothing to do) until update moves the lock,
	// and then the next run follows it.
	u.Commit(t, "main", map[string]string{"skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy the service.\n---\nRun scripts/go.sh, twice.\n"})
	if out := run(exitOK, "reconcile", "--once"); !strings.Contains(out, "nothing to do") {
		t.Errorf("a run before update changed something:\n%s", out)
	}
	run(exitOK, "update", "--yes")
	if out := run(exitOK, "reconcile", "--once"); !strings.Contains(out, "updated") {
		t.Errorf("the run after update did not follow the lock:\n%s", out)
	}
	data, err := os.ReadFile(filepath.Join(ws, ".claude/skills/deploy/SKILL.md"))
	if err != nil || !strings.Contains(string(data), "twice") {
		t.Errorf("the skill is not the new commit's: %v\n%s", err, data)
	}
}
