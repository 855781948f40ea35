// Package clients is what skillsync knows about the agent clients it writes skills
// for: the target directories, which clients read each, the names each client
// already answers to, and the signs that a client is used in a workspace. Every
// other package asks here; docs/clients.md describes the same table.
package clients

import (
	"slices"
	"strings"
)

// A Target is a directory skillsync writes skills into, and the name a workspace
// enables it by.
type Target struct {
	Name string
	Dir  string // workspace-relative
}

// Targets are every target a workspace may enable, in the order files are reported.
var Targets = []Target{
	{Name: "claude-code", Dir: ".claude/skills"},
	{Name: "qwen-code", Dir: ".qwen/skills"},
	{Name: "agents", Dir: ".agents/skills"},
}

// A Client is an agent client and what skillsync knows about it.
type Client struct {
	Name string
	// Targets are the targets whose directories it reads, preferred first.
	Targets []string
	// Evidence are workspace-relative files or directories whose presence says the
	// client is used here; Tools are programs on PATH that say so too.
	Evidence []string
	Tools    []string
	// Reserved are the names of its own commands and bundled skills: a project
	// skill with one of them would replace or shadow it. ReservedWith are
	// substrings that reserve every name holding them.
	Reserved     map[string]bool
	ReservedWith []string
}

// All lists the clients skillsync writes for (docs/clients.md). The reserved names
// are the commands and bundled skills each client lists at the version
// docs/clients.md names; a new client version may add names, so check them when
// that version changes.
var All = []Client{
	{Name: "Claude Code", Targets: []string{"claude-code"}, Evidence: []string{".claude", "CLAUDE.md"}, Tools: []string{"claude"},
		Reserved: fields(`
		add-dir agents autofix-pr background branch btw chrome clear color compact config
		context copy cost desktop diff doctor effort exit export fast feedback focus goal
		heapdump help hooks ide init insights install-github-app install-slack-app
		keybindings login logout mcp memory mobile model passes permissions plan plugin
		powerup privacy-settings radio recap release-notes reload-plugins remote-control
		remote-env rename resume review rewind sandbox schedule scroll-speed
		security-review setup-bedrock setup-vertex skills stats status statusline stickers
		stop tasks team-onboarding teleport terminal-setup theme tui ultraplan ultrareview
		upgrade usage usage-credits voice web-setup advisor cd reload-skills workflows
		list-agents autocompact update env subtask pr-comments vim output-style tag todos
		batch claude-api code-review debug fewer-permission-prompts less-permission-prompts
		loop run run-skill-generator verify deep-research dataviz simplify skill-doctor
		workflow-authoring
		reset new settings app quit bug share proactive ios android allowed-tools rc
		continue checkpoint undo routines bashes tp bg fork checkup extra-usage
		skill anthropic-skills synced`), ReservedWith: []string{"mcp"}},
	{Name: "Qwen Code", Targets: []string{"qwen-code", "agents"}, Evidence: []string{".qwen", "QWEN.md"}, Tools: []string{"qwen"},
		Reserved: fields(`
		status about agents tasks arena choose approval-mode auth login branch fork btw bug
		clear reset new compress summarize context copy diff delete docs doctor directory
		dir editor export extensions help hooks ide init language mcp dream forget goal
		memory model manage-models remember plan permissions trust quit exit recap rename
		tag restore resume continue rewind rollback skills stats usage summary theme tools
		settings vim setup-github terminal-setup insight statusline lsp
		loop qc-helper review batch simplify stuck goal-draft workflow-authoring
		workflow-creator computer-use browser-use dataviz pr triage`)},
	{Name: "Zed", Targets: []string{"agents"}, Evidence: []string{".zed", ".rules"}, Tools: []string{"zed"}},
	{Name: "Antigravity", Targets: []string{"agents"}, Evidence: []string{".agents", ".agent"}, Tools: []string{"antigravity"}},
	{Name: "Codex, Cursor, Copilot, Gemini CLI, OpenCode", Targets: []string{"agents"},
		Evidence: []string{".codex", ".cursor", ".github/copilot-instructions.md", ".gemini", ".opencode", "AGENTS.md"}},
}

// TargetNames lists the names of Targets.
func TargetNames() []string {
	names := make([]string, len(Targets))
	for i, t := range Targets {
		names[i] = t.Name
	}
	return names
}

// Dir is the directory of the target called name; "" for no such target.
func Dir(name string) string {
	for _, t := range Targets {
		if t.Name == name {
			return t.Dir
		}
	}
	return ""
}

// ReservedBy lists the clients that read one of the enabled targets and already
// answer to name.
func ReservedBy(name string, enabled []string) []string {
	var out []string
	for _, c := range All {
		reads := slices.ContainsFunc(c.Targets, func(t string) bool { return slices.Contains(enabled, t) })
		taken := c.Reserved[name] || slices.ContainsFunc(c.ReservedWith, func(s string) bool { return strings.Contains(name, s) })
		if reads && taken {
			out = append(out, c.Name)
		}
	}
	return out
}

func fields(s string) map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.Fields(s) {
		out[f] = true
	}
	return out
}
