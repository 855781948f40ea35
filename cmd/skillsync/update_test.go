package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
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
		"  sources:\n    - name: team\n      git: "+u.URL+"\n      path: skills\n      allow: [{finding: executable}]\n"))
	run := runIn(t, ws)
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

// TestAnIndexSourceIsPinnedByTheLock reads skills from a discovery index
// served over HTTP on this machine: update pins the index and each skill's
// artifact by digest; a site that changes its index changes nothing until
// update moves the lock, and outdated says it moved; a site that replaces an
// artifact under the same URL is refused rather than believed.
func TestAnIndexSourceIsPinnedByTheLock(t *testing.T) {
	greet := []byte("---\nname: greet\ndescription: Greet someone.\n---\nSay hello.\n")
	files := map[string][]byte{"/skills/greet/SKILL.md": greet}
	digest := func(b []byte) string { return fmt.Sprintf("sha256:%x", sha256.Sum256(b)) }
	setIndex := func(body []byte) {
		files["/.well-known/agent-skills/index.json"] = []byte(`{"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json", "skills": [` +
			`{"name": "greet", "type": "skill-md", "description": "Greet someone.", "url": "/skills/greet/SKILL.md", "digest": "` + digest(body) + `"}]}`)
	}
	setIndex(greet)
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		data, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(data)
	}))
	defer srv.Close()
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	ws := t.TempDir()
	testkit.WriteFile(t, ws, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  targets: [claude-code]\n"+
		"  sources:\n    - name: docs\n      index: "+srv.URL+"/.well-known/agent-skills/index.json\n"))
	run := runIn(t, ws)
	if out := run(exitOK, "update", "--yes"); !strings.Contains(out, "source docs: ") || !strings.Contains(out, "(index)") || !strings.Contains(out, "  + greet") {
		t.Errorf("update said:\n%s", out)
	}
	lock, _ := os.ReadFile(filepath.Join(ws, "skillsync.lock"))
	if !strings.Contains(string(lock), "type: skill-md") || !strings.Contains(string(lock), digest(greet)) {
		t.Errorf("the lock does not pin the artifact:\n%s", lock)
	}
	run(exitOK, "reconcile", "--once")
	written := filepath.Join(ws, ".claude/skills/greet/SKILL.md")
	if data, err := os.ReadFile(written); err != nil || !strings.Contains(string(data), "Say hello.") {
		t.Fatalf("the skill from the index: %v\n%s", err, data)
	}

	// The site moves on; the workspace does not, until update.
	greet2 := []byte("---\nname: greet\ndescription: Greet someone.\n---\nSay hello, twice.\n")
	files["/skills/greet/v2/SKILL.md"] = greet2
	setIndex(greet2)
	files["/.well-known/agent-skills/index.json"] = bytes.Replace(files["/.well-known/agent-skills/index.json"], []byte("/skills/greet/SKILL.md"), []byte("/skills/greet/v2/SKILL.md"), 1)
	if out := run(exitOK, "reconcile", "--once"); !strings.Contains(out, "nothing to do") {
		t.Errorf("a run followed the index before update:\n%s", out)
	}
	if out := run(exitChanges, "outdated"); !strings.Contains(out, "1 source(s) outdated") {
		t.Errorf("outdated said:\n%s", out)
	}
	run(exitOK, "update", "--yes")
	run(exitOK, "reconcile", "--once")
	if data, _ := os.ReadFile(written); !strings.Contains(string(data), "twice") {
		t.Errorf("the skill did not follow the new lock:\n%s", data)
	}

	// The site replaces the artifact in place: a run with an empty cache
	// refuses it and writes nothing.
	files["/skills/greet/v2/SKILL.md"] = []byte("---\nname: greet\ndescription: Greet someone.\n---\nSomething else.\n")
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	before := treeOf(t, ws)
	if out := run(exitFailure, "reconcile", "--once"); !strings.Contains(out, "not "+digest(greet2)+" as the index said") {
		t.Errorf("a replaced artifact:\n%s", out)
	}
	if d := diffSnapshots(before, treeOf(t, ws)); d != "" {
		t.Errorf("a run that could not verify its source changed the workspace:\n%s", d)
	}
}

// runIn runs skillsync in the workspace ws and requires an exit code; it
// returns what was printed.
func runIn(t *testing.T, ws string) func(want int, args ...string) string {
	return func(want int, args ...string) string {
		t.Helper()
		code, stdout, stderr := runCLI(t, ws, args...)
		if code != want {
			t.Fatalf("skillsync %v: exit %d, want %d\n%s%s", args, code, want, stdout, stderr)
		}
		return stdout + stderr
	}
}
