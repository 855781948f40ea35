package clients

import (
	"regexp"
	"slices"
	"strings"
)

// Format is how skills are written into one target directory so that every client
// reading it gets them right.
type Format struct {
	Target  Target
	Readers []Client
	// Keys are the front matter keys written beyond name and description: the
	// owner's, and disable-model-invocation wherever a reader honours it.
	Keys []string
	// TextSlot and TextSource are the owner's; a directory of no one client
	// names the text in words every model reads.
	TextSlot, TextSource string
	// Substitutes matches what any reader replaces or runs in a body; nil when
	// none does.
	Substitutes *regexp.Regexp
	// MCPExact is the one reader, set only where one client reads the directory
	// and names MCP tools plainly: a body may use its exact name. MCPOwner is the
	// owner, where it names MCP tools plainly.
	MCPExact, MCPOwner *Client
	// Unguarded are the readers that cannot keep a skill from the model's own
	// choice (or whose way is not recorded).
	Unguarded []string
	// SideFiles are the files written beside SKILL.md of a skill kept from the
	// model, one per reader whose way is a side file.
	SideFiles []SideFile
}

// neutralTextSource names the typed text for a directory read by many clients.
const neutralTextSource = "the text the user gave with this skill"

// FormatOf is the format of the target called name; ok is false for no such target.
func FormatOf(name string) (f Format, ok bool) {
	f, ok = formats[name]
	return f, ok
}

var formats = func() map[string]Format {
	out := make(map[string]Format, len(Targets))
	for _, t := range Targets {
		out[t.Name] = formatOf(t)
	}
	return out
}()

func formatOf(t Target) Format {
	f := Format{Target: t, TextSource: neutralTextSource}
	var patterns []string
	for _, c := range All {
		if !slices.Contains(c.Reads, f.Target.Dir) {
			continue
		}
		f.Readers = append(f.Readers, c)
		if c.Substitutes != nil {
			patterns = append(patterns, c.Substitutes.String())
		}
		switch {
		case !c.CanHide():
			f.Unguarded = append(f.Unguarded, c.Name)
		case c.Guard == GuardSideFile:
			f.SideFiles = append(f.SideFiles, *c.HideFile)
		default:
			f.Keys = appendNew(f.Keys, "disable-model-invocation")
		}
		if c.Name == f.Target.Owner {
			for _, k := range c.Keys {
				f.Keys = appendNew(f.Keys, k)
			}
			f.TextSlot = c.TextSlot
			if c.TextSource != "" {
				f.TextSource = c.TextSource
			}
			if c.MCPTool != "" && !c.MCPNamespaced {
				owner := c
				f.MCPOwner = &owner
			}
		}
	}
	if len(patterns) > 0 {
		f.Substitutes = regexp.MustCompile(strings.Join(patterns, "|"))
	}
	if len(f.Readers) == 1 {
		f.MCPExact = f.MCPOwner
	}
	slices.SortFunc(f.Keys, func(a, b string) int { return keyOrder(a) - keyOrder(b) })
	return f
}

// MCPToolName is the name c's model sees for tool of MCP server server (for a
// namespaced client, the namespace's).
func (c Client) MCPToolName(server, tool string) string {
	for _, r := range c.MCPServerChars {
		server = strings.ReplaceAll(server, string(r), "_")
	}
	return c.MCPNaming.Of(fillToolPattern(c.MCPTool, server, tool))
}

// fillToolPattern puts server and tool in place of <server> and <tool> in one
// pass, as strings.Replacer would (what it puts in is never read again as a
// placeholder), without building one per name: a cold run names a tool per file.
func fillToolPattern(pattern, server, tool string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(pattern, '<')
		if i < 0 {
			b.WriteString(pattern)
			return b.String()
		}
		b.WriteString(pattern[:i])
		pattern = pattern[i:]
		switch {
		case strings.HasPrefix(pattern, "<server>"):
			b.WriteString(server)
			pattern = pattern[len("<server>"):]
		case strings.HasPrefix(pattern, "<tool>"):
			b.WriteString(tool)
			pattern = pattern[len("<tool>"):]
		default:
			b.WriteByte('<')
			pattern = pattern[1:]
		}
	}
}

// keyOrder keeps front matter keys in the order Claude Code documents them.
func keyOrder(key string) int {
	return slices.Index(claudeCodeKeys, key)
}

// Strict is the format with the specification's front matter keys only: no
// Keys, and every reader whose way to keep a skill from its model is a key
// among the Unguarded.
func (f Format) Strict() Format {
	f.Keys = nil
	f.Unguarded = nil
	for _, c := range f.Readers {
		if !c.CanHideIn(true) {
			f.Unguarded = append(f.Unguarded, c.Name)
		}
	}
	return f
}

// Guarded says some reader of the directory can keep a skill from its model.
func (f Format) Guarded() bool {
	return len(f.Unguarded) < len(f.Readers)
}

func appendNew(list []string, item string) []string {
	if slices.Contains(list, item) {
		return list
	}
	return append(list, item)
}
