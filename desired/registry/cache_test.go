package registry

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/testkit/documents"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// cacheCases is how many edits the cache property test makes: CACHE_CASES, or a
// count that keeps make test quick; make reliability runs many more.
func cacheCases(t *testing.T) int {
	if v := os.Getenv("CACHE_CASES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("CACHE_CASES=%q", v)
		}
		return n
	}
	return 300
}

// A load through a cache kept from load to load gives what a load without one
// gives, after every edit of a random sequence: files written, rewritten with the
// same bytes, broken, renamed and deleted, one document of a file changed, added,
// removed, swapped with another or split by a stray ---, bodyFiles changed, the
// config changed.
func TestCacheProperty(t *testing.T) {
	cacheAgrees(t, &Cache{}, false)
}

// A cache that trusts the changes it is told of, told of each as a watcher is,
// gives what a load without one gives after every edit, though it reads only the
// files it was told changed.
func TestTrustedCacheProperty(t *testing.T) {
	cache := &Cache{}
	cache.TrustChanges()
	cacheAgrees(t, cache, true)
}

// cacheAgrees edits a workspace at random and compares every load through cache
// with a fresh one; told says the cache is told of each change.
func cacheAgrees(t *testing.T, cache *Cache, told bool) {
	// make test runs the same sequence every time; make reliability sets a new
	// seed at each run.
	seed := uint64(1)
	if v := os.Getenv("CACHE_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("CACHE_SEED=%q", v)
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	root := t.TempDir()
	write := func(rel, content string) {
		full := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	changed := func(string, bool) {}
	if told {
		changed = cache.Changed
	}
	write(ConfigName, workspaceConfig(rng))
	write("registry/profiles.yaml", "apiVersion: skillsync/v1\nkind: Profile\nmetadata: {name: cli}\nspec: {capabilities: [terminal.ansi]}\n")
	var ops []string
	listed := 0
	load := func(i int) {
		t.Helper()
		fresh, freshErr := Load(workspacefs.OS{}, root)
		cached, cachedErr := LoadCached(workspacefs.OS{}, root, cache)
		if got, want := summarize(cached, cachedErr), summarize(fresh, freshErr); got != want {
			t.Fatalf("after edit %d (%s), the cached load differs from a fresh one (replay: CACHE_SEED=%d CACHE_CASES=%d)\n"+
				"edits: %s\n--- cached\n%s\n--- fresh\n%s", i, ops[len(ops)-1], seed, i+1, strings.Join(ops, "; "), got, want)
		}
	}
	for i := range cacheCases(t) {
		ops = append(ops, edit(rng, root, write, changed))
		if cache.listing != nil {
			listed++
		}
		load(i)
		// A cache told of each change keeps what the globs matched across an edit
		// of a file they matched: every so often, whatever the seed, one such edit
		// must find the listing kept.
		if told && i%10 == 9 {
			write("registry/r0.yaml", document1(rng))
			changed("registry/r0.yaml", false)
			load(i)
			write("registry/r0.yaml", document1(rng))
			changed("registry/r0.yaml", false)
			ops = append(ops, "rewrite registry/r0.yaml")
			if cache.listing == nil {
				t.Fatalf("after edit %d, an edit of a file the globs matched voided the listing (replay: CACHE_SEED=%d CACHE_CASES=%d)\nedits: %s",
					i, seed, i+1, strings.Join(ops, "; "))
			}
			load(i)
		}
	}
	if told {
		t.Logf("%d of %d loads took the files as they were", listed, cacheCases(t))
	}
}

func workspaceConfig(rng *rand.Rand) string {
	profile := ""
	if rng.IntN(4) > 0 {
		profile = "  profile: cli\n"
	}
	return "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n  mcp: {server: tools}\n" + profile
}

// edit changes the workspace at random and says how; changed is told each path
// it changed, as a file event would tell it.
func edit(rng *rand.Rand, root string, write func(rel, content string), changed func(rel string, removed bool)) string {
	file := fmt.Sprintf("registry/r%d.yaml", rng.IntN(6))
	written := write
	write = func(rel, content string) {
		written(rel, content)
		changed(rel, false)
	}
	switch rng.IntN(12) {
	case 0:
		os.Remove(filepath.Join(root, file))
		changed(file, true)
		return "delete " + file
	case 1:
		to := fmt.Sprintf("registry/r%d.yaml", rng.IntN(6))
		os.Rename(filepath.Join(root, file), filepath.Join(root, to))
		changed(file, true)
		changed(to, false)
		return "rename " + file + " " + to
	case 2:
		body := fmt.Sprintf("Body %d.\n", rng.IntN(3))
		write("bodies/b.md", body)
		return "body " + strconv.Quote(body)
	case 3:
		data, _ := os.ReadFile(filepath.Join(root, file))
		write(file, string(data))
		return "same bytes " + file
	case 4:
		write(ConfigName, workspaceConfig(rng))
		return "config"
	case 5:
		// One document of several changed, the others kept: a watcher's save.
		data, _ := os.ReadFile(filepath.Join(root, file))
		docs := strings.Split(string(data), "---\n")
		docs[rng.IntN(len(docs))] = document1(rng)
		content := strings.Join(docs, "---\n")
		write(file, content)
		return "edit one document of " + file + " " + strconv.Quote(content)
	case 6:
		// Every document moved down a line, none changed.
		data, _ := os.ReadFile(filepath.Join(root, file))
		write(file, "# moved\n"+string(data))
		return "move the documents of " + file + " down"
	case 7, 8:
		// The others kept: a document added, removed, two swapped, or one split
		// by a stray ---.
		data, _ := os.ReadFile(filepath.Join(root, file))
		content, how := documents.Edit(rng, string(data), func() string { return document1(rng) })
		write(file, content)
		return how + " of " + file + " " + strconv.Quote(content)
	}
	var docs []string
	for range 1 + rng.IntN(3) {
		docs = append(docs, document1(rng))
	}
	content := strings.Join(docs, "---\n")
	write(file, content)
	return "write " + file + " " + strconv.Quote(content)
}

// document1 is one registry document, valid or not in one of the ways people
// get them wrong.
func document1(rng *rand.Rand) string {
	alias := []string{"intent", "note", "report", "help", "con"}[rng.IntN(5)]
	id := fmt.Sprintf("tools.c%d", rng.IntN(5))
	switch rng.IntN(10) {
	case 8:
		// Checked against what the profiles announce, which other files declare.
		return fmt.Sprintf("apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: %s}\nspec: {description: Charts, body: \"Draw.\", requiredCapabilities: [chart.svg]}\n", alias)
	case 9:
		// Several problems at one place, and a claim after them.
		return fmt.Sprintf("apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: %s}\nspec:\n  title: \"Two\\nlines\"\n  effect: read\n"+
			"  input: {type: object, properties: {text: {type: integer}}, required: [text, other]}\n  cli: {command: [\"a b\", \"\"]}\n  skill: {alias: %s, argument: text}\n", id, alias)
	case 0:
		return fmt.Sprintf("apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: %s}\nspec: {description: A skill, body: \"Do it.\"}\n", alias)
	case 1:
		return fmt.Sprintf("apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: %s}\nspec: {description: From a file, bodyFile: ../bodies/b.md}\n", alias)
	case 2:
		return "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: broken\n"
	case 3:
		return fmt.Sprintf("apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: %s}\nspec: {title: T, effect: maybe, unknown: 1}\n", id)
	case 4:
		return "apiVersion: skillsync/v1\nkind: Gadget\nmetadata: {name: g}\n"
	case 5:
		return fmt.Sprintf("apiVersion: skillsync/v1\nkind: Profile\nmetadata: {name: p%d}\nspec: {capabilities: [chart.svg]}\n", rng.IntN(3))
	}
	return fmt.Sprintf("apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: %s}\nspec:\n  title: Title %d\n  effect: %s\n"+
		"  input: {type: object, properties: {text: {type: string}}, required: [text]}\n  mcp: {tool: t%d}\n  skill: {alias: %s, argument: text}\n",
		id, rng.IntN(3), []string{"read", "write", "destructive"}[rng.IntN(3)], rng.IntN(3), alias)
}

// summarize is everything a load gave, as text to compare.
func summarize(reg *Registry, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "error: %v\n", err)
	if reg == nil {
		return b.String()
	}
	spec := func(v any) string { data, _ := json.Marshal(v); return string(data) }
	fmt.Fprintf(&b, "files: %v\nsources: %v\n", reg.Files, reg.Sources)
	for _, c := range reg.Capabilities {
		fmt.Fprintf(&b, "capability %s at %s: %s\n", c.ID, c.Pos(), spec(c.Spec))
	}
	for _, s := range reg.Skills {
		fmt.Fprintf(&b, "skill %s at %s: %s body %q from %q\n", s.Name, s.Pos(), spec(s.Spec), s.Body, s.BodyPath)
	}
	for _, p := range reg.Profiles {
		fmt.Fprintf(&b, "profile %s: %s\n", p.Name, spec(p.Spec))
	}
	return b.String()
}
