package render

import "strings"

// dialect is what differs between the clients that read a target directory.
type dialect struct {
	keys func(Skill) []field
	// textSource says where the typed text is, in words the client's model reads.
	textSource string
	// textSlot is the line the client replaces with the typed text, if it does.
	textSlot string
	// escape keeps registry text literal in the client's body syntax.
	escape func(string) string
}

var dialects = map[string]dialect{
	"claude-code": {
		keys:       fullKeys,
		textSource: "the text the user typed after the command, shown below between the markers",
		textSlot:   "$ARGUMENTS",
		escape:     escapeDollar,
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

// escapeDollar stops Claude Code from substituting $ARGUMENTS, $0, $1… that happen
// to appear in registry text: it reads \$ as a literal $.
func escapeDollar(s string) string { return strings.ReplaceAll(s, "$", `\$`) }

func verbatim(s string) string { return s }
