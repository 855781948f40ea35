package starter

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
)

// UserPlan makes the starting user workspace: its config, for the directory
// in the user's config directory that holds it, and a registry beside it. Its
// targets are the default ones, each a directory under the home directory that
// clients read (clients.PersonalTargetNames lists the rest it may enable).
func UserPlan(ref string) []File {
	targets := clients.DefaultTargetNames()
	var b strings.Builder
	fmt.Fprintf(&b, "# yaml-language-server: $schema=%sworkspace.json\n", SchemaURL(ref))
	fmt.Fprintf(&b, `# The user workspace: skillsync --user writes every skill of this registry into
# your personal skill directories, the targets below taken in your home
# directory, and keeps them in step. Paths here are relative to this file.
# Every field is described in
# https://github.com/skillsync/skillsync/blob/%s/docs/user.md
apiVersion: skillsync/v1
kind: Workspace
spec:
  # Where the capabilities, skills and profiles are declared.
  registry: [registry/*.yaml]
  # Whole skill directories: uncomment once skills/ holds one (a directory
  # with a SKILL.md), or adopt one with skillsync --user adopt ~/.claude/skills/NAME.
  # skillDirs: [skills/*]
  # ~/%s: the clients that read the home directory's personal skills
  # (docs/clients.md). Also possible here: %s.
  targets: [%s]
`, ref, strings.Join(dirsOf(targets), ", ~/"), strings.Join(others(targets), ", "), strings.Join(targets, ", "))
	s := Start{}
	return []File{
		{Path: registry.ConfigName, Content: b.String()},
		{Path: "registry/capabilities.yaml", Content: strings.ReplaceAll(s.capabilities(ref), "skillsync reconcile", "skillsync --user reconcile")},
	}
}

func dirsOf(targets []string) []string {
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = clients.Dir(t)
	}
	return out
}

// others are the personal targets not in targets.
func others(targets []string) []string {
	var out []string
	for _, t := range clients.PersonalTargetNames() {
		if !slices.Contains(targets, t) {
			out = append(out, t)
		}
	}
	return out
}
