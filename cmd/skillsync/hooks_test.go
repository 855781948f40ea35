package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The pre-commit hooks this repository publishes run commands that exist, pass on
// a workspace in step with its registry and fail on one that is not.
func TestPreCommitHooks(t *testing.T) {
	data, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID    string `yaml:"id"`
		Entry string `yaml:"entry"`
	}
	if err := yaml.Unmarshal(data, &hooks); err != nil || len(hooks) == 0 {
		t.Fatalf("hooks: %v, %d", err, len(hooks))
	}
	for _, h := range hooks {
		args := strings.Fields(h.Entry)
		if len(args) < 2 || args[0] != "skillsync" {
			t.Errorf("%s: entry %q does not run skillsync", h.ID, h.Entry)
			continue
		}
		ws := reconciledExample(t)
		if code, _, stderr := runCLI(t, ws, args[1:]...); code != exitOK {
			t.Errorf("%s on a workspace in step: exit %d, %s", h.ID, code, stderr)
		}
		// A hand-written skill where a generated one goes: out of step for
		// reconcile --check, a taken name for validate.
		mine := filepath.Join(ws, ".claude/skills/note/SKILL.md")
		if err := os.WriteFile(mine, []byte("---\nname: note\ndescription: mine\n---\nmine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, _, _ := runCLI(t, ws, args[1:]...); code == exitOK {
			t.Errorf("%s passes a workspace whose skill name a hand-written skill holds", h.ID)
		}
	}
}
