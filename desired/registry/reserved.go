package registry

import "strings"

// Names each client already answers to. A project skill with one of these names
// replaces or shadows the client's own command, so skillsync refuses them. The lists
// are the commands and bundled skills each client lists at the version docs/clients.md
// names; a new client version may add names, so check them when that version changes.
var (
	claudeCodeReserved = fields(`
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
		skill anthropic-skills synced`)

	qwenCodeReserved = fields(`
		status about agents tasks arena choose approval-mode auth login branch fork btw bug
		clear reset new compress summarize context copy diff delete docs doctor directory
		dir editor export extensions help hooks ide init language mcp dream forget goal
		memory model manage-models remember plan permissions trust quit exit recap rename
		tag restore resume continue rewind rollback skills stats usage summary theme tools
		settings vim setup-github terminal-setup insight statusline lsp
		loop qc-helper review batch simplify stuck goal-draft workflow-authoring
		workflow-creator computer-use browser-use dataviz pr triage`)
)

// reservedBy returns, for a name, the clients of the enabled targets that already use
// it. Qwen Code reads .agents/skills too, so the agents target reserves its names.
func reservedBy(name string, targets []string) []string {
	var clients []string
	has := func(t string) bool {
		for _, x := range targets {
			if x == t {
				return true
			}
		}
		return false
	}
	if has(TargetClaudeCode) && (claudeCodeReserved[name] || strings.Contains(name, "mcp")) {
		clients = append(clients, "Claude Code")
	}
	if (has(TargetQwenCode) || has(TargetAgents)) && qwenCodeReserved[name] {
		clients = append(clients, "Qwen Code")
	}
	return clients
}

func fields(s string) map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.Fields(s) {
		out[f] = true
	}
	return out
}

// windowsDeviceNames are the names Windows keeps for devices in every directory:
// a skill directory named one of them cannot be created there, and a clone of the
// workspace on Windows would fail to check it out. Names are lower case here as
// skill names are; Windows matches them in any case.
var windowsDeviceNames = fields(`
	con prn aux nul
	com0 com1 com2 com3 com4 com5 com6 com7 com8 com9
	lpt0 lpt1 lpt2 lpt3 lpt4 lpt5 lpt6 lpt7 lpt8 lpt9`)
