package registry

import "strings"

// StarterFile is one file `skillsync init` writes.
type StarterFile struct {
	Path    string
	Content string
}

// StarterFiles is a minimal valid workspace writing into targets: the config and
// one capability with a skill.
func StarterFiles(targets []string) []StarterFile {
	return []StarterFile{
		{Path: ConfigName, Content: `apiVersion: skillsync/v1
kind: Workspace
spec:
  registry: [registry/*.yaml]
  targets: [` + strings.Join(targets, ", ") + `]
  profile: cli
  mcp: {server: majordomus}
`},
		{Path: "registry/capabilities.yaml", Content: `# Each capability is declared once; skillsync generates its skill files.
apiVersion: skillsync/v1
kind: Capability
metadata: {name: intents.propose}
spec:
  title: Propose an intent
  effect: write
  input:
    type: object
    properties: {statement: {type: string}}
    required: [statement]
  mcp: {tool: intents_propose}
  skill: {alias: intent, argument: statement}
---
apiVersion: skillsync/v1
kind: Profile
metadata: {name: cli}
spec:
  capabilities: [terminal.ansi]
`},
	}
}
