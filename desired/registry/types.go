package registry

import (
	"encoding/json"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// APIVersion is the only apiVersion this release reads.
const APIVersion = "skillsync/v1"

// StateDir holds skillsync's own state in a workspace: the chosen profile, the
// record of the last apply, the lock.
const StateDir = ".skillsync"

// OutputDirs are the directories skillsync writes into: every known target's, and
// its state directory. No input may be read from them.
func OutputDirs() []string {
	dirs := []string{StateDir}
	for _, t := range clients.Targets {
		dirs = append(dirs, t.Dir)
	}
	return dirs
}

// Effects a capability may declare.
const (
	EffectRead        = "read"
	EffectWrite       = "write"
	EffectDestructive = "destructive"
)

// Object is the shape of every registry document. Its fields, and those of the
// specs below, are documented for whoever writes the YAML as much as for Go: the
// JSON Schemas in schema/ are generated from them, comments included, and an
// editor shows each comment for its key. A field tagged jsonschema:"required" is
// one the validator refuses to do without.
type Object[S any] struct {
	// The format's version: skillsync/v1.
	APIVersion string `json:"apiVersion" jsonschema:"required"`
	// What the document declares: Capability, Skill or Profile.
	Kind string `json:"kind" jsonschema:"required"`
	// Names the document.
	Metadata Metadata `json:"metadata" jsonschema:"required"`
	// What the document declares, by kind.
	Spec S `json:"spec"`
}

// Metadata names a registry object.
type Metadata struct {
	// The capability id, or the skill's or the profile's name.
	Name string `json:"name" jsonschema:"required"`
}

// Workspace is skillsync.yaml.
type Workspace struct {
	// The format's version: skillsync/v1.
	APIVersion string `json:"apiVersion" jsonschema:"required"`
	// Workspace: skillsync.yaml holds one document of this kind.
	Kind string `json:"kind" jsonschema:"required"`
	// What the workspace declares.
	Spec WorkspaceSpec `json:"spec"`
}

// WorkspaceSpec is what a workspace declares.
type WorkspaceSpec struct {
	// Glob patterns, relative to skillsync.yaml, of the registry files to read.
	Registry []string `json:"registry"`
	// Glob patterns, relative to skillsync.yaml, of skill directories: every
	// directory one matches that holds a SKILL.md is a skill named by the
	// directory, as a Skill with spec.dir declares one (skills/*).
	SkillDirs []string `json:"skillDirs"`
	// The target directories skillsync writes; claude-code, qwen-code and agents
	// when none are listed.
	Targets []string `json:"targets"`
	// The profile used when no --profile, SKILLSYNC_PROFILE or .skillsync/profile
	// names one; it must be declared.
	Profile string `json:"profile"`
	// Skill names never written into any target.
	Disabled []string `json:"disabled"`
	// Names no alias or skill may take, besides the clients' own.
	ReservedNames []string `json:"reservedNames"`
	// The MCP server of every capability that names none itself.
	MCP *WorkspaceMCP `json:"mcp"`
	// What happens to a skill that must be kept from the model's own choice in a
	// target none of whose clients can do that: withhold (the default) or allow.
	UnguardedClients string `json:"unguardedClients"`
	// Whether, in a git work tree, the team commits the generated files (commit,
	// the default) or has git ignore them (ignore); see docs/workflow.md.
	GeneratedFiles string `json:"generatedFiles"`
	// Which front matter keys generated skills carry: clients (the default), the
	// Agent Skills specification's and those the clients reading each directory
	// act on, such as disable-model-invocation; or strict, the specification's
	// only, for tooling that validates against it. Strict gives up the clients'
	// keys: a client whose only way to keep a skill from its model is such a key
	// counts as one that cannot (see unguardedClients).
	FrontMatter string `json:"frontMatter"`
	// MCP servers whose tools are capabilities of the workspace; see docs/mcp.md.
	MCPSources []MCPSource `json:"mcpSources"`
	// Skill directories from elsewhere, pinned by skillsync.lock; see
	// docs/sources.md.
	Sources []RemoteSource `json:"sources"`
	// Where sources may come from; see docs/trust.md.
	Trust *TrustSpec `json:"trust"`
}

// RemoteSource is a repository of Agent Skills directories: its folder path
// holds one directory per skill, each with its SKILL.md, as public skill
// repositories lay them out. skillsync update resolves ref and records the
// commit and every skill's digest in skillsync.lock; every other command reads
// only what the lock names.
type RemoteSource struct {
	// Names the source in the lock, in messages and in explain.
	Name string `json:"name" jsonschema:"required"`
	// A git remote: https://, ssh://, user@host:path or file://. Credentials come
	// from git's credential helpers or SSH agent, never from the address. One of
	// git, index and oci.
	Git string `json:"git"`
	// An Agent Skills discovery index (version 0.2.0), by its https:// URL:
	// .../.well-known/agent-skills/index.json. One of git, index and oci.
	Index string `json:"index"`
	// An OCI artifact skillsync publish pushed, as REGISTRY/REPOSITORY:TAG or
	// REGISTRY/REPOSITORY@sha256:DIGEST (the tag latest when neither is
	// given). Credentials come from the Docker configuration and its credential
	// helpers. One of git, index and oci.
	OCI string `json:"oci"`
	// A tag, a branch or a full commit id; the remote's default branch when
	// empty. Git only.
	Ref string `json:"ref"`
	// The folder of the repository that holds the skill directories; its root
	// when empty. Git only.
	Path string `json:"path"`
	// The skills taken, by name; every skill directory of the folder when empty.
	Include []string `json:"include"`
	// Findings of the scan let through: hidden text (tag, bidi, zero-width,
	// control, invisible, not-utf8), executable and binary files, which are
	// refused in what a source brings unless allowed here.
	Allow []Allowance `json:"allow"`
	// Registry documents taken from the source (Capabilities, Profiles and
	// inline Skills): patterns of its files, relative to the root of the
	// repository or artifact (not to path), as path.Match reads them
	// (registry/*.yaml). None when empty. Git and OCI only.
	Registry []string `json:"registry"`
	// Whom the artifact must be signed by: a source with verify is refused
	// unless a signature of its manifest by this signer verifies. OCI only.
	Verify *Signer `json:"verify"`
	// Signers are the signers the source must be signed by: its verify, and
	// those spec.trust and the organisation's policy require of its location.
	// The load fills them in.
	Signers []RequiredSigner `json:"-"`
	// MinimumAge is how old the commit a moving ref names must be before
	// update takes it, and MinimumAgeBy who requires it; the load fills them
	// in from spec.trust and the organisation's policy.
	MinimumAge   time.Duration `json:"-"`
	MinimumAgeBy string        `json:"-"`
}

// MCPSource is an MCP server whose tools and published skills skillsync mcp
// refresh records in a snapshot file of the registry; what the workspace takes of
// them is for the source's include, exclude, skills and publishedSkills to say, at
// every load.
type MCPSource struct {
	// The server's name, as the clients' configuration (.mcp.json) names it;
	// skill bodies name its tools by it.
	Name string `json:"name" jsonschema:"required"`
	// A program that serves MCP on stdin and stdout, when .mcp.json does not
	// configure the server; with args and env. An env value may be ${VAR}, read
	// from the environment.
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	// A Streamable HTTP endpoint, when the server is remote; each header's value
	// must be a ${VAR} read from the environment, so no secret is in a file.
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// Glob patterns of the tool names that are capabilities (all when none) and
	// of those left out.
	Include []string `json:"include"`
	Exclude []string `json:"exclude"`
	// The tools that become skills a person invokes by name.
	Skills []MCPSkill `json:"skills"`
	// The skills the server publishes through the MCP skills extension that
	// are skills of the workspace; none when not set.
	PublishedSkills *MCPPublishedSkills `json:"publishedSkills"`
	// Where the snapshot is written, relative to skillsync.yaml; a file a
	// registry pattern matches. By default the first pattern with a * names it,
	// as mcp-<name>.
	Snapshot string `json:"snapshot"`
	// Findings of the scan let through in what the server gives (hidden
	// text), each for every capability and skill of the server or those whose
	// id or name path matches.
	Allow []Allowance `json:"allow"`
}

// MCPSkill makes a tool, or each tool a pattern matches, a skill: its alias, and
// the string property of its input that the text typed after the alias fills.
type MCPSkill struct {
	// The tool's name on the server, or a glob pattern of names (*, ? and [ ], as
	// in include). A selector naming a tool wins over a pattern; of two patterns,
	// the first.
	Tool string `json:"tool" jsonschema:"required"`
	// The skill's name; by default the tool's name, lowercased, with - for _.
	// Not with a pattern.
	Alias string `json:"alias"`
	// The input property the typed text fills; by default the one property the
	// tool's input requires, when it is a string.
	Argument string `json:"argument"`
}

// MCPPublishedSkills selects the skills a server publishes, and how they are
// written.
type MCPPublishedSkills struct {
	// Glob patterns of the skill names taken (all when none) and of those left
	// out.
	Include []string `json:"include"`
	Exclude []string `json:"exclude"`
	// Client capabilities (dotted names) the active profile must announce for
	// these skills to be written.
	RequiredCapabilities []string `json:"requiredCapabilities"`
	// Lets the model choose these skills on its own; by default only a person
	// typing one runs it, as a server's text is untrusted input.
	ModelInvocable bool `json:"modelInvocable"`
}

// Values of spec.unguardedClients.
const (
	UnguardedWithhold = "withhold"
	UnguardedAllow    = "allow"
)

// Values of spec.generatedFiles.
const (
	GeneratedCommit = "commit"
	GeneratedIgnore = "ignore"
)

// Values of spec.frontMatter.
const (
	FrontMatterClients = "clients"
	FrontMatterStrict  = "strict"
)

// StrictFrontMatter says generated skills carry the specification's front
// matter keys only.
func (w Workspace) StrictFrontMatter() bool { return w.Spec.FrontMatter == FrontMatterStrict }

// WorkspaceMCP holds the default MCP server of the workspace's capabilities.
type WorkspaceMCP struct {
	// The MCP server's name: 1 to 64 letters, digits, _ and -.
	Server string `json:"server"`
}

// CapabilitySpec is a capability declaration.
type CapabilitySpec struct {
	// The capability's name in one line; the generated skill's description when
	// description is not set, and the first line of its body.
	Title string `json:"title" jsonschema:"required"`
	// What the capability does and when to use it, in one line of at most 1024
	// characters: the generated skill's description, the text a model reads to
	// decide whether to use the skill. An MCP snapshot records the tool's own.
	Description string `json:"description"`
	// What calling it does: read, write or destructive. Skills of write and
	// destructive capabilities run only when a person types them.
	Effect string `json:"effect" jsonschema:"required"`
	// The JSON Schema of the capability's input, as an MCP tool's inputSchema;
	// needed with skill, whose argument names one of its string properties.
	Input json.RawMessage `json:"input"` // kept as JSON text (see appendJSON)
	// How an agent reaches the capability through an MCP server.
	MCP *MCPBinding `json:"mcp"`
	// How an agent reaches the capability from a shell.
	CLI *CLIBinding `json:"cli"`
	// Asks for a generated skill: /<alias> <text> calls the capability with the
	// text as its argument.
	Skill *CapabilitySkill `json:"skill"`
}

// MCPBinding is how an agent reaches a capability through its MCP server.
type MCPBinding struct {
	// The MCP server; spec.mcp.server of skillsync.yaml when not set.
	Server string `json:"server"`
	// The MCP tool's name: 1 to 64 letters, digits, _ and -.
	Tool string `json:"tool" jsonschema:"required"`
}

// CLIBinding is how an agent reaches a capability from a shell.
type CLIBinding struct {
	// The program and its subcommands, one word each.
	Command []string `json:"command" jsonschema:"required"`
	// The flag the text is passed with, like --statement; without one the text is
	// a positional argument.
	Flag string `json:"flag"`
}

// CapabilitySkill asks for a generated skill: /<alias> <text> fills <argument>.
type CapabilitySkill struct {
	// The skill's name, typed as /<alias>: lowercase letters, digits and single
	// hyphens, at most 64 characters.
	Alias string `json:"alias" jsonschema:"required"`
	// The property of input, of type string, that the typed text fills.
	Argument string `json:"argument" jsonschema:"required"`
	// The targets the skill is limited to; every enabled target when none are
	// listed.
	Targets []string `json:"targets"`
	// Client capabilities (dotted names) the active profile must announce for the
	// skill to be written.
	RequiredCapabilities []string `json:"requiredCapabilities"`
}

// SkillSpec is a workflow skill with a body of its own.
type SkillSpec struct {
	// The skill's directory, relative to this file: its SKILL.md gives the
	// skill's front matter and body, and every other file in it is copied beside
	// the generated SKILL.md. With dir, the skill's other fields are its
	// SKILL.md's, and only targets and requiredCapabilities are given here.
	Dir string `json:"dir"`
	// What the skill is for, in one line; required unless dir is given.
	Description string `json:"description"`
	// The skill's body, inline; give body or bodyFile.
	Body string `json:"body"`
	// The file holding the skill's body, relative to this file; give body or
	// bodyFile.
	BodyFile string `json:"bodyFile"`
	// Client capabilities (dotted names) the active profile must announce for the
	// skill to be written.
	RequiredCapabilities []string `json:"requiredCapabilities"`
	// The targets the skill is limited to; every enabled target when none are
	// listed.
	Targets []string `json:"targets"`
	// Keeps the skill from the model's own choice: it runs only when a person types
	// it.
	DisableModelInvocation bool `json:"disableModelInvocation"`
	// Whether a person can type the skill as a command; written as user-invocable
	// for claude-code and qwen-code.
	UserInvocable *bool `json:"userInvocable"`
	// Globs, relative to the workspace root, of the files the skill is for;
	// written for claude-code and qwen-code.
	Paths []string `json:"paths"`
	// The skill's license, as the Agent Skills specification's license: a
	// license name, or a file the skill holds. One line.
	License string `json:"license"`
	// What the skill needs of its environment (a product, system packages,
	// network access), as the specification's compatibility: one line of at most
	// 500 characters.
	Compatibility string `json:"compatibility"`
	// More properties, each a string, as the specification's metadata.
	Metadata map[string]string `json:"metadata"`
	// The tools the skill may use without asking, as the specification's
	// allowed-tools, space-delimited like "Bash(git:*) Read": one line, written
	// as given. Claude Code pre-approves them; other clients may not.
	AllowedTools string `json:"allowedTools"`
	// What to type after the skill's name, as Claude Code and Qwen Code show it
	// (argument-hint): one line, written for claude-code and qwen-code.
	ArgumentHint string `json:"argumentHint"`
	// Claude Code's own keys, written for claude-code only, where no other
	// client would take a Claude model or subagent for one of its own: the model
	// the skill runs on (model), fork to run it in a subagent (context), and
	// that subagent's type (agent). One line each.
	Model   string `json:"model"`
	Context string `json:"context"`
	Agent   string `json:"agent"`
}

// MaxCompatibilityLength is the specification's limit of compatibility.
const MaxCompatibilityLength = 500

// ProfileSpec lists the client capabilities a profile announces.
type ProfileSpec struct {
	// What the client can render or do, as dotted names like
	// markdown.codeBlock.echarts-fulldata.
	Capabilities []string `json:"capabilities"`
}

// Capability is one loaded capability declaration.
type Capability struct {
	ID   string
	Spec CapabilitySpec
	doc  document
	// owner is CapabilityOwner(ID), made once: every file of the capability's
	// skill, in every target, carries it.
	owner string
	// source is 1 + the index of the source that brought it; 0 for the
	// workspace's own.
	source int
}

// Skill is one loaded workflow skill; Body holds the text of body or bodyFile.
type Skill struct {
	Name     string
	Spec     SkillSpec
	Body     string
	BodyPath string // the bodyFile, workspace-relative; empty for an inline body
	// Dir is the skill directory (spec.dir), workspace-relative, and Files the
	// files in it beside SKILL.md, sorted by path.
	Dir   string
	Files []SupportFile
	// SideFiles are the files of Dir a client reads beside SKILL.md (Codex's
	// agents/openai.yaml), by path, as they are written where that client reads:
	// with the client's way to keep the skill from its model added when the
	// skill asks for that.
	SideFiles map[string]string
	dirs      []string       // the folders of Dir, Dir first
	dirSum    [32]byte       // of everything read in Dir
	bodyLine  int            // the line of the SKILL.md in Dir the body starts on
	keyLines  map[string]int // the line of the SKILL.md in Dir each front matter key is on
	// Origin is the source the skill comes from, nil for one the workspace
	// declares; Dir then names the source and the folder in it, not a path of
	// the workspace.
	Origin *SourceOrigin
	// Allowed are the findings of the scan in a source's skill that the
	// source's allow lets through, each named with where it is.
	Allowed []string
	// pattern is, counted from 1, the pattern of spec.skillDirs that declares
	// the skill, and source the source of spec.sources; both 0 for a skill a
	// registry document declares.
	pattern, source int
	doc             document
}

// inConfig tells whether skillsync.yaml declares s, through a pattern or a
// source: then it shares that document with others, and what was found of the
// document is no memo of s.
func (s Skill) inConfig() bool { return s.pattern > 0 || s.source > 0 }

// Shadowed is a skill, capability or profile of a source that the workspace
// declares itself, and so takes from the workspace.
type Shadowed struct {
	Kind         string // "skill", "capability" or "profile"
	Name, Source string
	At           Position // the source's declaration
}

// Profile is one loaded profile.
type Profile struct {
	Name string
	Spec ProfileSpec
	doc  document
	// source is 1 + the index of the source that brought it; 0 for the
	// workspace's own.
	source int
}

// User says r is the user workspace: its Root is the home directory and its
// config is in the user's config directory, the one place a config is kept other
// than the root's own ConfigName.
func (r *Registry) User() bool { return r.ConfigFile != "" && r.ConfigFile != ConfigName }

// InConfigDir is p, a path or glob the config names relative to its own
// directory, relative to Root instead.
func (r *Registry) InConfigDir(p string) string {
	dir := path.Dir(r.ConfigFile)
	if dir == "." || path.IsAbs(p) {
		return p
	}
	return path.Join(dir, p)
}

// RegistryPatterns are the globs of spec.registry, relative to Root.
func (r *Registry) RegistryPatterns() []string { return r.inConfigDir(r.Config.Spec.Registry) }

// SkillDirPatterns are the globs of spec.skillDirs, relative to Root.
func (r *Registry) SkillDirPatterns() []string { return r.inConfigDir(r.Config.Spec.SkillDirs) }

func (r *Registry) inConfigDir(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = r.InConfigDir(p)
	}
	return out
}

// Registry is everything a workspace declares, as loaded from disk.
type Registry struct {
	Root       string // absolute workspace root
	ConfigFile string // ConfigName in a project workspace, relative to Root
	Config     Workspace
	Files      []string // registry files read, relative to Root
	// Sources describes the config and every registry file as read, so a later run
	// can tell a file cut off mid-save from the version it came from; a registry
	// of thousands of capabilities is megabytes, so the bytes are not kept.
	Sources      map[string]Source
	Capabilities []Capability
	Skills       []Skill
	Profiles     []Profile
	config       document
	malformed    map[document]bool // documents that did not decode cleanly
	// recordedTools are, by MCP source, the tools its snapshot records; nil
	// when no snapshot was read.
	recordedTools map[string]map[string]bool
	// matchedDirs are the directories spec.skillDirs matches, a skill or not
	// yet: a SKILL.md put in one makes it one.
	matchedDirs []string
	// Shadowed are the sources' skills the workspace declares itself.
	Shadowed []Shadowed
	// Pinned are, by name, the sources the lock pins as they are declared, read
	// or not: what each is resolved to, for whoever reports on them.
	Pinned map[string]LockedSource
	// lockFile is skillsync.lock, relative to Root, when sources are declared.
	lockFile string
	sys      workspacefs.System // what it was loaded through, and is read again through
}

// System is what the registry was loaded through.
func (r *Registry) System() workspacefs.System { return r.sys }

// ProfileNamed returns the profile called name.
func (r *Registry) ProfileNamed(name string) (Profile, bool) {
	for _, p := range r.Profiles {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// ProfileNames lists every declared profile name.
func (r *Registry) ProfileNames() []string {
	names := make([]string, len(r.Profiles))
	for i, p := range r.Profiles {
		names[i] = p.Name
	}
	return names
}

// CapabilityOwner is how a generated file's banner, and every message, name the
// capability the file comes from.
func CapabilityOwner(id string) string { return "capability/" + id }

// Owner is CapabilityOwner(c.ID).
func (c *Capability) Owner() string {
	if c.owner != "" {
		return c.owner
	}
	return CapabilityOwner(c.ID)
}

// SkillOwner is how they name a workflow skill.
func SkillOwner(name string) string { return "skill/" + name }

// SkillFiles lists the files skills are read from besides the registry files,
// workspace-relative: every bodyFile, every file of a skill directory (a
// client's side file among them), and the lock that pins the sources.
func (r *Registry) SkillFiles() []string {
	return append(r.BodyFiles(), r.SkillDirFiles()...)
}

// BodyFiles lists the files skills are read from by their paths,
// workspace-relative: every bodyFile, and the lock that pins the sources.
func (r *Registry) BodyFiles() []string {
	var files []string
	if r.lockFile != "" {
		files = append(files, r.lockFile)
	}
	for _, s := range r.Skills {
		if s.BodyPath != "" {
			files = append(files, s.BodyPath)
		}
	}
	return files
}

// SkillDirFiles lists the files of every skill directory read from the
// workspace, workspace-relative. Each was read through its folder (one of
// SkillDirs), which holds no symlink, and was a regular file then.
func (r *Registry) SkillDirFiles() []string {
	var files []string
	for _, s := range r.Skills {
		files = append(files, s.dirFiles()...)
	}
	return files
}

// dirFiles lists the files of s's skill directory, workspace-relative, when it
// was read from the workspace: SKILL.md, its supporting files and its clients'
// side files.
func (s Skill) dirFiles() []string {
	if s.Dir == "" || s.bodyLine <= 0 || s.Origin != nil {
		return nil
	}
	files := []string{path.Join(s.Dir, "SKILL.md")}
	for _, f := range s.Files {
		files = append(files, path.Join(s.Dir, f.Path))
	}
	for _, side := range slices.Sorted(maps.Keys(s.SideFiles)) {
		files = append(files, path.Join(s.Dir, side))
	}
	return files
}

// SkillDirs lists the folders of every skill directory, workspace-relative:
// a file added to one changes the skill.
func (r *Registry) SkillDirs() []string {
	dirs := slices.Clone(r.matchedDirs)
	for _, s := range r.Skills {
		dirs = append(dirs, s.dirs...)
	}
	return dirs
}

// DirSum is the digest of everything read from the skill's directory, the zero
// digest for a skill without one.
func (s Skill) DirSum() [32]byte { return s.dirSum }

// DefaultProfileAt is where spec.profile is written, for problems about it.
func (r *Registry) DefaultProfileAt() Position {
	return r.config.at("spec", "profile").Position()
}

// MCPSourceAt is where the MCP source called name gives the value under keys in
// skillsync.yaml (headers, Authorization), for an error about that value.
func (r *Registry) MCPSourceAt(name string, keys ...string) Position {
	i := slices.IndexFunc(r.Config.Spec.MCPSources, func(s MCPSource) bool { return s.Name == name })
	return r.specItemAt("mcpSources", i, keys...)
}

// SourceAt is where the source called name gives the value under keys in
// skillsync.yaml (path, ref), for an error about that value.
func (r *Registry) SourceAt(name string, keys ...string) Position {
	i := slices.IndexFunc(r.Config.Spec.Sources, func(s RemoteSource) bool { return s.Name == name })
	return r.specItemAt("sources", i, keys...)
}

// specItemAt is where item i of the list spec.<list> gives the value under keys;
// the config file alone where there is no item i.
func (r *Registry) specItemAt(list string, i int, keys ...string) Position {
	if i < 0 {
		return Position{File: ConfigName}
	}
	return r.config.at(append([]string{"spec", list, strconv.Itoa(i)}, keys...)...).Position()
}

// MCPServer is the server a capability's tool lives on.
func (c Capability) MCPServer(ws Workspace) string {
	if c.Spec.MCP != nil && c.Spec.MCP.Server != "" {
		return c.Spec.MCP.Server
	}
	if ws.Spec.MCP != nil {
		return ws.Spec.MCP.Server
	}
	return ""
}

// SkillDescription is what the capability's skill is listed with, for a model
// to choose it: its description, else its title.
func (c Capability) SkillDescription() string {
	if c.Spec.Description != "" {
		return c.Spec.Description
	}
	return c.Spec.Title
}

// Pos is where the capability is declared.
func (c Capability) Pos() Position { return c.doc.at("metadata", "name").Position() }

// WithSkillsNamed is the registry as far as the skills called one of names go:
// the same config and profiles, and only the declarations of those skills. A pass
// that plans some skill directories projects only what they need.
func (r *Registry) WithSkillsNamed(names map[string]bool) *Registry {
	some := *r
	some.Capabilities, some.Skills = nil, nil
	for _, c := range r.Capabilities {
		if c.Spec.Skill != nil && names[c.Spec.Skill.Alias] {
			some.Capabilities = append(some.Capabilities, c)
		}
	}
	for _, s := range r.Skills {
		if names[s.Name] {
			some.Skills = append(some.Skills, s)
		}
	}
	return &some
}

// DocumentSum is the digest of the bytes of the document that declares c, where
// its file was read a document at a time and the document decoded cleanly.
func (c Capability) DocumentSum() ([32]byte, bool) {
	key := c.doc.memoKey()
	return key.sum, key.sum != [32]byte{}
}

// File is the input file that declares c, without reading it again as Pos may.
func (c Capability) File() string { return c.doc.file() }

// FromSource tells whether c comes from a registry file of a source.
func (c Capability) FromSource() bool { return c.source > 0 }

// File is the input file that declares s.
func (s Skill) File() string { return s.doc.file() }

// Pos is where the skill is declared: its document's name, or the pattern of
// spec.skillDirs that matches its directory.
func (s Skill) Pos() Position { return s.nameAt().Position() }

func (s Skill) nameAt() place {
	switch {
	case s.pattern > 0:
		return itemAt(s.doc, s.pattern-1, "spec", "skillDirs")
	case s.source > 0:
		return itemAt(s.doc, s.source-1, "spec", "sources")
	}
	return s.doc.at("metadata", "name")
}

// NameAt is where the owner (CapabilityOwner or SkillOwner) declares the name
// of its skill: a capability's alias, a workflow skill's name.
func (r *Registry) NameAt(owner string) (Position, bool) {
	for _, c := range r.Capabilities {
		if c.Owner() == owner && c.Spec.Skill != nil {
			return c.doc.at("spec", "skill", "alias").Position(), true
		}
	}
	for _, s := range r.Skills {
		if SkillOwner(s.Name) == owner {
			return s.Pos(), true
		}
	}
	return Position{}, false
}

// FrontMatterKeys lists the front matter keys s carries beyond name and
// description, as SKILL.md spells them, in the order the specification and
// Claude Code list them.
func (s Skill) FrontMatterKeys() []string {
	var out []string
	for _, k := range []struct {
		key   string
		given bool
	}{
		{"license", s.Spec.License != ""}, {"compatibility", s.Spec.Compatibility != ""}, {"metadata", len(s.Spec.Metadata) > 0},
		{"allowed-tools", s.Spec.AllowedTools != ""}, {"argument-hint", s.Spec.ArgumentHint != ""},
		{"disable-model-invocation", s.Spec.DisableModelInvocation}, {"user-invocable", s.Spec.UserInvocable != nil},
		{"paths", len(s.Spec.Paths) > 0}, {"model", s.Spec.Model != ""}, {"context", s.Spec.Context != ""}, {"agent", s.Spec.Agent != ""},
	} {
		if k.given {
			out = append(out, k.key)
		}
	}
	return out
}

// KeyAt is where s gives the front matter key: its line in the SKILL.md of a
// skill directory, else the field of the document that declares it.
func (s Skill) KeyAt(key string) Position {
	if s.Dir != "" {
		return Position{File: path.Join(s.Dir, "SKILL.md"), Line: s.keyLines[key]}
	}
	field := strings.Builder{}
	for i, part := range strings.Split(key, "-") {
		if i > 0 && part != "" {
			part = strings.ToUpper(part[:1]) + part[1:]
		}
		field.WriteString(part)
	}
	return s.doc.at("spec", field.String()).Position()
}
