package controller

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/desired/registry"
)

// incrementalCases is how many steps the incremental property test takes:
// INCREMENTAL_CASES, or a count that keeps make test quick; make reliability
// takes many more.
func incrementalCases(t *testing.T) int {
	if v := os.Getenv("INCREMENTAL_CASES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("INCREMENTAL_CASES=%q", v)
		}
		return n
	}
	return 150
}

// A pass through the cache of decoded registry files a watcher keeps from pass
// to pass plans exactly what a pass from scratch plans, after every step of a
// random sequence: registry files edited, broken, renamed and deleted, the
// profile switched, the config changed, generated files edited by hand or
// deleted, a person's skill written, and passes that apply.
func TestIncrementalAgreesWithFromScratch(t *testing.T) {
	seed := rand.Uint64()
	if v := os.Getenv("INCREMENTAL_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	root := exampleWorkspace(t)
	cached := Request{Root: root, decoded: &registry.Cache{}}
	var steps []string
	for i := range incrementalCases(t) {
		steps = append(steps, step(t, rng, root, cached))
		check := cached
		check.Check = true
		got := planSummary(Reconcile(check))
		want := planSummary(Reconcile(Request{Root: root, Check: true}))
		if got != want {
			t.Fatalf("after step %d (%s), the cached pass plans otherwise than a pass from scratch (replay: INCREMENTAL_SEED=%d INCREMENTAL_CASES=%d)\n"+
				"steps: %s\n--- cached\n%s\n--- from scratch\n%s", i, steps[i], seed, i+1, strings.Join(steps, "; "), got, want)
		}
	}
}

// step changes the workspace at random, or applies a pass through the caches,
// and says what it did.
func step(t *testing.T, rng *rand.Rand, root string, cached Request) string {
	t.Helper()
	write := func(rel, content string) {
		writeFile(t, root, rel, []byte(content))
	}
	file := []string{"registry/intents.yaml", "registry/journal.yaml", "registry/extra.yaml"}[rng.IntN(3)]
	switch rng.IntN(13) {
	case 11, 12:
		fixture := []string{"registry/intents.yaml", "registry/journal.yaml", "registry/skills.yaml", registry.ConfigName}[rng.IntN(4)]
		data, err := os.ReadFile(filepath.Join("../fixtures/example", fixture))
		if err != nil {
			t.Fatal(err)
		}
		write(fixture, string(data))
		os.Remove(filepath.Join(root, "registry/extra.yaml"))
		return "restore " + fixture
	case 0, 1:
		out := Reconcile(cached)
		return fmt.Sprintf("apply (%d applied, err %v)", len(out.Applied), out.Err)
	case 2:
		data, _ := os.ReadFile(filepath.Join(root, file))
		write(file, strings.Replace(string(data), "title: ", fmt.Sprintf("title: Retitled %d ", rng.IntN(3)), 1))
		return "retitle " + file
	case 3:
		data, _ := os.ReadFile(filepath.Join(root, file))
		write(file, strings.Replace(string(data), "effect: read", "effect: write", 1))
		return "effect " + file
	case 4:
		os.Remove(filepath.Join(root, file))
		return "delete " + file
	case 5:
		to := []string{"registry/intents.yaml", "registry/journal.yaml", "registry/extra.yaml"}[rng.IntN(3)]
		os.Rename(filepath.Join(root, file), filepath.Join(root, to))
		return "rename " + file + " " + to
	case 6:
		alias := []string{"note", "intent", "extra", "weekly-report"}[rng.IntN(4)]
		write("registry/extra.yaml", "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: extra.cap}\nspec:\n  title: Extra\n  effect: read\n"+
			"  input: {type: object, properties: {text: {type: string}}, required: [text]}\n  mcp: {tool: extra}\n  skill: {alias: "+alias+", argument: text}\n")
		return "extra as " + alias
	case 7:
		profile := []string{"cli", "web-shell", "cli", "web-shell", "undeclared"}[rng.IntN(5)]
		write(".skillsync/profile", profile+"\n")
		return "profile " + profile
	case 8:
		targets := []string{"[claude-code]", "[claude-code, qwen-code, agents]", "[agents]"}[rng.IntN(3)]
		data, _ := os.ReadFile(filepath.Join(root, registry.ConfigName))
		lines := strings.Split(string(data), "\n")
		server := []string{"majordomus", "butler"}[rng.IntN(2)]
		for i, l := range lines {
			switch {
			case strings.HasPrefix(l, "  targets:"):
				lines[i] = "  targets: " + targets
			case strings.HasPrefix(l, "  mcp:"):
				lines[i] = "  mcp: {server: " + server + "}"
			}
		}
		write(registry.ConfigName, strings.Join(lines, "\n"))
		return "targets " + targets + ", server " + server
	case 9:
		skill := []string{".claude/skills/intent/SKILL.md", ".agents/skills/note/SKILL.md", ".qwen/skills/weekly-report/SKILL.md"}[rng.IntN(3)]
		if data, err := os.ReadFile(filepath.Join(root, skill)); err == nil {
			write(skill, string(data)+"edited by hand\n")
			return "hand edit " + skill
		}
		write(skill, "---\nname: "+filepath.Base(filepath.Dir(skill))+"\ndescription: mine\n---\nMine.\n")
		return "person's skill " + skill
	}
	skill := []string{".claude/skills/intent/SKILL.md", ".agents/skills/note/SKILL.md"}[rng.IntN(2)]
	os.Remove(filepath.Join(root, skill))
	return "remove " + skill
}

// planSummary is what a pass found and planned, as text to compare.
func planSummary(out Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "err: %v\nproblems: %v\nrefused: %q\n", out.Err, out.Problems, out.Plan.Refused)
	for _, c := range out.Plan.Changes {
		content, err := c.Content()
		if c.Action == Conflict || c.Action == Delete {
			content, err = nil, nil
		}
		fmt.Fprintf(&b, "%s %s %s %q old %x new %x %v\n", c.Action, c.Path, c.Owner, c.Reason, c.OldSum[:4], sha256.Sum256(content), err)
	}
	fmt.Fprintf(&b, "in sync: %v\n", out.Plan.InSync)
	for _, w := range out.Withheld {
		fmt.Fprintf(&b, "withheld %s %s: %s\n", w.Skill, w.Target, w.Reason)
	}
	return b.String()
}
