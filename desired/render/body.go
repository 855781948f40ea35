package render

import (
	"fmt"
	"strings"

	"github.com/skillsync/skillsync/internal/printable"
)

const (
	textBegin = "<<<TEXT"
	textEnd   = "TEXT>>>"
)

// appendCallBody appends the body of a capability's skill: what the capability is
// called, where the typed text goes, and the one way to reach it. It describes
// nothing beyond the capability's own title.
func appendCallBody(b []byte, d dialect, c Call) []byte {
	b = fmt.Appendf(b, "Capability `%s`: %s\n\n", d.escape(c.CapabilityID), d.escape(inert(c.Title)))
	b = fmt.Appendf(b, "Use %s, unchanged and as one value, as the `%s` input field.\n", d.TextSource, d.escape(c.Argument))
	if d.TextSlot != "" {
		b = fmt.Appendf(b, "\n%s\n%s\n%s\n", textBegin, d.TextSlot, textEnd)
	}
	b = append(b, '\n')
	switch {
	case c.MCPTool != "" && d.MCPExact != nil:
		b = fmt.Appendf(b, "Call the MCP tool `%s` with `%s` set to that text.\n",
			d.escape(d.MCPExact.MCPToolName(c.MCPServer, c.MCPTool)), d.escape(c.Argument))
	case c.MCPTool != "":
		b = fmt.Appendf(b, "Call the tool `%s` of the MCP server `%s`", d.escape(c.MCPTool), d.escape(c.MCPServer))
		if d.MCPOwner != nil {
			b = fmt.Appendf(b, " (in %s: `%s`)", d.Target.Owner, d.escape(d.MCPOwner.MCPToolName(c.MCPServer, c.MCPTool)))
		}
		b = fmt.Appendf(b, " with `%s` set to that text.\n", d.escape(c.Argument))
		if len(c.Command) > 0 {
			b = fmt.Appendf(b, "If this client offers no such tool, run this command instead, passing that text as one single argument where `<text>` stands (quote it for the shell; do not split it):\n\n    %s\n\n",
				d.escape(commandLine(c.Command, c.Flag)))
		}
	default:
		b = fmt.Appendf(b, "Run this command, passing that text as one single argument where `<text>` stands (quote it for the shell; do not split it):\n\n    %s\n\n",
			d.escape(commandLine(c.Command, c.Flag)))
	}
	b = append(b, "If no text was given, ask the user for it before calling.\n"...)
	if c.Effect != "read" {
		b = fmt.Appendf(b, "\nThis capability changes things (effect: %s). Call it exactly once. "+
			"If the call is refused, fails, or gives an unknown result, report that to the user and stop: "+
			"do not retry and do not try another way.\n", d.escape(c.Effect))
	}
	return b
}

// inert keeps one line of registry text from forging the body's structure: its
// angle brackets become entities, so it can neither open or close a tag a client
// wraps the user's text in (Qwen Code's <skill-args>) nor forge the <<<TEXT … TEXT>>>
// markers (models read &lt; and &gt; as the characters they stand for), and a line
// break or control character becomes a space, so it cannot start a line of its own
// such as a "---". Validation refuses such titles; the body never holds them either.
func inert(s string) string {
	if !strings.ContainsFunc(s, needsInert) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case needsInert(r):
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func needsInert(r rune) bool {
	return r == '<' || r == '>' || r == '\t' || r == '\n' || printable.Unsafe(r)
}

func commandLine(command []string, flag string) string {
	words := make([]string, 0, len(command)+2)
	for _, w := range command {
		words = append(words, shellQuote(w))
	}
	if flag != "" {
		words = append(words, flag)
	}
	return strings.Join(append(words, "<text>"), " ")
}

func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
