package starter

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/printable"
	"github.com/skillsync/skillsync/sources/mcp"
)

// File is one file init writes.
type File struct {
	Path    string
	Content string
}

// Start is what init writes, and why.
type Start struct {
	Found
	// Targets are chosen for the clients in use, or for every measured client
	// when none is.
	Targets clients.Recommendation
	// Server is the MCP server the capabilities call: the first of Servers.
	Server string
	// Unusable are the servers of mcp.ConfigFile whose names skillsync cannot take
	// (letters, digits, _ and - only).
	Unusable []string
	// Unseen are the skills people wrote that some client in use does not see,
	// with those clients, for init to suggest adopt.
	Unseen []Unseen
	Files  []File
}

// Unseen is a skill a person wrote where some clients in use do not look.
type Unseen struct {
	Path    string // its SKILL.md
	Clients []string
}

// Plan makes the starting workspace for what was found. ref names the schemas'
// and docs' version in the files: a release tag, or "main".
func Plan(found Found, ref string) Start {
	var inUse []string
	for _, c := range clients.All {
		if len(found.InUse[c.Name]) > 0 {
			inUse = append(inUse, c.Name)
		}
	}
	if len(inUse) == 0 {
		inUse = clients.Measured()
	}
	s := Start{Found: found, Targets: clients.Recommend(inUse)}
	// Only a name skillsync accepts is written into the files, unquoted; others
	// are left to the person, named in a comment with their escapes.
	s.Servers = nil
	for _, name := range found.Servers {
		if registry.ValidMCPName(name) {
			s.Servers = append(s.Servers, name)
		} else {
			s.Unusable = append(s.Unusable, name)
		}
	}
	if len(s.Servers) > 0 {
		s.Server = s.Servers[0]
	}
	s.Unseen = unseen(found)
	s.Files = []File{
		{Path: registry.ConfigName, Content: s.config(ref)},
		{Path: "registry/capabilities.yaml", Content: s.capabilities(ref)},
	}
	return s
}

// Ref is the version the files name for a skillsync version: its tag when it is
// a release, else "main".
func Ref(version string) string {
	if release.MatchString(version) && !pseudoVersion.MatchString(version) {
		return version
	}
	return "main"
}

// SchemaURL is where the JSON Schemas of version ref are published.
func SchemaURL(ref string) string {
	return "https://raw.githubusercontent.com/skillsync/skillsync/" + ref + "/schema/"
}

var release = regexp.MustCompile(`^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`)

// pseudoVersion ends each form of Go's pseudo-version (v0.0.0-20260102150405-abcdef123456,
// v1.2.4-0.20260102150405-abcdef123456, …): what Go stamps on a build from a clone
// or installs for a commit without a tag. It looks like a release but names no
// tag, so no schema is published at it.
var pseudoVersion = regexp.MustCompile(`\d{14}-[0-9a-f]{12}$`)

func (s Start) config(ref string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# yaml-language-server: $schema=%sworkspace.json\n", SchemaURL(ref))
	fmt.Fprintf(&b, `# skillsync writes a skill for every capability and skill of the registry into
# each target directory, and keeps them in step. Every field is described in
# https://github.com/skillsync/skillsync/blob/%s/docs/registry.md
apiVersion: skillsync/v1
kind: Workspace
spec:
  # Where the capabilities, skills and profiles are declared.
  registry: [registry/*.yaml]
`, ref)
	b.WriteString(s.targetsComment())
	fmt.Fprintf(&b, "  targets: [%s]\n", strings.Join(s.Targets.Targets, ", "))
	b.WriteString(`  # In a git repository: commit the generated files (commit) or have git ignore
  # them (ignore); see docs/workflow.md.
  generatedFiles: commit
`)
	for _, name := range s.Unusable {
		fmt.Fprintf(&b, "  # %s names the server %s, which is no name skillsync takes (letters, digits, _ and -).\n", mcp.ConfigFile, strconv.Quote(name))
	}
	switch len(s.Servers) {
	case 0:
		b.WriteString(`  # The MCP server whose tools the capabilities call, as your clients name it
  # (no .mcp.json was found here):
  # mcp: {server: my-server}
`)
	case 1:
		fmt.Fprintf(&b, "  # The MCP server whose tools the capabilities call, as .mcp.json names it.\n  mcp: {server: %s}\n", s.Server)
	default:
		fmt.Fprintf(&b, "  # The MCP server whose tools the capabilities call, as .mcp.json names it;\n"+
			"  # a capability on another (%s) says mcp: {server: …, tool: …}.\n  mcp: {server: %s}\n",
			strings.Join(s.Servers[1:], ", "), s.Server)
	}
	if len(s.Servers) > 0 {
		b.WriteString(`  # The servers whose tools are capabilities: skillsync mcp refresh starts each
  # as your clients do and records its tools in registry/mcp-<name>.yaml, and the
  # watcher keeps them in step (docs/mcp.md).
  mcpSources:
`)
		for _, name := range s.Servers {
			fmt.Fprintf(&b, "    - {name: %s}\n", name)
		}
	}
	return b.String()
}

// knownTools are tools the MCP servers of these names are known to have, for
// the example capability: it names a real tool of a server .mcp.json lists, or
// none, which the person then names.
var knownTools = map[string]string{"github": "create_issue"}

// unseen are the skills people wrote that a client found in use does not see:
// none of the directories it reads holds one of that name.
func unseen(found Found) []Unseen {
	dirsOf := map[string][]string{} // skill name -> the directories holding it
	for _, p := range found.HandWritten {
		if dir := clients.SkillDirOf(p); dir != "" {
			name := path.Base(dir)
			dirsOf[name] = append(dirsOf[name], path.Dir(dir))
		}
	}
	var out []Unseen
	for _, p := range found.HandWritten {
		dir := clients.SkillDirOf(p)
		if dir == "" || path.Join(dir, "SKILL.md") != p {
			continue
		}
		u := Unseen{Path: p}
		for _, c := range clients.All {
			if len(found.InUse[c.Name]) > 0 && !slices.ContainsFunc(dirsOf[path.Base(dir)], func(d string) bool { return slices.Contains(c.Reads, d) }) {
				u.Clients = append(u.Clients, c.Name)
			}
		}
		if len(u.Clients) > 0 && !slices.ContainsFunc(out, func(o Unseen) bool { return path.Base(path.Dir(o.Path)) == path.Base(dir) }) {
			out = append(out, u)
		}
	}
	return out
}

func (s Start) targetsComment() string {
	if len(s.InUse) == 0 {
		return "  # The skill directories to write: no client was found in use here, so these\n" +
			"  # reach every client skillsync verifies (docs/clients.md).\n"
	}
	var b strings.Builder
	b.WriteString("  # The skill directories to write, for the clients found in use here:\n")
	for _, c := range clients.All {
		if ev := s.InUse[c.Name]; len(ev) > 0 {
			fmt.Fprintf(&b, "  #   %s: %s\n", c.Name, strings.Join(Names(ev), ", "))
		}
	}
	return b.String()
}

// exampleStart marks where the commented example capability begins; everything
// after it, uncommented, is a valid registry document.
const exampleStart = "# --- example ---\n"

func (s Start) capabilities(ref string) string {
	server, tool := s.Server, knownTools[s.Server]
	if server == "" {
		server, tool = "my-server", "create_issue"
	}
	which := "here the tool " + tool + " of the MCP server " + server
	if tool == "" {
		which = "add one of " + server + "'s tools to its mcp line: skillsync mcp refresh\n# lists them all in registry/mcp-" + server + ".yaml"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# yaml-language-server: $schema=%sregistry.json\n", SchemaURL(ref))
	fmt.Fprintf(&b, `# Declare each capability once; skillsync writes its skill into every target.
# To start, uncomment the example below, make it call a tool your MCP server has
# (%s), and run
#   skillsync reconcile --once
# Then type /issue and your text in your agent.
`, which)
	if len(s.HandWritten) > 0 {
		b.WriteString("#\n# Skills people wrote, which skillsync never changes (a capability whose alias\n" +
			"# is one of these names is withheld everywhere):\n")
		for _, p := range Names(s.HandWritten) {
			fmt.Fprintf(&b, "#   %s\n", p)
		}
	}
	b.WriteString(exampleStart)
	call := fmt.Sprintf("{server: %s, tool: %s}", server, tool)
	if tool == "" {
		call = fmt.Sprintf("{server: %s}   # add tool: one of %s's tools", server, server)
	}
	example := fmt.Sprintf(`apiVersion: skillsync/v1
kind: Capability
metadata: {name: issues.create}
spec:
  title: Create an issue
  effect: write            # read, write or destructive: a write is kept from the model's own choice
  input:
    type: object
    properties: {title: {type: string}}
    required: [title]
  mcp: %s
  skill: {alias: issue, argument: title}
`, call)
	for _, line := range strings.SplitAfter(example, "\n") {
		if line != "" {
			b.WriteString("# " + line)
		}
	}
	return b.String()
}

// Example is the example capability of a capabilities file, uncommented.
func Example(capabilities string) string {
	_, example, _ := strings.Cut(capabilities, exampleStart)
	var b strings.Builder
	for _, line := range strings.SplitAfter(example, "\n") {
		b.WriteString(strings.TrimPrefix(line, "# "))
	}
	return b.String()
}

// Names are the paths ps as a comment or a listing names them: a path that
// would not print as itself on one line (a folder named with a line break) is
// quoted, so that no name ends a comment and goes on as YAML of its own.
func Names(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = printable.Name(p)
	}
	return out
}
