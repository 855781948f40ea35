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
	// Source says where the facts come from: a version measured with the real
	// client, or its documentation.
	Source string
	// Reads are the project skill directories it reads, the one whose copy wins
	// a name found in two first where that is known.
	Reads []string
	// Invoke is how a person invokes a skill by name, and how the text typed
	// with it reaches the model.
	Invoke string
	// HideFromModel is how a skill is kept from the model's own choice while a
	// person can still invoke it ("no way" where the client has none); empty
	// where it is not recorded.
	HideFromModel string
	// MCPTool is the name the model sees for tool <tool> of MCP server <server>.
	MCPTool string
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

// Targets are the targets whose directories c reads, in the order of c.Reads.
func (c Client) Targets() []string {
	var out []string
	for _, dir := range c.Reads {
		for _, t := range Targets {
			if t.Dir == dir {
				out = append(out, t.Name)
			}
		}
	}
	return out
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
		reads := slices.ContainsFunc(c.Targets(), func(t string) bool { return slices.Contains(enabled, t) })
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
