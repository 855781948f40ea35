package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// IsToolPattern says a skills: selector's tool is a glob pattern rather than one
// tool's name: an MCP tool name holds none of the characters a pattern gives a
// meaning to.
func IsToolPattern(tool string) bool { return strings.ContainsAny(tool, `*?[\`) }

// SkillSelector is the index in src.Skills of the selector that makes the tool a
// skill: the one naming it, else the first pattern that matches it. A name wins
// over a pattern wherever it stands, so that a tool a pattern takes can be given
// an alias or argument of its own without reordering the list.
func (src MCPSource) SkillSelector(tool string) (int, bool) {
	pattern := -1
	for j, sel := range src.Skills {
		if !IsToolPattern(sel.Tool) {
			if sel.Tool == tool {
				return j, true
			}
			continue
		}
		if ok, _ := path.Match(sel.Tool, tool); ok && pattern < 0 {
			pattern = j
		}
	}
	return pattern, pattern >= 0
}

// picked says name is one the include patterns (all names when there are none)
// select and no exclude pattern leaves out.
func picked(include, exclude []string, name string) bool {
	match := func(patterns []string) bool {
		return slices.ContainsFunc(patterns, func(p string) bool { ok, _ := path.Match(p, name); return ok })
	}
	return (len(include) == 0 || match(include)) && !match(exclude)
}

// DerivedAlias is the alias of a tool whose selector gives none, as the tool is
// named in the conventions of skill names: lowercase, with hyphens for
// underscores. It is not always one (ValidAlias).
func DerivedAlias(tool string) string {
	return strings.ReplaceAll(strings.ToLower(tool), "_", "-")
}

// ValidAlias says name can be an alias or a skill's name (they share one
// namespace), leaving aside the names that are reserved or taken, which depend
// on the rest of the workspace.
func ValidAlias(name string) bool {
	return len(name) <= MaxNameLength && isSkillName(name)
}

// SkillArgument is the property of an input schema (JSON text) that a skill's
// typed text fills when its selector names none: the one property the input
// requires, when it is a string. The error says why there is none.
func SkillArgument(input json.RawMessage) (string, error) {
	members, _ := jsonMembers(input)
	required, _ := jsonValue(members["required"]).([]any)
	switch len(required) {
	case 0:
		return "", errors.New("its input requires no property for the typed text to fill")
	case 1:
		name, _ := required[0].(string)
		if err := FillableArgument(input, name); err != nil {
			return "", err
		}
		return name, nil
	}
	names := make([]string, len(required))
	for i, r := range required {
		names[i] = fmt.Sprint(r)
	}
	return "", fmt.Errorf("its input requires %d properties (%s), and the typed text fills one", len(required), strings.Join(names, ", "))
}

// FillableArgument says why the typed text cannot fill the property argument of
// an input schema (JSON text), or nil: the property must be a string, and no
// other may be required. Validation says the same, at the places in a file.
func FillableArgument(input json.RawMessage, argument string) error {
	members, _ := jsonMembers(input)
	properties, _ := jsonMembers(members["properties"])
	raw, declared := properties[argument]
	property, _ := jsonMembers(raw)
	if !declared {
		return fmt.Errorf("its input has no property %q", argument)
	}
	switch typ := jsonValue(property["type"]); typ {
	case "string":
	case nil:
		return fmt.Errorf("its input property %q has no type; the typed text fills a string", argument)
	default:
		return fmt.Errorf("its input property %q has type %v, not string", argument, typ)
	}
	required, _ := jsonValue(members["required"]).([]any)
	for _, r := range required {
		if r != argument {
			return fmt.Errorf("its input also requires %v, which the typed text cannot supply", r)
		}
	}
	return nil
}
