//go:build e2e

package e2e

import (
	"html"
	"strings"
	"unicode/utf8"
)

// The markers the Claude Code renderer puts around $ARGUMENTS (desired/render).
const (
	textBegin = "<<<TEXT\n"
	textEnd   = "\nTEXT>>>"
)

// arrives is the typed sentence as the client passes it on: both clients trim the
// blanks around the text after /alias.
func arrives(c client, typed string) string { return strings.TrimSpace(typed) }

// expectedBody is the body as the model should see it: with the typed text in the
// slot, for a client that fills one, and otherwise exactly as written.
func expectedBody(c client, body string) string {
	return strings.Replace(body, textBegin+"$ARGUMENTS"+textEnd, textBegin+arrives(c, sentence)+textEnd, 1)
}

// titleLine is the title as the model reads the capability line of a body:
// entities read as the characters they stand for.
func titleLine(block, capabilityID string) string {
	_, rest, _ := strings.Cut(block, "Capability `"+capabilityID+"`: ")
	line, _, _ := strings.Cut(rest, "\n")
	return html.UnescapeString(line)
}

// typedText is where the client put the typed text for the model.
func typedText(c client, tr transcript, block string) string {
	if c.target == "claude-code" {
		_, rest, _ := strings.Cut(block, textBegin)
		text, _, _ := strings.Cut(rest, textEnd)
		return text
	}
	// The body itself mentions <skill-args>; the client's own tag comes last, in
	// the message that holds the skill. Other texts (the MCP tools' descriptions)
	// may hold the tag too.
	if i := strings.LastIndex(block, "<skill-args>"); i >= 0 {
		text, _, _ := strings.Cut(block[i+len("<skill-args>"):], "</skill-args>")
		return html.UnescapeString(text)
	}
	for _, t := range tr.texts {
		if i := strings.LastIndex(t, "<skill-args>"); i >= 0 {
			text, _, _ := strings.Cut(t[i+len("<skill-args>"):], "</skill-args>")
			return html.UnescapeString(text)
		}
	}
	return ""
}

// placedOnce checks the typed text reached the model once where the argument
// belongs: Claude Code's slot, or Qwen Code's <skill-args> (which also echoes the
// command line, its own format).
func placedOnce(c client, block, typed string) bool {
	if c.target == "claude-code" {
		return strings.Count(block, typed) == 1
	}
	return strings.Count(block, "<skill-args>"+typed+"</skill-args>") == 1
}

// listing returns, per skill name, the description line the client shows the model.
func listing(c client, tr transcript) map[string]string {
	out := map[string]string{}
	for _, t := range tr.texts {
		t = html.UnescapeString(t)
		if c.target == "claude-code" {
			_, list, ok := strings.Cut(t, "The following skills are available for use with the Skill tool:\n")
			if !ok {
				continue
			}
			for _, line := range strings.Split(list, "\n") {
				if name, desc, ok := strings.Cut(strings.TrimPrefix(line, "- "), ": "); ok && strings.HasPrefix(line, "- ") {
					out[name] = desc
				}
			}
			continue
		}
		for _, item := range strings.Split(t, "<skill>\n")[1:] {
			name := between(item, "<name>\n", "\n</name>")
			out[name] = between(item, "<description>\n", "\n</description>")
		}
	}
	return out
}

// listedWithDescription compares with blanks folded: Claude Code shows a tab in a
// description as a space.
func listedWithDescription(c client, tr transcript, name, description string) bool {
	desc, ok := listing(c, tr)[name]
	fold := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	return ok && strings.Contains(fold(desc), fold(descriptionStart(description)))
}

func listedAtAll(c client, tr transcript, name string) bool {
	_, ok := listing(c, tr)[name]
	return ok
}

// descriptionStart is the part of a description every client shows unchanged: the
// first line, trimmed, at most 40 characters.
func descriptionStart(d string) string {
	d, _, _ = strings.Cut(strings.TrimSpace(d), "\n")
	d = strings.TrimSpace(d)
	for utf8.RuneCountInString(d) > 40 {
		_, size := utf8.DecodeLastRuneInString(d)
		d = d[:len(d)-size]
	}
	return d
}

func between(s, begin, end string) string {
	_, rest, ok := strings.Cut(s, begin)
	if !ok {
		return ""
	}
	got, _, _ := strings.Cut(rest, end)
	return got
}

// inert is a title as a skill body holds it: its angle brackets as entities, which
// models read as the characters (desired/render).
func inert(title string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(title)
}

// structureIntact checks that the title reached the model as text, not as the
// markers around Claude Code's slot or the tags around Qwen Code's arguments: the
// block holds each marker once (Claude Code), no tag of its own but the ones the
// body names (Qwen Code), and never the title's angle brackets as written.
func structureIntact(c client, block, title string) bool {
	if strings.ContainsAny(title, "<>") && strings.Contains(block, title) {
		return false
	}
	if c.target == "claude-code" {
		return strings.Count(block, strings.TrimSpace(textBegin)) == 1 && strings.Count(block, strings.TrimSpace(textEnd)) == 1
	}
	return !strings.Contains(block, "</skill-args> <skill-args>")
}
