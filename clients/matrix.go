package clients

import (
	"fmt"
	"strings"
)

// Matrix is the table of All as docs/clients.md shows it, in Markdown.
func Matrix() string {
	var b strings.Builder
	b.WriteString("| client | facts | skill directories it reads | skillsync target | invoked by name | kept from the model's own choice | MCP tool as the model sees it | evidence it is used here |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, c := range All {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n",
			c.Name, c.Source, code(c.Reads), orNone(code(c.Targets()), "none yet"),
			orNone(c.Invoke, "not recorded"), orNone(c.HideFromModel, "not recorded"), orNone(c.MCPTool, "not recorded"),
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
