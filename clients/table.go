package clients

import (
	"regexp"
	"slices"
)

// claudeKeys are the front matter keys Claude Code and Qwen Code both read.
var claudeKeys = []string{"argument-hint", "disable-model-invocation", "user-invocable", "paths"}

// claudeCodeKeys are the keys written for Claude Code alone: no other client
// would take a Claude model or subagent for one of its own.
var claudeCodeKeys = append(slices.Clone(claudeKeys), "model", "context", "agent")

// claudeSubstitutes is what Claude Code replaces or runs in a body: $ARGUMENTS,
// $ARGUMENTS[N], $N, ${CLAUDE_SKILL_DIR} and ${CLAUDE_SESSION_ID}, and !`command`,
// which it runs in a shell before the model sees the body (seen with 2.1.328).
var claudeSubstitutes = regexp.MustCompile(`\$(ARGUMENTS|[0-9]|\{CLAUDE_)|!` + "`")

// openCodeSubstitutes is what OpenCode and Kilo replace in a body: the binary
// replaces /\$(\d+)/g and $ARGUMENTS, and knows no escape.
var openCodeSubstitutes = regexp.MustCompile(`\$(ARGUMENTS|[0-9])`)

// All lists the clients skillsync knows (docs/clients.md, generated from it). The
// facts marked measured were seen in the requests each client sent to a mock model
// API; the others come from the client's documentation. The reserved names are the
// commands and bundled skills each client lists at the version measured; a new
// version may add names, so check them when that version changes.
var All = []Client{
	{
		Name: "Claude Code", Source: "measured: @anthropic-ai/claude-code 2.1.328",
		Reads:         []string{".claude/skills"},
		Personal:      []string{".claude/skills"},
		PersonalClash: ClashPersonal,
		Depth:         "`.claude/skills` of the working directory and of nested directories",
		Duplicates:    "a personal (`~/.claude/skills`) or enterprise skill of the same name wins over the project's",
		Invoke:        "`/name text`; `$ARGUMENTS`, `$ARGUMENTS[N]` and `$N` in the body are replaced by the text",
		Guard:         GuardFrontMatter,
		Keys:          claudeCodeKeys,
		KeyFacts: map[string]string{
			"allowed-tools":            "runs the tools it names without asking while the skill runs (measured: a skill's script ran headless only with `allowed-tools: Bash`, TestWholeSkillRuns)",
			"disable-model-invocation": "keeps the skill out of the model's listing; `/name` still runs it (measured: the conformance suite's \"absent from model listing\")",
			"model, context, agent":    "runs the skill on that model, or (`context: fork`) in a subagent of that type (documented); written in `.claude/skills` only",
			"hooks":                    "runs commands at events of the skill's life (documented); not carried: a skill directory with `hooks` is refused",
		},
		TextSlot:    "$ARGUMENTS",
		TextSource:  "the text the user typed after the command, shown below between the markers",
		Substitutes: claudeSubstitutes,
		MCPTool:     "mcp__<server>__<tool>", MCPNaming: dotsAsUnderscores,
		MCPConfig: &MCPConfig{".mcp.json", "mcpServers"}, UserMCPConfig: &MCPConfig{".claude.json", "mcpServers"},
		Evidence: []string{".claude", "CLAUDE.md"}, Tools: []string{"claude"},
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
		skill anthropic-skills synced`),
		ReservedWith: []string{"mcp"},
	},
	{
		Name: "Qwen Code", Source: "measured: @qwen-code/qwen-code 0.24.4",
		Reads:         []string{".qwen/skills", ".agents/skills"},
		Personal:      []string{".qwen/skills", ".agents/skills"},
		PersonalClash: ClashProject,
		Depth:         "the project root only, one level deep",
		Duplicates:    "the `.qwen/skills` copy wins",
		Limits:        "name matches `^[\\p{L}\\p{N}_:.-]+$`",
		Invoke:        "`/name text`; the text follows the body inside `<skill-args>`, nothing is replaced",
		Guard:         GuardFrontMatter,
		Keys:          claudeKeys,
		KeyFacts: map[string]string{
			"allowed-tools":            "not read: it reads `allowedTools`, a list of its own tool names (from its source); a skill's script ran headless only with `--yolo` (measured, TestWholeSkillRuns)",
			"disable-model-invocation": "keeps the skill out of the model's listing; `/name` still runs it (measured: the conformance suite's \"absent from model listing\")",
			"model":                    "reads it (from its source) and would take a Claude model name for one of its own: skillsync writes `model` for claude-code only",
		},
		TextSource: "the text the user gave with this command: it follows this message, after the command name, and again inside <skill-args>",
		MCPTool:    "mcp__<server>__<tool>", MCPNaming: qwenNames,
		MCPConfig: &MCPConfig{".qwen/settings.json", "mcpServers"}, UserMCPConfig: &MCPConfig{".qwen/settings.json", "mcpServers"},
		Evidence: []string{".qwen", "QWEN.md"}, Tools: []string{"qwen"},
		Reserved: fields(`
		status about agents tasks arena choose approval-mode auth login branch fork btw bug
		clear reset new compress summarize context copy diff delete docs doctor directory
		dir editor export extensions help hooks ide init language mcp dream forget goal
		memory model manage-models remember plan permissions trust quit exit recap rename
		tag restore resume continue rewind rollback skills stats usage summary theme tools
		settings vim setup-github terminal-setup insight statusline lsp
		loop qc-helper review batch simplify stuck goal-draft workflow-authoring
		workflow-creator computer-use browser-use dataviz pr triage`),
	},
	{
		Name: "Codex", Source: "measured: @openai/codex 0.169.0",
		Reads:         []string{".agents/skills", ".codex/skills"},
		Personal:      []string{".agents/skills", ".codex/skills"},
		PersonalClash: ClashBoth,
		Depth:         "every directory from the git root to the working directory, six levels deep, following symlinks",
		Duplicates:    "lists both copies, and then `$name` injects nothing",
		Invoke:        "`$name text` anywhere in the prompt; the whole SKILL.md is injected, nothing is replaced; two skills of one name make `$name` inject nothing",
		Guard:         GuardSideFile,
		HideFile: &SideFile{Path: "agents/openai.yaml", Content: "policy:\n  allow_implicit_invocation: false\n",
			Keys: []string{"interface", "policy", "dependencies"}},
		MCPTool: "mcp__<server>", MCPNamespaced: true, MCPServerChars: "-",
		Evidence: []string{".codex", "AGENTS.md"}, Tools: []string{"codex"},
	},
	{
		Name: "Gemini CLI", Source: "measured: @google/gemini-cli 0.61.0",
		Reads:         []string{".agents/skills", ".gemini/skills"},
		Personal:      []string{".gemini/skills", ".agents/skills"},
		PersonalClash: ClashProject,
		Depth:         "the working directory only, in trusted folders only",
		Duplicates:    "the `.agents/skills` copy wins, with a warning",
		Invoke:        "`/name text` interactively; headless only through its `activate_skill` tool; nothing is replaced",
		Guard:         GuardNone,
		MCPTool:       "mcp_<server>_<tool>", MCPNaming: geminiNames,
		MCPConfig: &MCPConfig{".gemini/settings.json", "mcpServers"}, UserMCPConfig: &MCPConfig{".gemini/settings.json", "mcpServers"},
		Evidence: []string{".gemini", "GEMINI.md"}, Tools: []string{"gemini"},
	},
	{
		Name: "OpenCode", Source: "measured: opencode-ai 1.18.33",
		Reads:         []string{".opencode/skills", ".claude/skills", ".agents/skills"},
		Personal:      []string{".config/opencode/skills", ".opencode/skills", ".claude/skills", ".agents/skills"},
		PersonalClash: ClashEither,
		Depth:         "from the working directory up to the git root, at any depth",
		Duplicates:    "the copy parsed last wins, which differs from run to run",
		Invoke:        "`opencode run --command name text`; `$ARGUMENTS` and every `$<digit>` in the body are replaced, with no escape",
		Guard:         GuardNone, GuardNote: "only `permission.skill` rules in its own config",
		TextSlot:    "$ARGUMENTS",
		TextSource:  "the text the user typed after the command, shown below between the markers",
		Substitutes: openCodeSubstitutes,
		MCPTool:     "<server>_<tool>", MCPNaming: dotsAsUnderscores,
		MCPConfig: &MCPConfig{"opencode.json", "mcp"}, UserMCPConfig: &MCPConfig{".config/opencode/opencode.json", "mcp"},
		Evidence: []string{".opencode", "opencode.json", ".config/opencode"}, Tools: []string{"opencode"},
	},
	{
		Name: "Copilot CLI", Source: "measured: @github/copilot 1.0.102",
		Reads:         []string{".github/skills", ".agents/skills", ".claude/skills"},
		Personal:      []string{".copilot/skills", ".agents/skills"},
		PersonalClash: ClashProject,
		Depth:         "from the working directory up to the git root, in trusted folders only",
		Duplicates:    "the `.agents/skills` copy wins silently",
		Invoke:        "the model loads the skill through its `skill` tool (`/name` is a hint); nothing is replaced",
		Guard:         GuardFrontMatter,
		Keys:          []string{"disable-model-invocation"},
		KeyFacts: map[string]string{
			"allowed-tools": "grants nothing headless: with `-p` and no `--allow-tool`, a skill's script was denied whether its `allowed-tools` said `shell`, `shell(bash:*)` or `bash` (measured, TestCopilotAllowedTools); the interactive session adds the tools it names as approvals when the skill is invoked (read in its source, not measured)",
		},
		MCPTool: "<server>-<tool>", MCPNaming: copilotNames,
		MCPConfig: &MCPConfig{".mcp.json", "mcpServers"}, UserMCPConfig: &MCPConfig{".copilot/mcp-config.json", "mcpServers"},
		Evidence: []string{".github/copilot-instructions.md", ".github/instructions", ".copilot"}, Tools: []string{"copilot"},
	},
	{
		Name: "Cline", Source: "measured: cline 3.0.65",
		Reads:    []string{".clinerules/skills", ".cline/skills", ".agents/skills"},
		Personal: []string{".cline/skills", ".agents/skills"},
		Depth:    "the workspace root, one level deep",
		Invoke:   "no invocation by name headless; the model's `skills` tool gets the skill and its arguments; nothing is replaced",
		Guard:    GuardNone,
		MCPTool:  "<server>__<tool>", MCPNaming: clineNames,
		Evidence: []string{".clinerules", ".cline"}, Tools: []string{"cline"},
	},
	{
		Name: "Kilo", Source: "measured: @kilocode/cli 7.7.7",
		Reads:         []string{".kilo/skills", ".kilocode/skills", ".claude/skills", ".agents/skills"},
		Personal:      []string{".config/kilo/skills", ".kilo/skills", ".kilocode/skills", ".claude/skills", ".agents/skills"},
		PersonalClash: ClashProject,
		Depth:         "at any depth",
		Invoke:        "`kilo run --command name text`; `$ARGUMENTS` and every `$<digit>` in the body are replaced, with no escape",
		Guard:         GuardNone,
		TextSlot:      "$ARGUMENTS",
		TextSource:    "the text the user typed after the command, shown below between the markers",
		Substitutes:   openCodeSubstitutes,
		MCPTool:       "<server>_<tool>", MCPNaming: dotsAsUnderscores,
		Evidence: []string{".kilo", ".kilocode", ".config/kilo"}, Tools: []string{"kilo"},
	},
	{
		Name: "Cursor", Source: "documentation",
		Reads:     []string{".cursor/skills", ".claude/skills", ".codex/skills"},
		Personal:  []string{".agents/skills", ".cursor/skills", ".claude/skills", ".codex/skills"},
		Guard:     GuardFrontMatter,
		Keys:      []string{"disable-model-invocation"},
		MCPConfig: &MCPConfig{".cursor/mcp.json", "mcpServers"}, UserMCPConfig: &MCPConfig{".cursor/mcp.json", "mcpServers"},
		Evidence: []string{".cursor", ".cursorrules"}, Tools: []string{"cursor"},
	},
	{
		Name: "Kiro", Source: "documentation",
		Reads:         []string{".kiro/skills"},
		Personal:      []string{".kiro/skills"},
		PersonalClash: ClashProject,
		Evidence:      []string{".kiro"}, Tools: []string{"kiro"},
	},
	{
		Name: "Windsurf", Source: "documentation",
		Reads:    []string{".windsurf/skills", ".agents/skills"},
		Personal: []string{".codeium/windsurf/skills", ".agents/skills"},
		Evidence: []string{".windsurf", ".windsurfrules"}, Tools: []string{"windsurf"},
	},
	{
		Name: "Junie", Source: "documentation",
		Reads:    []string{".junie/skills"},
		Evidence: []string{".junie"}, Tools: []string{"junie"},
	},
	{
		Name: "Zed", Source: "documentation",
		Reads:         []string{".agents/skills"},
		Personal:      []string{".agents/skills"},
		PersonalClash: ClashProject,
		Limits:        "name `[a-z0-9-]`, at most 64 characters; description at most 1024; SKILL.md at most 100 KB; project skills only in trusted worktrees",
		Guard:         GuardFrontMatter,
		Keys:          []string{"disable-model-invocation"},
		Evidence:      []string{".zed", ".rules"}, Tools: []string{"zed"},
	},
	{
		Name: "Antigravity", Source: "documentation",
		Reads:    []string{".agents/skills", ".agent/skills"},
		Evidence: []string{".agents", ".agent"}, Tools: []string{"antigravity"},
	},
}
