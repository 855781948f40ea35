package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/gitremote"
)

// TestTheOrganisationsPolicyRefusesASourceBeforeAnyRequest keeps a source the
// organisation's policy does not allow from being asked anything: update,
// outdated and reconcile refuse it at its line, and the workspace cannot
// widen the policy.
func TestTheOrganisationsPolicyRefusesASourceBeforeAnyRequest(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	u := gitremote.New(t)
	u.Commit(t, "main", map[string]string{"skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy.\n---\nDeploy.\n"})
	for _, kv := range u.Env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	policy := filepath.Join(t.TempDir(), "policy.yaml")
	testkit.WriteFile(t, filepath.Dir(policy), "policy.yaml", []byte("apiVersion: skillsync/v1\nkind: Policy\nspec:\n  sources: [git.example.com/acme]\n"))
	t.Setenv(policyEnv, policy)

	ws := t.TempDir()
	config := "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  targets: [claude-code]\n  sources:\n    - name: team\n      git: " + u.URL + "\n      path: skills\n" +
		"  trust:\n    sources: [\"127.0.0.1:*\"]\n"
	testkit.WriteFile(t, ws, "skillsync.yaml", []byte(config))
	run := runIn(t, ws)
	before := treeOf(t, ws)
	// Locations are written without a port.
	host, _, _ := strings.Cut(strings.TrimPrefix(u.URL, "http://"), ":")
	want := "skillsync.yaml:7:7: source team comes from " + host + "/skills, which the organisation's policy (" + policy + ") does not allow"
	for _, args := range [][]string{{"update", "--yes"}, {"outdated"}, {"reconcile", "--once"}} {
		if out := run(exitInvalid, args...); !strings.Contains(out, want) {
			t.Errorf("%v said:\n%s", args, out)
		}
	}
	if n := u.Requests.Load(); n != 0 {
		t.Errorf("a refused source was asked %d requests", n)
	}
	if d := diffSnapshots(before, treeOf(t, ws)); d != "" {
		t.Errorf("a refused source changed the workspace:\n%s", d)
	}

	// The policy allows the host; the workspace narrows it to another.
	testkit.WriteFile(t, filepath.Dir(policy), "policy.yaml", []byte("apiVersion: skillsync/v1\nkind: Policy\nspec:\n  sources: [\"127.0.0.1:*\"]\n"))
	testkit.WriteFile(t, ws, "skillsync.yaml", []byte(strings.Replace(config, `["127.0.0.1:*"]`, "[git.example.com/acme]", 1)))
	if out := run(exitInvalid, "update", "--yes"); !strings.Contains(out, "which spec.trust.sources does not allow") {
		t.Errorf("a workspace narrowing the policy:\n%s", out)
	}
	testkit.WriteFile(t, ws, "skillsync.yaml", []byte(config))
	run(exitOK, "update", "--yes")

	// A policy that cannot be read is no policy to ignore.
	testkit.WriteFile(t, filepath.Dir(policy), "policy.yaml", []byte("apiVersion: skillsync/v1\nkind: Policy\nspec: {sources: [\"[\"]}\n"))
	if out := run(exitInvalid, "update", "--yes"); !strings.Contains(out, policy+":3:18: \"[\" is not a pattern of source locations") {
		t.Errorf("a malformed policy:\n%s", out)
	}
	t.Setenv(policyEnv, filepath.Join(t.TempDir(), "gone.yaml"))
	if out := run(exitFailure, "reconcile", "--once"); !strings.Contains(out, "read the organisation's policy") {
		t.Errorf("a policy named and missing:\n%s", out)
	}
}

// A watcher keeps its readers for its life: each load reads the policy anew,
// so that a source the organisation stops allowing stops being read.
func TestEveryLoadReadsThePolicyAnew(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(policyEnv, filepath.Join(dir, "policy.yaml"))
	readers := (&globals{}).sourceReader()
	for _, allowed := range []string{"github.com/acme", "github.com/other"} {
		testkit.WriteFile(t, dir, "policy.yaml", []byte("apiVersion: skillsync/v1\nkind: Policy\nspec:\n  sources: ["+allowed+"]\n"))
		p, err := readers.Policy()
		if err != nil || len(p.Spec.Sources) != 1 || p.Spec.Sources[0] != allowed {
			t.Errorf("Policy() = %+v, %v; want %s", p, err, allowed)
		}
	}
}
