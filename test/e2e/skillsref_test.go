//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/testkit"
)

// The Agent Skills specification's reference validator, pinned; E2E_SKILLS_REF_VERSION
// checks another.
const skillsRefVersion = "0.1.5"

// unexpectedFields is how skills-ref names the front matter keys outside the
// specification.
var unexpectedFields = regexp.MustCompile(`^\s*- Unexpected fields in frontmatter: ([^.]+)\. Only .* are allowed\.$`)

// TestReferenceValidator runs the specification's own validator, skills-ref from
// npm, over every skill directory skillsync generates for every target. A
// directory passes, or the validator's one complaint is keys outside the
// specification that the client table says a client reading that directory
// needs (clients.Format.Keys: disable-model-invocation keeps a write skill
// manual-only, argument-hint shows what to type); any other complaint, or a key
// the table does not name, fails. With spec.frontMatter: strict every directory
// passes.
func TestReferenceValidator(t *testing.T) {
	prefix := npmInstall(t, "skills-ref", envOr("E2E_SKILLS_REF_VERSION", skillsRefVersion))
	cli := filepath.Join(prefix, "node_modules", "skills-ref", "dist", "cli.js")
	for _, frontMatter := range []string{"clients", "strict"} {
		t.Run(frontMatter, func(t *testing.T) { validateGenerated(t, cli, frontMatter) })
	}
}

// validateGenerated reconciles the example, and a skill carrying every optional
// key of the specification, into every target, with spec.frontMatter as given,
// and runs skills-ref over each skill directory
// written: with strict front matter each must pass; otherwise a refusal may
// only name keys the client table says a reader of that directory needs.
func validateGenerated(t *testing.T, cli, frontMatter string) {
	ws := testkit.ExampleWorkspace(t)
	config := filepath.Join(ws, "skillsync.yaml")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	all := "[" + strings.Join(clients.TargetNames(), ", ") + "]"
	// Every target, and write skills also where no client can keep them manual:
	// every skill in every directory.
	edited := strings.Replace(string(data), "[claude-code, qwen-code, agents]", all, 1) +
		"  unguardedClients: allow\n  frontMatter: " + frontMatter + "\n"
	if err := os.WriteFile(config, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	// A skill with every optional key of the specification, which every
	// directory takes.
	testkit.WriteFile(t, ws, "registry/spec-keys.yaml", []byte(`apiVersion: skillsync/v1
kind: Skill
metadata: {name: spec-keys}
spec:
  description: Uses every optional key of the specification.
  license: Apache-2.0
  compatibility: Needs git and network access
  metadata: {team: release, "yes": "no"}
  allowedTools: Bash(git:*) Read
  body: Do it.
`))
	runSkillsync(t, ws, "--profile", "web-shell", "reconcile", "--once")
	checked, extra := 0, map[string][]string{}
	for _, target := range clients.Targets {
		format, _ := clients.FormatOf(target.Name)
		entries, _ := os.ReadDir(filepath.Join(ws, target.Dir))
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			dir := filepath.Join(target.Dir, e.Name())
			checked++
			cmd := exec.Command("node", cli, "validate", dir)
			cmd.Dir = ws
			out, err := cmd.CombinedOutput()
			if err == nil {
				continue
			}
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n")[1:] {
				m := unexpectedFields.FindStringSubmatch(line)
				if m == nil || frontMatter == "strict" {
					t.Errorf("%s: skills-ref: %s", dir, line)
					continue
				}
				for _, key := range strings.Split(m[1], ", ") {
					if !slices.Contains(format.Keys, key) {
						t.Errorf("%s: skills-ref refuses the key %s, which no client reading %s needs by the client table", dir, key, target.Dir)
					}
					if !slices.Contains(extra[target.Dir], key) {
						extra[target.Dir] = append(extra[target.Dir], key)
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d skill directories were generated to check", checked)
	}
	for _, target := range clients.Targets {
		if keys := extra[target.Dir]; len(keys) > 0 {
			t.Logf("%-20s keys outside the specification, each a client's: %s", target.Dir, strings.Join(keys, ", "))
		}
	}
	t.Logf("skills-ref %s checked %d generated skill directories", skillsRefVersion, checked)
}
