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
	// bodyUnsafe finds registry text the client cannot show literally in a skill
	// body, if any; listUnsafe, text it would take for structure wherever it shows
	// it (the description in its skill listing, the body). The whys say what the
	// client would do with it.
	bodyUnsafe, listUnsafe func(string) string
	bodyWhy, listWhy       string
}

var dialects = map[string]dialect{
	"claude-code": {
		keys:       fullKeys,
		textSource: "the text the user typed after the command, shown below between the markers",
		textSlot:   "$ARGUMENTS",
		escape:     escapePlaceholders,
		bodyUnsafe: unescapablePlaceholder,
		bodyWhy:    "would substitute or run in the skill however it is escaped",
	},
	"qwen-code": {
		keys:       fullKeys,
		textSource: "the text the user gave with this command: it follows this message, after the command name, and again inside <skill-args>",
		escape:     verbatim,
		listUnsafe: tagLike,
		listWhy:    "would show the model as a tag: it lists skill descriptions inside tags of its own (<skill>, <description>) and wraps the user's text in <skill-args>",
	},
	// Qwen Code reads .agents/skills too, and lists those skills the same way.
	"agents": {
		keys:       agentSkillsKeys,
		textSource: "the text the user gave with this skill",
		escape:     verbatim,
		listUnsafe: tagLike,
		listWhy:    "would show the model as a tag (Qwen Code, which reads .agents/skills, lists skill descriptions inside tags of its own)",
	},
}

// tagOpening is what starts an XML-like tag: a < then a letter, /, ! or ?.
var tagOpening = regexp.MustCompile(`<[A-Za-z/!?]`)

// tagLike returns the first piece of s a client that wraps text in tags of its own
// would take for one: "a < b" and "x -> y" are text, "<skill-args>" is a tag.
func tagLike(s string) string {
	if loc := tagOpening.FindStringIndex(s); loc != nil {
		end := strings.IndexByte(s[loc[0]:], '>')
		if end < 0 {
			return s[loc[0]:loc[1]]
		}
		return s[loc[0] : loc[0]+end+1]
	}
	return ""
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

// Unrepresentable returns the part of text that target's clients would change or
// take for structure, whatever skillsync wrote, and what they would do with it; ""
// when text can be shown as it is. inBody says the text is written into a skill's
// body too, not only into its description.
func Unrepresentable(target, text string, inBody bool) (part, why string) {
	d, ok := dialects[target]
	if !ok {
		return "", ""
	}
	if d.bodyUnsafe != nil && inBody {
		if part = d.bodyUnsafe(text); part != "" {
			return part, d.bodyWhy
		}
	}
	if d.listUnsafe != nil {
		if part = d.listUnsafe(text); part != "" {
			return part, d.listWhy
		}
	}
	return "", ""
}
