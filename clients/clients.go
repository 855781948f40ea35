package clients

import (
	"regexp"
	"slices"
	"strings"
)

// A Target is a directory skillsync writes skills into, and the name a workspace
// enables it by.
type Target struct {
	Name string
	Dir  string // workspace-relative
	// Owner is the client whose own directory it is; empty for a directory that
	// belongs to no one client.
	Owner string
	// Default says a workspace that lists no targets enables it.
	Default bool
}

// Targets are every target a workspace may enable, in the order files are reported.
var Targets = []Target{
	{Name: "claude-code", Dir: ".claude/skills", Owner: "Claude Code", Default: true},
	{Name: "qwen-code", Dir: ".qwen/skills", Owner: "Qwen Code", Default: true},
	{Name: "agents", Dir: ".agents/skills", Default: true},
	{Name: "github", Dir: ".github/skills", Owner: "Copilot CLI"},
	{Name: "gemini", Dir: ".gemini/skills", Owner: "Gemini CLI"},
	{Name: "opencode", Dir: ".opencode/skills", Owner: "OpenCode"},
	{Name: "cursor", Dir: ".cursor/skills", Owner: "Cursor"},
	{Name: "cline", Dir: ".cline/skills", Owner: "Cline"},
	{Name: "kilo", Dir: ".kilo/skills", Owner: "Kilo"},
	{Name: "kiro", Dir: ".kiro/skills", Owner: "Kiro"},
	{Name: "windsurf", Dir: ".windsurf/skills", Owner: "Windsurf"},
	{Name: "junie", Dir: ".junie/skills", Owner: "Junie"},
}

// Guard is how a client lets a skill be kept from the model's own choice while a
// person can still invoke it by name.
type Guard int

const (
	// GuardUnknown: not recorded for the client.
	GuardUnknown Guard = iota
	// GuardNone: the client has no way.
	GuardNone
	// GuardFrontMatter: `disable-model-invocation: true` in the front matter.
	GuardFrontMatter
	// GuardSideFile: a file beside SKILL.md, the client's SideFile.
	GuardSideFile
)

// A SideFile is a file a client reads beside SKILL.md, in the skill's directory.
type SideFile struct {
	Path    string // relative to the skill directory, slash-separated
	Content string // what skillsync writes there, after its banner
	// Keys are the top-level keys the client reads in it: a skill directory
	// may hold its own copy with these, written only where the client reads.
	Keys []string
}

// A Client is an agent client and what skillsync knows about it.
type Client struct {
	Name string
	// Source says where the facts come from: a version measured with the real
	// client, or its documentation.
	Source string
	// Reads are the project skill directories it reads. Depth says where it
	// looks for them (the workspace root only, or up and down from the working
	// directory), Duplicates what it does with a name found in two of them, and
	// Limits what it requires of a skill beyond the specification.
	Reads                     []string
	Depth, Duplicates, Limits string
	// Invoke is how a person invokes a skill by name, and how the text typed
	// with it reaches the model.
	Invoke string
	// Guard is how a skill is kept from the model's own choice; GuardNote adds
	// what the client offers outside a skill, if anything. HideFile is the file
	// that does it for GuardSideFile.
	Guard     Guard
	GuardNote string
	HideFile  *SideFile
	// Keys are the front matter keys it reads beyond the specification's name
	// and description.
	Keys []string
	// KeyFacts say, by front matter key, what the client does with a key a
	// skill carries, and how that is known: measured with the real client, or
	// from its documentation or source.
	KeyFacts map[string]string
	// TextSlot is a line of a body the client replaces with the text typed after
	// the skill's name; empty where it replaces none. TextSource tells its model
	// where that text is.
	TextSlot, TextSource string
	// Substitutes matches what the client replaces or runs in a body, whatever
	// surrounds it; nil where it replaces nothing.
	Substitutes *regexp.Regexp
	// MCPTool is the name the model sees for tool <tool> of MCP server <server>;
	// MCPNamespaced says the client offers the server's tools inside one tool of
	// that name instead.
	MCPTool       string
	MCPNamespaced bool
	// MCPServerChars are the characters of a server's name the client shows as "_".
	MCPServerChars string
	// MCPNaming is how the client makes the name MCPTool gives one its model's
	// API takes.
	MCPNaming MCPNaming
	// MCPConfig is the project file the client reads its MCP servers from, when
	// it is JSON with the servers by name under one key; nil where not.
	MCPConfig *MCPConfig
	// UserMCPConfig is the file in the user's home it reads its user-wide MCP
	// servers from, in the same form; nil where not.
	UserMCPConfig *MCPConfig
	// Personal are the skill directories it reads in the user's home, relative
	// to it; PersonalClash is which skill its model is shown when a personal
	// and a project skill share a name. Both as measured where Source says so.
	Personal      []string
	PersonalClash Clash
	// Evidence are workspace-relative files or directories whose presence says the
	// client is used here, including those it keeps in a home directory, which is
	// the user workspace's root; Tools are programs on PATH that say so too.
	Evidence []string
	Tools    []string
	// Reserved are the names of its own commands and bundled skills: a project
	// skill with one of them would replace or shadow it. ReservedWith are
	// substrings that reserve every name holding them.
	Reserved     map[string]bool
	ReservedWith []string
}

// Clash is what a client makes of a personal and a project skill of one name.
type Clash int

const (
	// ClashUnknown: not recorded for the client.
	ClashUnknown Clash = iota
	// ClashPersonal: the personal skill is shown, the project's hidden.
	ClashPersonal
	// ClashProject: the project's skill is shown, the personal one hidden.
	ClashProject
	// ClashBoth: both are shown to the model.
	ClashBoth
	// ClashEither: one of the two is shown, which one differing from run to run
	// (a client that keeps whichever copy it parsed last).
	ClashEither
)

func (c Clash) String() string {
	switch c {
	case ClashPersonal:
		return "the personal skill wins"
	case ClashProject:
		return "the project's skill wins"
	case ClashBoth:
		return "both are listed"
	case ClashEither:
		return "one of the two wins, which one differs from run to run"
	}
	return "not recorded"
}

// Lookup is the client called name in All.
func Lookup(name string) (Client, bool) {
	i := slices.IndexFunc(All, func(c Client) bool { return c.Name == name })
	if i < 0 {
		return Client{}, false
	}
	return All[i], true
}

// MCPConfig is a JSON file of MCP servers, and the key that holds them by name.
type MCPConfig struct{ File, Key string }

// MCPConfigs lists the MCP configuration files of every client, each once: the
// project's, or with user those in the user's home.
func MCPConfigs(user bool) []MCPConfig {
	var out []MCPConfig
	for _, c := range All {
		config := c.MCPConfig
		if user {
			config = c.UserMCPConfig
		}
		if config != nil && !slices.Contains(out, *config) {
			out = append(out, *config)
		}
	}
	return out
}

// ServerConfig is where an MCP server named only by its name is looked up:
// Claude Code's configuration, the project's or, with user, the user's.
func ServerConfig(user bool) MCPConfig {
	claude, _ := Lookup("Claude Code")
	if user {
		return *claude.UserMCPConfig
	}
	return *claude.MCPConfig
}

// CanHide says c has a recorded way to keep a skill from its model's own choice.
func (c Client) CanHide() bool {
	return c.Guard == GuardFrontMatter || c.Guard == GuardSideFile
}

// CanHideIn is CanHide where skills carry the specification's front matter keys
// only, when strict: then only a side file keeps a skill from the model.
func (c Client) CanHideIn(strict bool) bool {
	if strict {
		return c.Guard == GuardSideFile
	}
	return c.CanHide()
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

// PersonalTargetNames lists the targets whose directory, taken in the user's
// home directory, some client reads: the ones a user workspace can enable.
func PersonalTargetNames() []string {
	var names []string
	for _, t := range Targets {
		if slices.ContainsFunc(All, func(c Client) bool { return slices.Contains(c.Personal, t.Dir) }) {
			names = append(names, t.Name)
		}
	}
	return names
}

// TargetNames lists the names of Targets.
func TargetNames() []string {
	names := make([]string, len(Targets))
	for i, t := range Targets {
		names[i] = t.Name
	}
	return names
}

// DefaultTargetNames lists the targets a workspace that lists none enables.
func DefaultTargetNames() []string {
	var names []string
	for _, t := range Targets {
		if t.Default {
			names = append(names, t.Name)
		}
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

// TargetEntry says which entry of which target directory rel is or is in; whole
// when rel is a target directory, a directory above one or the workspace itself,
// whose change can touch any entry.
func TargetEntry(rel string) (dir, name string, whole bool) {
	if rel == "." || rel == "" {
		return "", "", true
	}
	for _, t := range Targets {
		switch {
		case rel == t.Dir || strings.HasPrefix(t.Dir, rel+"/"):
			return "", "", true
		case strings.HasPrefix(rel, t.Dir+"/"):
			name, _, _ = strings.Cut(rel[len(t.Dir)+1:], "/")
			return t.Dir, name, false
		}
	}
	return "", "", false
}

// ReservedBy lists the clients that read one of the enabled targets and already
// answer to name.
func ReservedBy(name string, enabled []string) []string {
	var out []string
	for _, c := range All {
		// Every skill name of a registry is asked about, and hardly any is taken:
		// the targets a client reads are listed only for one that is.
		taken := c.Reserved[name] || slices.ContainsFunc(c.ReservedWith, func(s string) bool { return strings.Contains(name, s) })
		if taken && slices.ContainsFunc(c.Targets(), func(t string) bool { return slices.Contains(enabled, t) }) {
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

// IsSkillFile says p is the SKILL.md of a skill directory in a target
// directory, not a file of the same name deeper in one.
func IsSkillFile(p string) bool {
	dir := SkillDirOf(p)
	return dir != "" && p == dir+"/SKILL.md"
}

// SkillDirOf is the directory of the skill that the workspace path p, the skill
// directory itself or anything in it, belongs to; "" when p is in no skill
// directory of a target.
func SkillDirOf(p string) string {
	for _, t := range Targets {
		if rest, ok := strings.CutPrefix(p, t.Dir+"/"); ok && rest != "" {
			name, _, _ := strings.Cut(rest, "/")
			// Cut from p rather than built: a plan asks for it at every path.
			return p[:len(t.Dir)+1+len(name)]
		}
	}
	return ""
}

// KeyFact is what c does with the front matter key, from its KeyFacts, whose
// keys may name several front matter keys at once ("model, context, agent").
func (c Client) KeyFact(key string) (string, bool) {
	for keys, fact := range c.KeyFacts {
		if slices.Contains(strings.Split(keys, ", "), key) {
			return fact, true
		}
	}
	return "", false
}
