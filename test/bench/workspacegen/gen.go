package workspacegen

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PerFile is how many capabilities one registry file declares; a benchmark's
// -per-file flag sets it before any workspace is written.
var PerFile = 50

var (
	verbs = []string{"propose", "search", "list", "withdraw", "summarize", "export", "archive", "approve", "assign", "estimate", "rename", "schedule"}
	nouns = []string{"intent", "invoice", "deployment", "incident", "release", "ticket", "runbook", "dataset", "contract", "meeting", "budget", "alert", "report", "review", "backlog"}
	areas = []string{"billing", "infra", "support", "sales", "legal", "data", "people", "security"}
	props = []struct{ name, schema string }{
		{"statement", "{type: string, description: What to do, in one sentence.}"},
		{"query", "{type: string}"},
		{"reference", "{type: string, description: An id such as INC-1042.}"},
		{"limit", "{type: integer, minimum: 1, maximum: 500}"},
		{"tags", "{type: array, items: {type: string}}"},
		{"due", "{type: string, format: date}"},
		{"dryRun", "{type: boolean}"},
	}
	effects = []string{"read", "read", "write", "destructive"}
)

// Capability i's identity: its registry name, its skill alias and its title.
func Capability(i int) (name, alias, title string) {
	verb, noun, area := verbs[i%len(verbs)], nouns[(i/len(verbs))%len(nouns)], areas[i%len(areas)]
	alias = fmt.Sprintf("%s-%s-%d", verb, noun, i)
	name = fmt.Sprintf("%s.%s-%s-%d", area, verb, noun, i)
	title = fmt.Sprintf("%s%s %s for %s (#%d)", strings.ToUpper(verb[:1]), verb[1:], an(noun), area, i)
	return name, alias, title
}

func an(noun string) string {
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// File is the registry file, relative to the workspace, that declares capability i.
func File(i int) string { return fmt.Sprintf("registry/caps-%04d.yaml", i/PerFile) }

// Workflows is how many workflow skills a workspace of n capabilities declares.
func Workflows(n int) int { return max(1, n/100) }

// Files is the number of files a workspace of n capabilities generates: a SKILL.md
// per skill and target, and Codex's policy file in .agents/skills beside each skill
// kept from the model.
func Files(n int) int {
	hidden := 0
	for i := range n {
		if effects[i%len(effects)] != "read" {
			hidden++
		}
	}
	return 3*(n+Workflows(n)) + hidden
}

// Write creates the workspace of n capabilities in dir, which need not exist.
// retitle, when not nil, changes the title of the capabilities it holds; drop
// leaves capabilities out.
func Write(dir string, n int, retitle map[int]string, drop map[int]bool) error {
	if err := os.MkdirAll(filepath.Join(dir, "registry"), 0o755); err != nil {
		return err
	}
	config := "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n" +
		"  targets: [claude-code, qwen-code, agents]\n  mcp: {server: majordomus}\n"
	if err := os.WriteFile(filepath.Join(dir, "skillsync.yaml"), []byte(config), 0o644); err != nil {
		return err
	}
	for first := 0; first < n; first += PerFile {
		var b strings.Builder
		for i := first; i < min(first+PerFile, n); i++ {
			if !drop[i] {
				writeCapability(&b, i, retitle[i])
			}
		}
		file := filepath.Join(dir, File(first))
		if b.Len() == 0 {
			// Every capability of the file dropped: a person deletes the file (an
			// emptied one reads as a save cut short).
			if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	var b strings.Builder
	for w := 0; w < Workflows(n); w++ {
		writeWorkflow(&b, w, n)
	}
	return os.WriteFile(filepath.Join(dir, "registry/workflows.yaml"), []byte(b.String()), 0o644)
}

func writeCapability(b *strings.Builder, i int, title string) {
	name, alias, defaultTitle := Capability(i)
	if title == "" {
		title = defaultTitle
	}
	first := props[i%3] // the argument: a string property
	fmt.Fprintf(b, "---\napiVersion: skillsync/v1\nkind: Capability\nmetadata: {name: %s}\nspec:\n  title: %q\n  effect: %s\n", name, title, effects[i%len(effects)])
	fmt.Fprintf(b, "  input:\n    type: object\n    properties:\n")
	fmt.Fprintf(b, "      %s: %s\n", first.name, first.schema)
	for k := 0; k < i%4; k++ {
		p := props[3+(i+k)%(len(props)-3)]
		fmt.Fprintf(b, "      %s: %s\n", p.name, p.schema)
	}
	fmt.Fprintf(b, "    required: [%s]\n", first.name)
	fmt.Fprintf(b, "  mcp: {tool: %s}\n", strings.NewReplacer(".", "_", "-", "_").Replace(name))
	if i%3 == 0 {
		fmt.Fprintf(b, "  cli: {command: [majordomus, %s], flag: --%s}\n", alias, first.name)
	}
	fmt.Fprintf(b, "  skill: {alias: %s, argument: %s}\n", alias, first.name)
}

func writeWorkflow(b *strings.Builder, w, n int) {
	var uses []string
	for k := 0; k < 3; k++ {
		_, alias, _ := Capability((w*97 + k*31) % n)
		uses = append(uses, "/"+alias)
	}
	fmt.Fprintf(b, "---\napiVersion: skillsync/v1\nkind: Skill\nmetadata: {name: weekly-review-%d}\nspec:\n", w)
	fmt.Fprintf(b, "  description: Walk through the week's open items and draft the review (%d).\n", w)
	fmt.Fprintf(b, "  body: |\n")
	fmt.Fprintf(b, "    # Weekly review %d\n\n    1. List what is open with the skills below.\n    2. Summarize by area; flag anything overdue.\n    3. Draft the review as a short markdown report.\n\n", w)
	for _, u := range uses {
		fmt.Fprintf(b, "    - %s\n", u)
	}
}
