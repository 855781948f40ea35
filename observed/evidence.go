package observed

import "github.com/skillsync/skillsync/internal/workspacefs"

// Client is an agent client and the signs that it is used in a workspace.
type Client struct {
	Name    string
	Targets []string // targets that serve it, preferred first
	Paths   []string // workspace-relative files or directories
	Tools   []string // programs on PATH
}

// Clients lists the clients skillsync writes for (docs/clients.md).
var Clients = []Client{
	{Name: "Claude Code", Targets: []string{"claude-code"}, Paths: []string{".claude", "CLAUDE.md"}, Tools: []string{"claude"}},
	{Name: "Qwen Code", Targets: []string{"qwen-code", "agents"}, Paths: []string{".qwen", "QWEN.md"}, Tools: []string{"qwen"}},
	{Name: "Zed", Targets: []string{"agents"}, Paths: []string{".zed", ".rules"}, Tools: []string{"zed"}},
	{Name: "Antigravity", Targets: []string{"agents"}, Paths: []string{".agents", ".agent"}, Tools: []string{"antigravity"}},
	{Name: "Codex, Cursor, Copilot, Gemini CLI, OpenCode", Targets: []string{"agents"},
		Paths: []string{".codex", ".cursor", ".github/copilot-instructions.md", ".gemini", ".opencode", "AGENTS.md"}},
}

// Evidence lists, per client name, the signs found that the client is used here.
// lookPath is exec.LookPath in production.
func Evidence(root workspacefs.FS, lookPath func(string) (string, error)) map[string][]string {
	out := map[string][]string{}
	for _, c := range Clients {
		found := []string{}
		for _, p := range c.Paths {
			if info, err := root.Lstat(p); err == nil {
				if info.IsDir() {
					if !holdsMoreThanSkills(root, p) {
						continue
					}
					p += "/"
				}
				found = append(found, p)
			}
		}
		for _, t := range c.Tools {
			if _, err := lookPath(t); err == nil {
				found = append(found, t+" on PATH")
			}
		}
		out[c.Name] = found
	}
	return out
}

// holdsMoreThanSkills tells a client's own directory from one skillsync created: a
// directory holding nothing but skills/ is not evidence that anyone uses the client.
func holdsMoreThanSkills(root workspacefs.FS, dir string) bool {
	entries, err := root.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() != "skills" {
			return true
		}
	}
	return false
}
