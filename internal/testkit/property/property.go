package property

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/testkit/documents"
)

// ProbeEvery is how many random steps a property test takes between two that
// put the workspace right and check what a pass over it does.
const ProbeEvery = 20

// Cases is how many steps a property test takes: the count the variable
// env gives, or def, a count that keeps make test quick; make reliability sets
// many more.
func Cases(t testing.TB, env string, def int) int {
	if v := os.Getenv(env); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s=%q", env, v)
		}
		return n
	}
	return def
}

// Seed is the seed the variable env gives, to explore or to replay a
// failure, or 1: make test runs the same sequence every time, and make
// reliability sets a new seed at each run.
func Seed(t testing.TB, env string) uint64 {
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

// RandomStep changes the workspace at random, or applies a pass (apply, which
// returns how many changes it applied and its error), and says what it did.
func RandomStep(t testing.TB, rng *rand.Rand, root, outside string, apply func() (applied int, err error)) string {
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
	switch rng.IntN(28) {
	case 0, 1, 2:
		applied, err := apply()
		return fmt.Sprintf("apply (%d applied, err %v)", applied, err)
	case 3:
		fixture := pick("registry/intents.yaml", "registry/journal.yaml", "registry/skills.yaml", "skillsync.yaml")
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
		write("registry/extra.yaml", capability("extra.cap", "Extra", "extra", alias))
		return "extra as " + alias
	case 10:
		profile := pick("cli", "web-shell", "cli", "web-shell", "undeclared")
		write(".skillsync/profile", profile+"\n")
		return "profile " + profile
	case 11:
		targets := pick("[claude-code]", "[claude-code, qwen-code, agents]", "[agents]")
		data, _ := os.ReadFile(at("skillsync.yaml"))
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "  targets:") {
				lines[i] = "  targets: " + targets
			}
		}
		write("skillsync.yaml", strings.Join(lines, "\n"))
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
	case 23:
		if pick("git", "mode") == "mode" {
			mode := pick("commit", "ignore")
			data, _ := os.ReadFile(at("skillsync.yaml"))
			// Inserted at the top of spec, not appended: the example's file is then
			// no prefix of it, which would look like a save cut off.
			lines := slices.DeleteFunc(strings.Split(string(data), "\n"), func(l string) bool { return strings.HasPrefix(l, "  generatedFiles:") })
			if at := slices.Index(lines, "spec:"); at >= 0 {
				lines = slices.Insert(lines, at+1, "  generatedFiles: "+mode)
			}
			write("skillsync.yaml", strings.Join(lines, "\n"))
			return "generated files " + mode
		}
		if os.Remove(at(".git")) == nil {
			return "out of git"
		}
		os.Mkdir(at(".git"), 0o755)
		return "into git"
	case 24:
		rel := target + "/" + pick(".gitignore", ".gitattributes")
		switch pick("person", "edit", "remove", "directory") {
		case "person":
			os.Remove(at(rel))
			write(rel, "/mine\n")
			return "person's " + rel
		case "edit":
			if data, err := os.ReadFile(at(rel)); err == nil {
				write(rel, string(data)+"/edited\n")
				return "hand edit " + rel
			}
			return "no " + rel
		case "remove":
			os.RemoveAll(at(rel))
			return "remove " + rel
		}
		os.RemoveAll(at(rel))
		os.MkdirAll(at(rel), 0o755)
		return "directory " + rel
	case 25:
		return skillDirStep(rng, root, target, write, pick)
	case 26:
		// The other documents kept: one added, one removed, two swapped, or one
		// split by a stray ---.
		data, err := os.ReadFile(at(file))
		if err != nil {
			return "no " + file
		}
		content, how := documents.Edit(rng, string(data), func() string {
			alias := pick("note", "intent", "extra", "weekly-report", "other")
			return capability("added."+alias, "Added", "added", alias)
		})
		write(file, content)
		return how + " of " + file
	}
	applied, err := apply()
	return fmt.Sprintf("apply (%d applied, err %v)", applied, err)
}

// capability is a registry document declaring the capability id, titled title,
// reached through the MCP tool tool, with a skill of the alias that takes one
// text argument.
func capability(id, title, tool, alias string) string {
	return "apiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: " + id + "}\nspec:\n  title: " + title + "\n  effect: read\n" +
		"  input: {type: object, properties: {text: {type: string}}, required: [text]}\n  mcp: {tool: " + tool + "}\n  skill: {alias: " + alias + ", argument: text}\n"
}

// skillDirStep changes a whole skill directory, kit, declared by
// registry/dir-kit.yaml: its source (declared, a file edited, added, removed or
// made executable) or its generated copy in target (a supporting file edited or
// removed, a person's file beside it).
func skillDirStep(rng *rand.Rand, root, target string, write func(rel, content string), pick func(...string) string) string {
	at := func(rel string) string { return filepath.Join(root, rel) }
	switch pick("declare", "edit", "add", "remove", "chmod", "edit copy", "remove copy", "person's") {
	case "declare":
		write("registry/dir-kit.yaml", "apiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: kit}\nspec:\n  dir: ../kit\n")
		write("kit/SKILL.md", "---\nname: kit\ndescription: A kit of files.\n---\nSee [the reference](ref.md).\n")
		write("kit/ref.md", "reference\n")
		write("kit/scripts/run.sh", "#!/bin/sh\necho run\n")
		return "declare kit"
	case "edit":
		write("kit/ref.md", fmt.Sprintf("reference %d\n", rng.IntN(3)))
		return "edit kit/ref.md"
	case "add":
		write("kit/"+pick("notes.md", "scripts/more.sh", "assets/a.bin"), fmt.Sprintf("added %d\n", rng.IntN(3)))
		return "add to kit"
	case "remove":
		rel := "kit/" + pick("notes.md", "scripts/more.sh", "assets", "scripts")
		os.RemoveAll(at(rel))
		return "remove " + rel
	case "chmod":
		rel := "kit/" + pick("ref.md", "scripts/run.sh")
		os.Chmod(at(rel), os.FileMode(0o644|0o111*rng.IntN(2)))
		return "chmod " + rel
	case "edit copy":
		rel := target + "/kit/" + pick("ref.md", "scripts/run.sh")
		if data, err := os.ReadFile(at(rel)); err == nil {
			write(rel, string(data)+"edited by hand\n")
		}
		return "hand edit " + rel
	case "remove copy":
		rel := target + "/kit/" + pick("ref.md", "scripts", "notes.md")
		os.RemoveAll(at(rel))
		return "remove " + rel
	}
	rel := target + "/kit/" + pick("mine.md", "notes.md", "scripts/mine.sh")
	write(rel, "a person's\n")
	return "person's " + rel
}

// ResetWorkspace puts the example's inputs back and takes away what the steps
// leave that keeps a pass from finishing (symlinks out, files and directories in
// the way), as a person fixing a workspace would.
func ResetWorkspace(t testing.TB, root string) string {
	t.Helper()
	for _, f := range []string{"registry/intents.yaml", "registry/journal.yaml", "registry/skills.yaml", "registry/profiles.yaml", "skillsync.yaml"} {
		data, err := os.ReadFile(testkit.Fixture("example/" + f))
		if err != nil {
			t.Fatal(err)
		}
		testkit.WriteFile(t, root, f, data)
	}
	os.Remove(filepath.Join(root, "registry/extra.yaml"))
	os.Remove(filepath.Join(root, ".skillsync/profile"))
	for _, target := range []string{".claude/skills", ".agents/skills", ".qwen/skills"} {
		entries, _ := os.ReadDir(filepath.Join(root, target))
		for _, e := range entries {
			if !e.IsDir() || e.Name() == "empty" || strings.ToLower(e.Name()) != e.Name() {
				os.RemoveAll(filepath.Join(root, target, e.Name()))
			}
		}
	}
	return "reset"
}
