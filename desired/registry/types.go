// Package registry reads a workspace's skillsync.yaml and the registry documents it
// names (capabilities, workflow skills, profiles), strictly and with positions, and
// validates them. It reads files; it never writes.
package registry

import (
	"encoding/json"

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

// object is the shape of every registry document.
type object[S any] struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   Metadata `json:"metadata"`
	Spec       S        `json:"spec"`
}

// Metadata names a registry object.
type Metadata struct {
	Name string `json:"name"`
}

// Workspace is skillsync.yaml.
type Workspace struct {
	APIVersion string        `json:"apiVersion"`
	Kind       string        `json:"kind"`
	Spec       WorkspaceSpec `json:"spec"`
}

// WorkspaceSpec is what a workspace declares.
type WorkspaceSpec struct {
	Registry      []string      `json:"registry"`
	Targets       []string      `json:"targets"`
	Profile       string        `json:"profile"`
	Disabled      []string      `json:"disabled"`
	ReservedNames []string      `json:"reservedNames"`
	MCP           *WorkspaceMCP `json:"mcp"`
	// UnguardedClients says what happens to a skill that must be kept from the
	// model's own choice in a target none of whose clients can do that:
	// UnguardedWithhold (the default) or UnguardedAllow.
	UnguardedClients string `json:"unguardedClients"`
	// GeneratedFiles says whether the team commits the generated files to git
	// (GeneratedCommit, the default) or has git ignore them (GeneratedIgnore).
	GeneratedFiles string `json:"generatedFiles"`
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

// WorkspaceMCP holds the default MCP server of the workspace's capabilities.
type WorkspaceMCP struct {
	Server string `json:"server"`
}

// CapabilitySpec is a capability declaration.
type CapabilitySpec struct {
	Title  string `json:"title"`
	Effect string `json:"effect"`
	// Input is the input schema as JSON text (see appendJSON).
	Input json.RawMessage  `json:"input"`
	MCP   *MCPBinding      `json:"mcp"`
	CLI   *CLIBinding      `json:"cli"`
	Skill *CapabilitySkill `json:"skill"`
}

// MCPBinding is how an agent reaches a capability through its MCP server.
type MCPBinding struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
}

// CLIBinding is how an agent reaches a capability from a shell.
type CLIBinding struct {
	Command []string `json:"command"`
	Flag    string   `json:"flag"`
}

// CapabilitySkill asks for a generated skill: /<alias> <text> fills <argument>.
type CapabilitySkill struct {
	Alias                string   `json:"alias"`
	Argument             string   `json:"argument"`
	Targets              []string `json:"targets"`
	RequiredCapabilities []string `json:"requiredCapabilities"`
}

// SkillSpec is a workflow skill with a body of its own.
type SkillSpec struct {
	Description            string   `json:"description"`
	Body                   string   `json:"body"`
	BodyFile               string   `json:"bodyFile"`
	RequiredCapabilities   []string `json:"requiredCapabilities"`
	Targets                []string `json:"targets"`
	DisableModelInvocation bool     `json:"disableModelInvocation"`
	UserInvocable          *bool    `json:"userInvocable"`
	Paths                  []string `json:"paths"`
}

// ProfileSpec lists the client capabilities a profile announces.
type ProfileSpec struct {
	Capabilities []string `json:"capabilities"`
}

// Capability is one loaded capability declaration.
type Capability struct {
	ID   string
	Spec CapabilitySpec
	doc  document
}

// Skill is one loaded workflow skill; Body holds the text of body or bodyFile.
type Skill struct {
	Name     string
	Spec     SkillSpec
	Body     string
	BodyPath string // the bodyFile, workspace-relative; empty for an inline body
	doc      document
}

// Profile is one loaded profile.
type Profile struct {
	Name string
	Spec ProfileSpec
	doc  document
}

// Registry is everything a workspace declares, as loaded from disk.
type Registry struct {
	Root       string // absolute workspace root
	ConfigFile string // "skillsync.yaml", relative to Root
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
	malformed    map[document]bool  // documents that did not decode cleanly
	sys          workspacefs.System // what it was loaded through, and is read again through
}

// System is what the registry was loaded through: the real disk unless LoadFrom
// was given another.
func (r *Registry) System() workspacefs.System {
	if r.sys == nil {
		return workspacefs.OS{}
	}
	return r.sys
}

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

// SkillOwner is how they name a workflow skill.
func SkillOwner(name string) string { return "skill/" + name }

// BodyFiles lists the bodyFile of every skill that has one, workspace-relative.
func (r *Registry) BodyFiles() []string {
	var files []string
	for _, s := range r.Skills {
		if s.BodyPath != "" {
			files = append(files, s.BodyPath)
		}
	}
	return files
}

// DefaultProfileAt is where spec.profile is written, for problems about it.
func (r *Registry) DefaultProfileAt() Position {
	return r.config.at("spec", "profile").Position()
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

// Pos is where the capability is declared.
func (c Capability) Pos() Position { return c.doc.at("metadata", "name").Position() }

// Pos is where the skill is declared.
func (s Skill) Pos() Position { return s.doc.at("metadata", "name").Position() }

// NameAt is where the owner (CapabilityOwner or SkillOwner) declares the name
// of its skill: a capability's alias, a workflow skill's name.
func (r *Registry) NameAt(owner string) (Position, bool) {
	for _, c := range r.Capabilities {
		if CapabilityOwner(c.ID) == owner && c.Spec.Skill != nil {
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
