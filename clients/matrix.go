package clients

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Matrix is the table of All as docs/clients.md shows it, in Markdown, followed by
// how each client finds skills, its personal skills, the table of Targets and how each is written, and
// the targets recommended for some sets of clients in use.
func Matrix() string {
	return clientMatrix() + "\n" + findingMatrix() + "\n" + personalMatrix() + "\n" + keyMatrix() + "\n" + targetMatrix() + "\n" + recommendationMatrix()
}

// keyMatrix lists what each client is known to do with front matter keys, and
// how that is known.
func keyMatrix() string {
	var b strings.Builder
	b.WriteString("| client | key | what it does with it |\n|---|---|---|\n")
	for _, c := range All {
		for _, k := range slices.Sorted(maps.Keys(c.KeyFacts)) {
			fmt.Fprintf(&b, "| %s | `%s` | %s |\n", c.Name, k, c.KeyFacts[k])
		}
	}
	return b.String()
}

func clientMatrix() string {
	var b strings.Builder
	b.WriteString("| client | facts | skill directories it reads | skillsync target | invoked by name | kept from the model's own choice | MCP tool as the model sees it | evidence it is used here |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, c := range All {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
			c.Name, c.Source, code(c.Reads), orNone(code(c.Targets()), "none yet"),
			orNone(c.Invoke, "not recorded"), c.hideFromModel(), mcpTool(c),
			strings.Join(append([]string{code(c.Evidence)}, onPath(c.Tools)...), ", "))
	}
	return b.String()
}

func code(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = "`" + s + "`"
	}
	return strings.Join(quoted, ", ")
}

func onPath(tools []string) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = "`" + t + "` on PATH"
	}
	return out
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// hideFromModel says in words how c keeps a skill from the model's own choice.
func (c Client) hideFromModel() string {
	var s string
	switch c.Guard {
	case GuardFrontMatter:
		s = "`disable-model-invocation: true`"
	case GuardSideFile:
		s = "`" + c.HideFile.Path + "` beside SKILL.md: `" + strings.ReplaceAll(strings.TrimSpace(c.HideFile.Content), "\n", " ") + "`"
	case GuardNone:
		s = "no way"
	default:
		return "not recorded"
	}
	if c.GuardNote != "" {
		s += "; " + c.GuardNote
	}
	return s
}

func mcpTool(c Client) string {
	switch {
	case c.MCPTool == "":
		return "not recorded"
	case c.MCPNamespaced && c.MCPServerChars != "":
		return "namespace `" + c.MCPTool + "` holding `<tool>`, with `" + c.MCPServerChars + "` in `<server>` shown as `_`"
	case c.MCPNamespaced:
		return "namespace `" + c.MCPTool + "` holding `<tool>`"
	case c.MCPNaming.Rule != "":
		return "`" + c.MCPTool + "`, " + c.MCPNaming.Rule
	}
	return "`" + c.MCPTool + "`"
}

func targetMatrix() string {
	var b strings.Builder
	b.WriteString("| target | directory | made for | read by | front matter beyond name and description | MCP tool named as | typed text | readers that cannot keep a skill from the model | side files |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range Targets {
		f := formats[t.Name]
		var readers, sides []string
		for _, c := range f.Readers {
			readers = append(readers, c.Name)
		}
		for _, sf := range f.SideFiles {
			sides = append(sides, sf.Path)
		}
		naming := "server and tool by name"
		if f.MCPExact != nil {
			naming = "`" + f.MCPExact.MCPTool + "`"
		} else if f.MCPOwner != nil {
			naming += ", and `" + f.MCPOwner.MCPTool + "` for " + t.Owner
		}
		text := "named in words"
		if f.TextSlot != "" {
			text = "in place of `" + f.TextSlot + "`"
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %s | %s | %s | %s | %s | %s |\n",
			t.Name, t.Dir, orNone(t.Owner, "every client that reads it"), strings.Join(readers, ", "),
			orNone(code(f.Keys), "none"), naming, text, orNone(strings.Join(f.Unguarded, ", "), "none"), orNone(code(sides), "none"))
	}
	return b.String()
}

func findingMatrix() string {
	var b strings.Builder
	b.WriteString("| client | where it looks | a name in two directories it reads | names it already answers to | limits beyond the specification |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, c := range All {
		reserved := "not recorded"
		if len(c.Reserved) > 0 {
			reserved = fmt.Sprintf("%d commands and bundled skills", len(c.Reserved))
		}
		for _, s := range c.ReservedWith {
			reserved += ", and every name holding `" + s + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.Name, orNone(c.Depth, "not recorded"),
			orNone(c.Duplicates, "not recorded"), reserved, orNone(c.Limits, "none recorded"))
	}
	return b.String()
}

// personalMatrix lists the directories of the home directory each client reads
// skills from, and which of two skills of one name it shows its model.
func personalMatrix() string {
	var b strings.Builder
	b.WriteString("| client | personal skill directories it reads, in the home directory | a personal and a project skill of one name |\n|---|---|---|\n")
	for _, c := range All {
		personal := make([]string, len(c.Personal))
		for i, dir := range c.Personal {
			personal[i] = "~/" + dir
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", c.Name, orNone(code(personal), "not recorded"), c.PersonalClash)
	}
	return b.String()
}

// recommendedFor are the sets of clients in use whose recommended targets the
// docs show: each client alone, and some teams.
func recommendedFor() [][]string {
	var sets [][]string
	for _, c := range All {
		sets = append(sets, []string{c.Name})
	}
	return append(sets,
		[]string{"Claude Code", "Codex"},
		[]string{"Claude Code", "Gemini CLI"},
		[]string{"Claude Code", "Codex", "Copilot CLI"},
		[]string{"Codex", "Gemini CLI", "Cursor"},
		Measured())
}

func recommendationMatrix() string {
	var b strings.Builder
	b.WriteString("| clients in use | targets `init` writes | clients that still see a skill twice |\n")
	b.WriteString("|---|---|---|\n")
	for _, set := range recommendedFor() {
		r := Recommend(set)
		fmt.Fprintf(&b, "| %s | %s | %s |\n", strings.Join(set, ", "), code(r.Targets), orNone(strings.Join(r.Twice, ", "), "none"))
	}
	return b.String()
}
