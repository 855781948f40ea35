package render

import (
	"strings"

	"github.com/skillsync/skillsync/clients"
)

// dialect is how one target's files are written, from the clients that read it.
type dialect struct {
	clients.Format
}

func dialectOf(target string) (dialect, bool) {
	f, ok := clients.FormatOf(target)
	return dialect{f}, ok
}

// keys are the front matter fields of s that the target's readers read; only
// the specification's when s asks for those alone.
func (d dialect) keys(s Skill) []field {
	fields := []field{{"name", s.Name}, {"description", s.Description}}
	for _, f := range []field{{"license", s.License}, {"compatibility", s.Compatibility}} {
		if f.value != "" {
			fields = append(fields, f)
		}
	}
	if len(s.Metadata) > 0 {
		fields = append(fields, field{"metadata", s.Metadata})
	}
	if s.AllowedTools != "" {
		fields = append(fields, field{"allowed-tools", s.AllowedTools})
	}
	if s.SpecKeysOnly {
		return fields
	}
	for _, k := range d.Keys {
		switch {
		case k == "argument-hint" && s.ArgumentHint != "":
			fields = append(fields, field{k, s.ArgumentHint})
		case k == "disable-model-invocation" && s.DisableModelInvocation:
			fields = append(fields, field{k, true})
		case k == "user-invocable" && s.UserInvocable != nil:
			fields = append(fields, field{k, *s.UserInvocable})
		case k == "paths" && len(s.Paths) > 0:
			fields = append(fields, field{k, s.Paths})
		case k == "model" && s.Model != "":
			fields = append(fields, field{k, s.Model})
		case k == "context" && s.Context != "":
			fields = append(fields, field{k, s.Context})
		case k == "agent" && s.Agent != "":
			fields = append(fields, field{k, s.Agent})
		}
	}
	return fields
}

// escape keeps registry text literal for every reader: the first character of
// anything a reader would replace or run becomes its HTML entity, which models
// read as the character and no client substitutes (OpenCode and Kilo know no
// other escape).
func (d dialect) escape(s string) string {
	if d.Substitutes == nil || !strings.ContainsAny(s, substituteStarts) {
		return s
	}
	return d.Substitutes.ReplaceAllStringFunc(s, func(m string) string {
		return entity(m[0]) + m[1:]
	})
}

// substituteStarts are the characters anything a reader replaces or runs begins
// with (a test checks every client's pattern): text without them holds nothing
// to escape or refuse, which spares the pattern's search for most text.
const substituteStarts = "$!"

func entity(c byte) string {
	switch c {
	case '$':
		return "&#36;"
	case '!':
		return "&#33;"
	}
	return string(c)
}

// Unrepresentable returns the part of text that a client reading target would
// replace or run, or "" when there is none. Text that must reach the model
// character for character, such as a command line, cannot hold it.
func Unrepresentable(target, text string) string {
	d, ok := dialectOf(target)
	if !ok || d.Substitutes == nil || !strings.ContainsAny(text, substituteStarts) {
		return ""
	}
	return d.Substitutes.FindString(text)
}
