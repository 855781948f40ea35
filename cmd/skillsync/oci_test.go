package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/ociregistry"
)

// TestAnOCICatalogIsPublishedOncePinnedEverywhere pushes one workspace's skill
// directories to a registry and pins them in two others: each writes the same
// files as the publisher, byte for byte and mode for mode; a warm run asks the
// registry nothing; a moved tag moves nothing until update; and a source that
// cannot be read writes and prunes nothing.
func TestAnOCICatalogIsPublishedOncePinnedEverywhere(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	reg := ociregistry.Start()
	defer reg.Close()
	catalog := reg.Host + "/acme/catalog"

	pub := t.TempDir()
	testkit.WriteFiles(t, pub, map[string]string{
		"skillsync.yaml":                  "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  skillDirs: [skills/*]\n  targets: [claude-code, agents]\n",
		"skills/deploy/SKILL.md":          "---\nname: deploy\ndescription: Deploy the service.\n---\nRun [the script](scripts/deploy.sh).\n",
		"skills/deploy/references/faq.md": "Questions.\n",
		"skills/greet/SKILL.md":           "---\nname: greet\ndescription: Greet someone.\n---\nSay hello.\n",
	})
	if err := os.Chmod(testkit.WriteFile(t, pub, "skills/deploy/scripts/deploy.sh", []byte("#!/bin/sh\necho deployed\n")), 0o755); err != nil {
		t.Fatal(err)
	}
	publish := runIn(t, pub)
	if out := publish(exitOK, "publish", "oci://"+catalog+":1.0"); !strings.Contains(out, "pushed "+catalog+":1.0: 2 skill(s), 0 registry file(s); 2 layer(s) sent") {
		t.Errorf("publish said:\n%s", out)
	}
	if out := publish(exitOK, "publish", "oci://"+catalog+":1.0"); !strings.Contains(out, "0 layer(s) sent, 2 already there") {
		t.Errorf("publishing the same skills again said:\n%s", out)
	}
	publish(exitOK, "reconcile", "--once")

	config := func(tag string) []byte {
		return []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n  targets: [claude-code, agents]\n" +
			"  sources:\n    - name: catalog\n      oci: " + catalog + ":" + tag + "\n      allow: [{finding: executable}]\n")
	}
	var consumers []string
	for range 2 {
		ws := t.TempDir()
		testkit.WriteFile(t, ws, "skillsync.yaml", config("1.0"))
		run := runIn(t, ws)
		if out := run(exitOK, "update", "--yes"); !strings.Contains(out, "source catalog: ") || !strings.Contains(out, "(1.0)") || !strings.Contains(out, "  + deploy") {
			t.Errorf("update said:\n%s", out)
		}
		run(exitOK, "reconcile", "--once")
		for _, target := range []string{".claude/skills", ".agents/skills"} {
			sameContents(t, pub, ws, target, "source catalog (oci "+catalog+", ")
		}
		consumers = append(consumers, ws)
	}
	ws, run := consumers[0], runIn(t, consumers[0])
	lock, _ := os.ReadFile(filepath.Join(ws, "skillsync.lock"))
	if !strings.Contains(string(lock), "oci: "+catalog+":1.0") || !strings.Contains(string(lock), "digest: sha256:") {
		t.Errorf("the lock does not pin the manifest:\n%s", lock)
	}
	if out := run(exitOK, "explain", "deploy"); !strings.Contains(out, "from source catalog (oci "+catalog+":1.0, manifest ") {
		t.Errorf("explain said:\n%s", out)
	}

	// A warm run, and a check offline, ask the registry nothing.
	before := reg.Requests.Load()
	if out := run(exitOK, "reconcile", "--once"); !strings.Contains(out, "nothing to do") {
		t.Errorf("a warm run:\n%s", out)
	}
	run(exitOK, "--offline", "reconcile", "--check")
	if n := reg.Requests.Load() - before; n != 0 {
		t.Errorf("warm runs made %d requests", n)
	}

	// The publisher moves on, to the same tag and a newer one.
	testkit.WriteFile(t, pub, "skills/greet/SKILL.md", []byte("---\nname: greet\ndescription: Greet someone.\n---\nSay hello, twice.\n"))
	publish(exitOK, "publish", "oci://"+catalog+":1.0")
	publish(exitOK, "publish", "oci://"+catalog+":1.1")
	if out := run(exitOK, "reconcile", "--once"); !strings.Contains(out, "nothing to do") {
		t.Errorf("a run followed the moved tag before update:\n%s", out)
	}
	if out := run(exitChanges, "outdated"); !strings.Contains(out, "1.1") || !strings.Contains(out, "1 source(s) outdated") {
		t.Errorf("outdated said:\n%s", out)
	}
	// skillsync.yaml moves to 1.1 before the lock does.
	testkit.WriteFile(t, ws, "skillsync.yaml", config("1.1"))
	snapshot := treeOf(t, ws)
	if out := run(exitInvalid, "reconcile", "--once"); !strings.Contains(out, "skillsync.yaml:7:7: source catalog is not in skillsync.lock as declared here") ||
		!strings.Contains(out, `run "skillsync update catalog"`) {
		t.Errorf("a lock behind skillsync.yaml:\n%s", out)
	}
	if d := diffSnapshots(snapshot, treeOf(t, ws)); d != "" {
		t.Errorf("a run refused for its lock changed the workspace:\n%s", d)
	}
	if out := run(exitOK, "update", "--yes"); !strings.Contains(out, "  ~ greet") {
		t.Errorf("update to 1.1 said:\n%s", out)
	}
	run(exitOK, "reconcile", "--once")
	if data, _ := os.ReadFile(filepath.Join(ws, ".claude/skills/greet/SKILL.md")); !strings.Contains(string(data), "twice") {
		t.Errorf("the skill did not follow the new lock:\n%s", data)
	}

	// The registry is gone and the cache empty: nothing is written or pruned.
	reg.Close()
	if err := os.RemoveAll(os.Getenv("XDG_CACHE_HOME")); err != nil {
		t.Fatal(err)
	}
	other := runIn(t, consumers[1])
	testkit.WriteFile(t, consumers[1], "skillsync.yaml", config("1.1"))
	other(exitInvalid, "reconcile", "--once")
	if out := other(exitFailure, "update", "--yes"); !strings.Contains(out, "source catalog: resolve "+catalog+":1.1") {
		t.Errorf("update with the registry gone:\n%s", out)
	}
	testkit.WriteFile(t, consumers[1], "skillsync.yaml", config("1.0"))
	snapshot = treeOf(t, consumers[1])
	if out := other(exitFailure, "reconcile", "--once"); !strings.Contains(out, "cannot read source catalog") || !strings.Contains(out, "nothing is written or pruned") {
		t.Errorf("a run with the registry gone:\n%s", out)
	}
	if d := diffSnapshots(snapshot, treeOf(t, consumers[1])); d != "" {
		t.Errorf("a run that could not read its source changed the workspace:\n%s", d)
	}
}

func TestPublishNamesOneTarget(t *testing.T) {
	ws := t.TempDir()
	testkit.WriteFile(t, ws, "skillsync.yaml", []byte("apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: []\n"))
	run := runIn(t, ws)
	for args, want := range map[string]string{
		"publish": "publish needs one of --well-known DIR",
		"publish oci://r.example.com/x:1 --well-known d":                  "publish needs one of --well-known DIR",
		"publish oci://r.example.com/x@sha256:" + strings.Repeat("a", 64): "names a digest; publish to a tag",
		"publish oci://R.example.com/X:1":                                 "is not REGISTRY/REPOSITORY:TAG",
		"publish oci://127.0.0.1:1/x:1":                                   "no skill directory and no registry file to publish; nothing was pushed",
	} {
		if out := run(exitInvalid, strings.Fields(args)...); !strings.Contains(out, want) {
			t.Errorf("%s said:\n%s", args, out)
		}
	}
}
