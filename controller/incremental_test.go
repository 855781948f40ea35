package controller

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/health"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
)

// propertyCases is how many steps a property test takes: the count the variable
// env gives, or def, a count that keeps make test quick; make reliability sets
// many more.
func propertyCases(t *testing.T, env string, def int) int {
	if v := os.Getenv(env); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s=%q", env, v)
		}
		return n
	}
	return def
}

// propertySeed is the seed the variable env gives, to explore or to replay a
// failure, or 1: make test runs the same sequence every time, and make
// reliability sets a new seed at each run.
func propertySeed(t *testing.T, env string) uint64 {
	v := os.Getenv(env)
	if v == "" {
		return 1
	}
	seed, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q", env, v)
	}
	return seed
}

// incrementalCases is how many steps the incremental property test takes.
func incrementalCases(t *testing.T) int { return propertyCases(t, "INCREMENTAL_CASES", 200) }

// A watcher's pass, through the caches it keeps and fed with the events real
// inotify delivers, plans exactly what a pass from scratch plans, after every
// step of a random sequence: registry files edited, broken, renamed and deleted,
// the profile switched, the config changed, generated files edited by hand,
// deleted or renamed, skill directories removed, renamed to another case,
// replaced by files or symlinks, temp files and empty directories left, a
// person's skill written, a target directory removed, and passes that apply.
func TestIncrementalAgreesWithFromScratch(t *testing.T) {
	seed := propertySeed(t, "INCREMENTAL_SEED")
	rng := rand.New(rand.NewPCG(seed, seed))
	root := testkit.ExampleWorkspace(t)
	outside := t.TempDir()
	inf := newInformer()
	req := Request{Root: root, informer: inf, history: &settling{}}
	src, sync := watchedBy(t, req)
	check := req
	check.Check = true
	var steps []string
	compare := func(i int) *passScope {
		t.Helper()
		sync()
		out := src.pass(inf, check)
		got := planSummary(out)
		want := planSummary(Reconcile(Request{Root: root, Check: true}))
		if got != want {
			t.Fatalf("after step %d (%s), the watcher's pass plans otherwise than a pass from scratch (replay: INCREMENTAL_SEED=%d INCREMENTAL_CASES=%d)\n"+
				"steps: %s\n--- watcher\n%s\n--- from scratch\n%s", i, steps[len(steps)-1], seed, i+1, strings.Join(steps, "; "), got, want)
		}
		return out.scope
	}
	partial := 0
	for i := range incrementalCases(t) {
		steps = append(steps, step(t, rng, root, outside, func() Outcome { return src.pass(inf, req) }))
		if scope := compare(i); scope != nil && !scope.full {
			partial++
		}
		// The comparison means something only if passes read part of the
		// workspace, which a stretch of invalid inputs keeps from happening: so
		// every so often the workspace is put right, and the pass after a lone
		// edit must be a partial one, whatever the seed.
		if i%probeEvery == probeEvery-1 {
			steps = append(steps, resetWorkspace(t, root))
			compare(i)
			src.pass(inf, req)
			// The pass after one that made directories watches them, and a pass
			// after that finds the watches in place.
			compare(i)
			compare(i)
			data, err := os.ReadFile(filepath.Join(root, "registry/journal.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			testkit.WriteFile(t, root, "registry/journal.yaml", []byte(strings.Replace(string(data), "title: Weekly", fmt.Sprintf("title: Probe %d Weekly", i), 1)))
			steps = append(steps, "retitle registry/journal.yaml")
			if scope := compare(i); scope == nil || scope.full {
				t.Fatalf("after step %d, a lone edit of a workspace put right made a full pass (replay: INCREMENTAL_SEED=%d INCREMENTAL_CASES=%d)\nsteps: %s",
					i, seed, i+1, strings.Join(steps, "; "))
			}
		}
	}
	t.Logf("%d of %d random passes read part of the workspace", partial, incrementalCases(t))
}

// probeEvery is how many random steps the incremental property test takes between
// two that check a pass reads part of the workspace.
const probeEvery = 20

// watchedBy starts a watcher's change source on the workspace of req, feeding
// req's informer, and returns it with a function that returns once every event of
// what was changed before it was called has been noted.
func watchedBy(t *testing.T, req Request) (*changeSource, func()) {
	t.Helper()
	o := WatchOptions{Request: req, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Health: &health.Tracker{}}
	src, err := newChangeSource(o, NewQueue(time.Hour, time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	sentinels := make(chan string, 64)
	src.seen = func(rel string) {
		if strings.HasPrefix(rel, "sentinel-") {
			sentinels <- rel
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	go src.run(ctx)
	t.Cleanup(func() {
		cancel()
		src.close()
	})
	n := 0
	return src, func() {
		// Events come in order: once the sentinel's has come, every earlier one has.
		n++
		name := fmt.Sprintf("sentinel-%d", n)
		testkit.WriteFile(t, req.Root, name, nil)
		deadline := time.After(30 * time.Second)
		for {
			select {
			case got := <-sentinels:
				if got == name {
					os.Remove(filepath.Join(req.Root, name))
					return
				}
			case <-deadline:
				t.Fatalf("no event for %s", name)
			}
		}
	}
}

// step changes the workspace at random, or applies a pass, and says what it did.
func step(t *testing.T, rng *rand.Rand, root, outside string, apply func() Outcome) string {
	t.Helper()
	at := func(rel string) string { return filepath.Join(root, rel) }
	// What is in the way (a file where a directory was) makes a write fail: the
	// step then changes nothing, as a person's editor would.
	write := func(rel, content string) {
		if os.MkdirAll(filepath.Dir(at(rel)), 0o755) == nil {
			os.WriteFile(at(rel), []byte(content), 0o644)
		}
	}
	pick := func(options ...string) string { return options[rng.IntN(len(options))] }
	file := pick("registry/intents.yaml", "registry/journal.yaml", "registry/extra.yaml")
	target := pick(".claude/skills", ".agents/skills", ".qwen/skills")
	skill := pick("intent", "note", "weekly-report", "extra", "find-intent")
	switch rng.IntN(24) {
	case 0, 1, 2:
		out := apply()
		return fmt.Sprintf("apply (%d applied, err %v)", len(out.Applied), out.Err)
	case 3:
		fixture := pick("registry/intents.yaml", "registry/journal.yaml", "registry/skills.yaml", registry.ConfigName)
		data, err := os.ReadFile(testkit.Fixture("example/" + fixture))
		if err != nil {
			t.Fatal(err)
		}
		write(fixture, string(data))
		os.Remove(at("registry/extra.yaml"))
		return "restore " + fixture
	case 4:
		data, _ := os.ReadFile(at(file))
		write(file, strings.Replace(string(data), "title: ", fmt.Sprintf("title: Retitled %d ", rng.IntN(3)), 1))
		return "retitle " + file
	case 5:
		data, _ := os.ReadFile(at(file))
		write(file, strings.Replace(string(data), "effect: read", "effect: write", 1))
		return "effect " + file
	case 6:
		data, _ := os.ReadFile(at(file))
		write(file, strings.Replace(string(data), "alias: ", "alias: x", 1))
		return "realias " + file
	case 7:
		os.Remove(at(file))
		return "delete " + file
	case 8:
		to := pick("registry/intents.yaml", "registry/journal.yaml", "registry/extra.yaml")
		os.Rename(at(file), at(to))
		return "rename " + file + " " + to
	case 9:
		alias := pick("note", "intent", "extra", "weekly-report", "other")
		write("registry/extra.yaml", "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: extra.cap}\nspec:\n  title: Extra\n  effect: read\n"+
			"  input: {type: object, properties: {text: {type: string}}, required: [text]}\n  mcp: {tool: extra}\n  skill: {alias: "+alias+", argument: text}\n")
		return "extra as " + alias
	case 10:
		profile := pick("cli", "web-shell", "cli", "web-shell", "undeclared")
		write(".skillsync/profile", profile+"\n")
		return "profile " + profile
	case 11:
		targets := pick("[claude-code]", "[claude-code, qwen-code, agents]", "[agents]")
		data, _ := os.ReadFile(at(registry.ConfigName))
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "  targets:") {
				lines[i] = "  targets: " + targets
			}
		}
		write(registry.ConfigName, strings.Join(lines, "\n"))
		return "targets " + targets
	case 12:
		rel := target + "/" + skill + "/SKILL.md"
		if data, err := os.ReadFile(at(rel)); err == nil {
			write(rel, string(data)+"edited by hand\n")
			return "hand edit " + rel
		}
		write(rel, "---\nname: "+skill+"\ndescription: mine\n---\nMine.\n")
		return "person's skill " + rel
	case 13:
		rel := target + "/" + skill + "/SKILL.md"
		os.Remove(at(rel))
		return "remove " + rel
	case 14:
		rel := target + "/" + skill
		os.RemoveAll(at(rel))
		return "remove directory " + rel
	case 15:
		from, to := target+"/"+skill, target+"/"+pick(strings.ToUpper(skill[:1])+skill[1:], skill+"-moved", "note")
		os.Rename(at(from), at(to))
		return "move " + from + " " + to
	case 16:
		rel := target + "/" + skill + "/" + banner.NewTempName()
		os.MkdirAll(filepath.Dir(at(rel)), 0o755)
		write(rel, "---\n")
		return "temp file " + rel
	case 17:
		rel := target + "/" + pick("empty", skill)
		os.MkdirAll(at(rel), 0o755)
		return "directory " + rel
	case 18:
		rel := target + "/" + pick("away", skill)
		os.RemoveAll(at(rel))
		if err := os.Symlink(pick(outside, "../../registry"), at(rel)); err != nil {
			return "no symlink " + rel
		}
		return "symlink " + rel
	case 19:
		rel := target + "/" + skill
		os.RemoveAll(at(rel))
		write(rel, "a file where a skill directory goes\n")
		return "file " + rel
	case 20:
		rel := target + "/" + skill + "/skill.md"
		os.Remove(at(target + "/" + skill + "/SKILL.md"))
		write(rel, "---\nname: "+skill+"\n---\nlower case\n")
		return "lower-case " + rel
	case 21:
		for _, rel := range []string{target + "/away", target + "/empty", target + "/Intent", target + "/Note"} {
			os.RemoveAll(at(rel))
		}
		return "tidy " + target
	case 22:
		os.RemoveAll(at(filepath.Dir(target)))
		return "remove " + filepath.Dir(target)
	}
	out := apply()
	return fmt.Sprintf("apply (%d applied, err %v)", len(out.Applied), out.Err)
}

// planSummary is what a pass found and planned, as text to compare.
func planSummary(out Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "err: %v\nproblems: %v\nrefused: %q\n", out.Err, out.Problems, out.Plan.Refused)
	for _, c := range out.Plan.Changes {
		content, err := c.Content()
		if c.Action == plan.Conflict || c.Action == plan.Delete {
			content, err = nil, nil
		}
		fmt.Fprintf(&b, "%s %s %s %q old %x new %x %v %v %v\n", c.Action, c.Path, c.Owner, c.Reason, c.OldSum[:4], sha256.Sum256(content), err, c.Obstruction, c.Override)
	}
	fmt.Fprintf(&b, "in sync: %v\n", out.Plan.InSync)
	for _, w := range out.Withheld {
		fmt.Fprintf(&b, "withheld %s %s %s: %s %v\n", w.Skill, w.Owner, w.Target, w.Reason, w.HandWritten)
	}
	fmt.Fprintf(&b, "hand-written: %v\n", out.HandWritten)
	return b.String()
}
