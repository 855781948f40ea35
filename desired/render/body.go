package render

import (
	"fmt"
	"strings"
)

const (
	textBegin = "<<<TEXT"
	textEnd   = "TEXT>>>"
)

// appendCallBody appends the body of a capability's skill: what the capability is
// called, where the typed text goes, and the one way to reach it. It describes
// nothing beyond the capability's own title.
func appendCallBody(b []byte, d dialect, c Call) []byte {
	b = fmt.Appendf(b, "Capability `%s`: %s\n\n", d.escape(c.CapabilityID), d.escape(c.Title))
	b = fmt.Appendf(b, "Use %s, unchanged and as one value, as the `%s` input field.\n", d.textSource, d.escape(c.Argument))
	if d.textSlot != "" {
		b = fmt.Appendf(b, "\n%s\n%s\n%s\n", textBegin, d.textSlot, textEnd)
	}
	b = append(b, '\n')
	if c.MCPTool != "" {
		b = fmt.Appendf(b, "Call the MCP tool `%s` with `%s` set to that text.\n", d.escape(c.MCPTool), d.escape(c.Argument))
	} else {
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
