package registry

import (
	"encoding/json"
	"fmt"
)

// A snapshot records what an MCP server said: every tool it lists as a
// capability, and every skill it publishes. What of it becomes the workspace's is
// skillsync.yaml's to say, at every load, as a manifest decides what of its
// lockfile is used: the source's include and exclude pick the tools that are
// capabilities, its skills: selectors make skills of them, and publishedSkills
// picks the published skills and how they are written. Changing a selector takes
// effect without asking the server again.

// SkillOf is the skill block the selector of src that takes tool gives it, with
// its alias and argument derived where the selector gives none; nil when no
// selector takes it. why says why a tool a pattern takes is no skill: a pattern is
// a convention that some tools do not fit, and they stay capabilities. A selector
// that names the tool gets its skill as far as it can be derived, so that what
// does not fit is a problem at the selector.
func (src MCPSource) SkillOf(tool string, input json.RawMessage) (sk *CapabilitySkill, why string) {
	j, ok := src.SkillSelector(tool)
	if !ok {
		return nil, ""
	}
	sel := src.Skills[j]
	pattern := IsToolPattern(sel.Tool)
	alias, argument := sel.Alias, sel.Argument
	if alias == "" {
		alias = DerivedAlias(tool)
		if pattern && !ValidAlias(alias) {
			return nil, fmt.Sprintf("%q, the alias its name gives, is not a valid skill name (a selector of its own can give one)", alias)
		}
	}
	var err error
	if argument == "" {
		argument, err = SkillArgument(input)
	} else if pattern {
		err = FillableArgument(input, argument)
	}
	if pattern && err != nil {
		return nil, err.Error() + " (a selector of its own can name the argument)"
	}
	return &CapabilitySkill{Alias: alias, Argument: argument}, ""
}

// SelectsTool says the include and exclude patterns of src take the tool.
func (src MCPSource) SelectsTool(tool string) bool { return picked(src.Include, src.Exclude, tool) }

// SelectsSkill says the publishedSkills of src take the published skill name.
func (src MCPSource) SelectsSkill(name string) bool {
	sel := src.PublishedSkills
	return sel != nil && picked(sel.Include, sel.Exclude, name)
}

// selectRecorded keeps, of what each source's snapshot records, what its
// selectors take, as they say: the tools include and exclude pick, each with
// the skill its selector gives it, and the published skills publishedSkills
// picks. It notes, per source, every tool its snapshot records. The declarations
// are copied, never changed in place: the cache holds the decoded ones.
func selectRecorded(reg *Registry) {
	sources := reg.Config.Spec.MCPSources
	if len(sources) == 0 {
		return
	}
	bySnapshot := map[string]MCPSource{}
	for _, src := range sources {
		if p, ok := reg.SnapshotPath(src); ok {
			bySnapshot[p] = src
		}
	}
	reg.recordedTools = map[string]map[string]bool{}
	caps := make([]Capability, 0, len(reg.Capabilities))
	for _, c := range reg.Capabilities {
		src, recorded := bySnapshot[c.doc.file()]
		if !recorded || c.Spec.MCP == nil {
			caps = append(caps, c)
			continue
		}
		tools := reg.recordedTools[src.Name]
		if tools == nil {
			tools = map[string]bool{}
			reg.recordedTools[src.Name] = tools
		}
		tools[c.Spec.MCP.Tool] = true
		if !src.SelectsTool(c.Spec.MCP.Tool) {
			continue
		}
		c.Spec.Skill, _ = src.SkillOf(c.Spec.MCP.Tool, c.Spec.Input)
		caps = append(caps, c)
	}
	reg.Capabilities = caps
	skills := make([]Skill, 0, len(reg.Skills))
	for _, s := range reg.Skills {
		src, recorded := bySnapshot[s.doc.file()]
		switch {
		case !recorded:
		case !src.SelectsSkill(s.Name):
			continue
		default:
			sel := src.PublishedSkills
			s.Spec.DisableModelInvocation = s.Spec.DisableModelInvocation || !sel.ModelInvocable
			s.Spec.RequiredCapabilities = sel.RequiredCapabilities
		}
		skills = append(skills, s)
	}
	reg.Skills = skills
}

// RecordsTool says the snapshot of the source named server records the tool,
// whatever its selectors take.
func (r *Registry) RecordsTool(server, tool string) bool { return r.recordedTools[server][tool] }
