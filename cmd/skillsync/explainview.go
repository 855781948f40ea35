package main

// The explain view says, per skill name, where it comes from and what becomes
// of it in each target (explain, list). It only reads an Outcome.

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	"github.com/skillsync/skillsync/controller"
	"github.com/skillsync/skillsync/controller/plan"
	"github.com/skillsync/skillsync/desired"
	"github.com/skillsync/skillsync/desired/registry"
)

// Declaration is where a skill's name is declared.
type Declaration struct {
	Owner string // capability/<id> or skill/<name>
	At    registry.Position
}

// TargetState is what becomes of a skill in one target directory.
type TargetState struct {
	Target string
	Path   string
	// State is in sync, create, update, delete, conflict, withheld, hand-written or
	// absent; Reason says why where there is one.
	State  string
	Reason string
	// Override says what plan.Options.Force would do with a file a person
	// edited.
	Override plan.Override
}

// ClientView is a client in use that will find the skill.
type ClientView struct {
	Client string
	Paths  []string
	// Offered says the client's model may choose the skill on its own.
	Offered bool
	// Personal is the client's personal directory that holds a skill of the same
	// name, as ~/dir, "" for none; Clash is which of the two its model is shown.
	Personal string
	Clash    clients.Clash
}

// Explanation is everything known about one skill name.
type Explanation struct {
	Name         string
	Declarations []Declaration
	Targets      []TargetState
	Clients      []ClientView
	// Description is what a client lists the skill with, for its model to choose.
	Description string
	// KeptFromModel says the skill is meant to run only when a person asks for it.
	KeptFromModel bool
	// Effect is the capability's effect, and EffectFrom where it comes from: a
	// declaration, or the annotations an MCP server gave; empty for a workflow
	// skill.
	Effect, EffectFrom string
	// Dir is the skill directory it is read from, and Files the files in it
	// written beside each SKILL.md; empty for a skill without one.
	Dir   string
	Files []string
	// Source is the source the skill comes from, nil for the workspace's own;
	// Shadows names the sources whose skill, or capability, the workspace's
	// own of the same name replaces.
	Source  *registry.SourceOrigin
	Shadows []string
	// Allowed are the findings of the scan in a source's skill that the
	// source's allow lets through.
	Allowed []string
	// FrontMatter says, for each front matter key of a registry Skill, which
	// targets' files carry it and what their clients do with it.
	FrontMatter []desired.KeyNote
}

// explainSkill tells, from a planned pass, where the skill name comes from, what
// becomes of it in each target and which clients in use will find it; ok is false
// when nothing declares the name and no person wrote a skill of it.
func explainSkill(out controller.Outcome, found seen, name string) (e Explanation, ok bool) {
	e = Explanation{Name: name, Declarations: []Declaration{}, Targets: []TargetState{}, Clients: []ClientView{},
		KeptFromModel: desired.KeptFromModel(out.Registry)[name]}
	reg := out.Registry
	for _, owner := range ownersOf(reg, name) {
		at, _ := reg.NameAt(owner)
		e.Declarations = append(e.Declarations, Declaration{Owner: owner, At: at})
	}
	for _, c := range reg.Capabilities {
		if c.Spec.Skill != nil && c.Spec.Skill.Alias == name && e.Description == "" {
			e.Description, e.Effect = c.SkillDescription(), c.Spec.Effect
			e.EffectFrom = effectFrom(reg, c)
		}
	}
	states := stateByPath(out)
	for _, t := range clients.Targets {
		p := path.Join(t.Dir, name, desired.SkillFile)
		st, known := states[p]
		for _, w := range out.Withheld {
			switch {
			case w.Skill != name || w.Target != t.Name:
			case known && st.State == string(plan.Delete):
				st.Reason = "withheld: " + w.Reason // why it is an orphan
			case !known || st.State == "hand-written":
				st, known = TargetState{State: "withheld", Reason: w.Reason}, true
			}
		}
		if !known {
			continue
		}
		st.Target, st.Path = t.Name, p
		e.Targets = append(e.Targets, st)
	}
	for _, s := range reg.Shadowed {
		if (s.Kind == "skill" && s.Name == name) || (s.Kind == "capability" && aliasOf(reg, s.Name) == name) {
			e.Shadows = append(e.Shadows, s.Source)
		}
	}
	for _, sk := range reg.Skills {
		if sk.Name == name && e.Description == "" {
			e.Description, e.Dir, e.Source, e.Allowed = sk.Spec.Description, sk.Dir, sk.Origin, sk.Allowed
			for _, f := range sk.Files {
				e.Files = append(e.Files, f.Path)
			}
			e.FrontMatter = desired.KeyNotesOf(reg, sk, writtenTo(e.Targets))
		}
	}
	for _, c := range clients.All {
		if len(found.evidence[c.Name]) == 0 {
			continue
		}
		view := ClientView{Client: c.Name, Paths: []string{}, Offered: !e.KeptFromModel || !c.CanHide()}
		for _, st := range e.Targets {
			if slices.Contains(c.Reads, clients.Dir(st.Target)) && st.State != "withheld" && st.State != "delete" {
				view.Paths = append(view.Paths, st.Path)
			}
		}
		if len(view.Paths) > 0 {
			view.Personal, view.Clash = personalCopy(c, found.personal, name), c.PersonalClash
			e.Clients = append(e.Clients, view)
		}
	}
	return e, len(e.Declarations) > 0 || len(e.Targets) > 0
}

// writtenTo are the targets of states that hold, or are to hold, the skill.
func writtenTo(states []TargetState) []string {
	var out []string
	for _, st := range states {
		switch st.State {
		case "withheld", "delete", "hand-written", "absent":
		default:
			out = append(out, st.Target)
		}
	}
	return out
}

// ownersOf lists the declarations of reg whose skill is called name.
func ownersOf(reg *registry.Registry, name string) []string {
	var owners []string
	for _, c := range reg.Capabilities {
		if c.Spec.Skill != nil && c.Spec.Skill.Alias == name {
			owners = append(owners, c.Owner())
		}
	}
	for _, s := range reg.Skills {
		if s.Name == name {
			owners = append(owners, registry.SkillOwner(s.Name))
		}
	}
	return owners
}

// stateByPath is the state of every SKILL.md a pass knows of.
func stateByPath(out controller.Outcome) map[string]TargetState {
	states := map[string]TargetState{}
	for _, p := range out.Plan.InSync {
		if clients.IsSkillFile(p) {
			states[p] = TargetState{State: "in sync"}
		}
	}
	for _, c := range out.Plan.Changes {
		if clients.IsSkillFile(c.Path) {
			state := string(c.Action)
			if c.Action == plan.None {
				state = "in sync"
			}
			states[c.Path] = TargetState{State: state, Reason: c.Reason, Override: c.Override}
		}
	}
	for _, p := range out.HandWritten {
		if _, planned := states[p]; !planned {
			states[p] = TargetState{State: "hand-written", Reason: "a person's skill; skillsync never changes it"}
		}
	}
	return states
}

// skillNames lists every skill name a pass knows: declared, generated or
// hand-written, sorted.
func skillNames(out controller.Outcome) []string {
	seen := map[string]bool{}
	for _, c := range out.Registry.Capabilities {
		if c.Spec.Skill != nil {
			seen[c.Spec.Skill.Alias] = true
		}
	}
	for _, s := range out.Registry.Skills {
		seen[s.Name] = true
	}
	for p := range stateByPath(out) {
		if dir := clients.SkillDirOf(p); dir != "" {
			seen[path.Base(dir)] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Summary is one line on what becomes of the skill across the targets, such as
// "2 in sync, 1 withheld".
func (e Explanation) Summary() string {
	counts := map[string]int{}
	var order []string
	for _, t := range e.Targets {
		if counts[t.State] == 0 {
			order = append(order, t.State)
		}
		counts[t.State]++
	}
	parts := make([]string, 0, len(order))
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	return strings.Join(parts, ", ")
}

// effectFrom says where the effect of c comes from: a declaration, or the
// annotations of an MCP server recorded in a snapshot.
func effectFrom(reg *registry.Registry, c registry.Capability) string {
	if reg.FromSnapshot(c) {
		return "the annotations of the MCP server " + c.MCPServer(reg.Config) + ", recorded in " + c.Pos().File
	}
	return "declared at " + c.Pos().File
}

// MCPEffect is the effect of a capability that calls a tool of one of the
// workspace's MCP sources, and where it comes from.
type MCPEffect struct {
	Capability, Server, Tool, Effect, From string
}

// mcpEffects lists the effect of each capability calling a tool of an MCP source,
// by capability: the server's annotations are hints, so which ones a declaration
// overrides is worth seeing at a glance.
func mcpEffects(reg *registry.Registry) []MCPEffect {
	sources := map[string]bool{}
	for _, src := range reg.Config.Spec.MCPSources {
		sources[src.Name] = true
	}
	var out []MCPEffect
	for _, c := range reg.Capabilities {
		if server := c.MCPServer(reg.Config); c.Spec.MCP != nil && sources[server] {
			out = append(out, MCPEffect{Capability: c.ID, Server: server, Tool: c.Spec.MCP.Tool, Effect: c.Spec.Effect, From: effectFrom(reg, c)})
		}
	}
	slices.SortFunc(out, func(a, b MCPEffect) int { return strings.Compare(a.Capability, b.Capability) })
	return out
}

// aliasOf is the skill name of the capability id in reg (the workspace's own,
// for one a source's shadows), or "" when it has none.
func aliasOf(reg *registry.Registry, id string) string {
	for _, c := range reg.Capabilities {
		if c.ID == id && c.Spec.Skill != nil {
			return c.Spec.Skill.Alias
		}
	}
	return ""
}
