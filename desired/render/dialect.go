package render

import (
	"regexp"
	"strings"
)

// dialect is what differs between the clients that read a target directory.
type dialect struct {
	keys func(Skill) []field
	// textSource says where the typed text is, in words the client's model reads.
	textSource string
	// textSlot is the line the client replaces with the typed text, if it does.
	textSlot string
	// escape keeps registry text literal in the client's body syntax.
	escape func(string) string
	// unsafe finds registry text the client cannot show literally, if any.
	unsafe func(string) string
}

var dialects = map[string]dialect{
	"claude-code": {
		keys:       fullKeys,
		textSource: "the text the user typed after the command, shown below between the markers",
		textSlot:   "$ARGUMENTS",
		escape:     escapePlaceholders,
		unsafe:     unescapablePlaceholder,
	},
	"qwen-code": {
		keys:       fullKeys,
		textSource: "the text the user gave with this command: it follows this message, after the command name, and again inside <skill-args>",
		escape:     verbatim,
	},
	"agents": {
		keys:       agentSkillsKeys,
		textSource: "the text the user gave with this skill",
		escape:     verbatim,
	},
}

// fullKeys is the front matter Claude Code and Qwen Code both read.
func fullKeys(s Skill) []field {
	fields := []field{{"name", s.Name}, {"description", s.Description}}
	if s.ArgumentHint != "" {
		fields = append(fields, field{"argument-hint", s.ArgumentHint})
	}
	if s.DisableModelInvocation {
		fields = append(fields, field{"disable-model-invocation", true})
	}
	if s.UserInvocable != nil {
		fields = append(fields, field{"user-invocable", *s.UserInvocable})
	}
	if len(s.Paths) > 0 {
		fields = append(fields, field{"paths", s.Paths})
	}
	return fields
}

// agentSkillsKeys keeps to the Agent Skills specification plus the one extension
// every reader of .agents/skills honours.
func agentSkillsKeys(s Skill) []field {
	fields := []field{{"name", s.Name}, {"description", s.Description}}
	if s.DisableModelInvocation {
		fields = append(fields, field{"disable-model-invocation", true})
	}
	return fields
}

// Claude Code substitutes $ARGUMENTS, $ARGUMENTS[N] and $N in a skill body, and
// ${CLAUDE_SKILL_DIR} and ${CLAUDE_SESSION_ID}. A backslash right before $ARGUMENTS or
// $N keeps it literal, unless that backslash itself follows a backslash; any other
// backslash, and a $ that starts no placeholder, reach the model as written. It also
// runs !`command` as a shell command before the model sees the body, with no way to
// escape it (all seen with Claude Code 2.1.328).
var (
	claudePlaceholder = regexp.MustCompile(`\$(ARGUMENTS|[0-9])`)
	claudeUnescapable = regexp.MustCompile(`\\\$(ARGUMENTS|[0-9])|\$\{CLAUDE_[A-Z_]*\}|!` + "`")
)

// escapePlaceholders keeps the placeholders that appear in registry text literal.
func escapePlaceholders(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	return claudePlaceholder.ReplaceAllString(s, `\$$$1`)
}

// unescapablePlaceholder returns the first piece of s that Claude Code would
// substitute or run whatever the escaping: a backslash before a placeholder,
// ${CLAUDE_…}, or the start of a !`command`.
func unescapablePlaceholder(s string) string { return claudeUnescapable.FindString(s) }

func verbatim(s string) string { return s }

// Unrepresentable returns the part of text that target's clients would change in a
// skill body whatever skillsync wrote, or "" when text can be shown as it is.
func Unrepresentable(target, text string) string {
	d, ok := dialects[target]
	if !ok || d.unsafe == nil {
		return ""
	}
	return d.unsafe(text)
}
