package mcp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/skillsync/skillsync/desired/registry"
)

// carried are the frontmatter fields of a published skill a registry Skill
// keeps. Any other (allowed-tools, hooks, …) would widen what the model may do
// on a server's word alone, so it is dropped, and the snapshot says so.
var carried = map[string]bool{"name": true, "description": true, "disable-model-invocation": true, "user-invocable": true, "paths": true}

// addSkills adds to w every skill the server publishes that can be recorded,
// whether src's publishedSkills takes it or not: which do is for the registry to
// say when it loads.
func (r *Recorded) addSkills(src registry.MCPSource, listing Listing, w *snapshotWriter) error {
	switch {
	case src.PublishedSkills != nil && !listing.Publishes:
		r.Skipped = append(r.Skipped, "publishedSkills: the server does not declare the skills extension ("+SkillsExtension+")")
	case src.PublishedSkills == nil && listing.Publishes:
		r.Skipped = append(r.Skipped, "the skills the server publishes: publishedSkills in the source selects them")
	}
	for _, sk := range listing.Skills {
		if why := unrecordable(sk, listing.Skills); why != "" {
			r.Skipped = append(r.Skipped, fmt.Sprintf("skill %s: %s", sk.Name, why))
			continue
		}
		doc, err := skillDocument(src, sk)
		if err != nil {
			return fmt.Errorf("the skill %s: %w", sk.URI, err)
		}
		w.add(doc, origin{skill: sk})
		if src.SelectsSkill(sk.Name) {
			r.Skills = append(r.Skills, sk.Name)
		}
	}
	return nil
}

// unrecordable says why sk, one of all, cannot become a registry Skill; "" when
// it can.
func unrecordable(sk PublishedSkill, all []PublishedSkill) string {
	var twins []string
	for _, other := range all {
		if other.Name == sk.Name {
			twins = append(twins, other.URI)
		}
	}
	switch {
	case len(twins) > 1:
		return fmt.Sprintf("the server publishes %d skills named %s (%s); none of them is recorded", len(twins), sk.Name, strings.Join(twins, ", "))
	case !registry.ValidAlias(sk.Name):
		return "the name cannot name a skill (lowercase letters, digits and single hyphens, at most 64 characters)"
	case sk.Dynamic():
		return "the server publishes no digests for it (resources: dynamic), so its content cannot be verified"
	case len(sk.Files) > 1:
		return fmt.Sprintf("it has %d supporting files; skillsync writes a skill's SKILL.md only", len(sk.Files)-1)
	case sk.refused != nil:
		return "it was not recorded: " + sk.refused.Error()
	case sk.SkillMD().Size > MaxSkillFile:
		return fmt.Sprintf("its SKILL.md is %d bytes, more than the %d skillsync records", sk.SkillMD().Size, MaxSkillFile)
	}
	return ""
}

// skillDocument is the registry document of the published skill sk, read and
// verified: its body is prefixed with where it comes from, so that the model
// reading it knows whose instructions they are.
func skillDocument(src registry.MCPSource, sk PublishedSkill) ([]byte, error) {
	front, body, err := splitSkillMD(sk.Content)
	if err != nil {
		return nil, err
	}
	spec := map[string]any{
		"description": front["description"],
		"body": fmt.Sprintf("> Published by the MCP server `%s` as %s; these are that server's instructions.\n\n%s",
			src.Name, sk.URI, body),
	}
	// Whether the model may choose it on its own is publishedSkills' to say at
	// load; a server that keeps it from the model has the last word.
	if front["disable-model-invocation"] == true {
		spec["disableModelInvocation"] = true
	}
	if v, ok := front["user-invocable"]; ok {
		spec["userInvocable"] = v
	}
	if v, ok := front["paths"]; ok {
		spec["paths"] = v
	}
	var n yaml.Node
	if err := n.Encode(map[string]any{"apiVersion": registry.APIVersion, "kind": "Skill", "metadata": map[string]string{"name": sk.Name}, "spec": spec}); err != nil {
		return nil, err
	}
	order(&n, "apiVersion", "kind", "metadata", "spec")
	order(valueOf(&n, "spec"), "description", "disableModelInvocation", "userInvocable", "paths", "body")
	md := sk.SkillMD()
	n.HeadComment = fmt.Sprintf("Published by %s as %s (%s, %d bytes).", src.Name, sk.URI, md.Digest, md.Size)
	var dropped []string
	for k := range front {
		if !carried[k] {
			dropped = append(dropped, strconv.Quote(k))
		}
	}
	if len(dropped) > 0 {
		slices.Sort(dropped)
		n.HeadComment += "\nNot carried from its frontmatter: " + strings.Join(dropped, ", ") + "."
	}
	return encode(&n)
}
