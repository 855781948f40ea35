package registry

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/skillsync/skillsync/internal/banner"
	yaml "go.yaml.in/yaml/v3"
)

// A skill directory's SKILL.md is read as its clients read it: front matter
// between --- lines, then the body.

// frontMatterKeys are the keys a skill directory's SKILL.md may carry: the
// fields of a registry Skill, as the specification and Claude Code spell them.
var frontMatterKeys = map[string]bool{
	"name": true, "description": true, "license": true, "compatibility": true, "metadata": true,
	"allowed-tools": true, "disable-model-invocation": true, "user-invocable": true, "paths": true,
	"argument-hint": true, "model": true, "context": true, "agent": true,
}

// skillFrontMatter is the front matter of a skill directory's SKILL.md.
type skillFrontMatter struct {
	Name                   string            `yaml:"name"`
	Description            string            `yaml:"description"`
	License                string            `yaml:"license"`
	Compatibility          string            `yaml:"compatibility"`
	Metadata               map[string]string `yaml:"metadata"`
	DisableModelInvocation bool              `yaml:"disable-model-invocation"`
	UserInvocable          *bool             `yaml:"user-invocable"`
	Paths                  []string          `yaml:"paths"`
	AllowedTools           any               `yaml:"allowed-tools"`
	ArgumentHint           string            `yaml:"argument-hint"`
	Model                  string            `yaml:"model"`
	Context                string            `yaml:"context"`
	Agent                  string            `yaml:"agent"`
	allowedTools           string
	nameLine               int
	keyLines               map[string]int // the line of the file each key is on
}

// parseSkillFile reads a SKILL.md: its front matter, and its body with the line
// the body starts on.
func parseSkillFile(file string, data []byte) (fm skillFrontMatter, body string, bodyLine int, ps Problems) {
	at := func(line int, hint, format string, args ...any) (skillFrontMatter, string, int, Problems) {
		return skillFrontMatter{}, "", 0, Problems{{Pos: Position{File: file, Line: line}, Message: fmt.Sprintf(format, args...), Hint: hint}}
	}
	if p := checkBytes(file, data); p != nil {
		return skillFrontMatter{}, "", 0, Problems{*p}
	}
	text := string(data)
	rest, ok := strings.CutPrefix(text, "---\n")
	front, after, closed := strings.Cut(rest, "\n---\n")
	if !closed && strings.HasSuffix(rest, "\n---") {
		front, after, closed = strings.TrimSuffix(rest, "\n---"), "", true
	}
	if !ok || !closed {
		return at(1, "start it with a line ---, the front matter, and a line --- (LF line endings)", "SKILL.md has no front matter between --- lines at the top")
	}
	if _, _, err := banner.Inspect(data); err == nil {
		return at(2, "declare the skill's own directory, not a generated copy", "SKILL.md carries skillsync's banner: it is a generated file")
	}
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(front), &root); err != nil {
		return at(2, "fix the YAML between the --- lines", "front matter: %v", err)
	}
	if len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return at(2, "write the front matter as keys and values, name: and description: at least", "the front matter is not a mapping")
	}
	mapping := root.Content[0]
	if p := checkLimits(file, mapping); p != nil {
		return skillFrontMatter{}, "", 0, Problems{*p}
	}
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		k := mapping.Content[i]
		if !frontMatterKeys[k.Value] {
			ps = append(ps, Problem{Pos: Position{File: file, Line: k.Line + 1, Column: k.Column},
				Message: fmt.Sprintf("front matter key %q is not one skillsync carries", k.Value),
				Hint:    "remove it, or keep the skill hand-written; skillsync carries " + strings.Join(slices.Sorted(maps.Keys(frontMatterKeys)), ", ")})
		}
		if k.Value == "name" {
			fm.nameLine = k.Line + 1
		}
		if fm.keyLines == nil {
			fm.keyLines = map[string]int{}
		}
		fm.keyLines[k.Value] = k.Line + 1
	}
	if len(ps) > 0 {
		return skillFrontMatter{}, "", 0, ps
	}
	if err := mapping.Decode(&fm); err != nil {
		return skillFrontMatter{}, "", 0, typeProblems(file, err)
	}
	if fm.nameLine == 0 {
		return at(2, "add name: the directory's name", "the front matter has no name")
	}
	for _, f := range []struct{ key, value string }{{"license", fm.License}, {"compatibility", fm.Compatibility},
		{"argument-hint", fm.ArgumentHint}, {"model", fm.Model}, {"context", fm.Context}, {"agent", fm.Agent}} {
		switch {
		case keyLine(mapping, f.key) == 0:
		case strings.TrimSpace(f.value) == "":
			return at(keyLine(mapping, f.key), "give it a value, or leave it out", "%s is blank", f.key)
		case strings.ContainsAny(f.value, "\r\n"):
			return at(keyLine(mapping, f.key), "write it on one line", "%s spans more than one line", f.key)
		}
	}
	tools, err := AllowedToolsValue(fm.AllowedTools)
	if err != nil {
		return at(keyLine(mapping, "allowed-tools"), "", "allowed-tools: %v", err)
	}
	fm.allowedTools = tools
	bodyLine = strings.Count(text[:len(text)-len(after)], "\n") + 1
	return fm, after, bodyLine, nil
}

// typeProblems are the problems of a front matter that does not decode, each
// at its line of file: the front matter starts on the file's second line.
func typeProblems(file string, err error) Problems {
	hint := "give each key the type the Agent Skills specification gives it"
	var typeErr *yaml.TypeError
	if !errors.As(err, &typeErr) {
		return Problems{{Pos: Position{File: file, Line: 2}, Message: "front matter: " + err.Error(), Hint: hint}}
	}
	var out Problems
	for _, e := range typeErr.Errors {
		line := 2
		if n, rest, ok := strings.Cut(strings.TrimPrefix(e, "line "), ": "); ok {
			if at, err := strconv.Atoi(n); err == nil {
				line, e = at+1, rest
			}
		}
		out = append(out, Problem{Pos: Position{File: file, Line: line}, Message: "front matter: " + e, Hint: hint})
	}
	return out
}

// keyLine is the line of the file the key of the front matter mapping is on; 0
// when the mapping has no such key.
func keyLine(mapping *yaml.Node, key string) int {
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		if mapping.Content[i].Value == key {
			return mapping.Content[i].Line + 1
		}
	}
	return 0
}

// AllowedToolsValue is an allowed-tools value as the registry holds it: the
// specification's one string. A list, as Claude Code also takes, becomes that
// string only when no item holds a blank, which would split it in two.
func AllowedToolsValue(v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case []any:
		var items []string
		for _, item := range v {
			s, ok := item.(string)
			if !ok || s == "" || strings.ContainsAny(s, " \t\n") {
				return "", fmt.Errorf("the item %v cannot be one of a space-delimited list; write allowed-tools as one string, as the specification does", item)
			}
			items = append(items, s)
		}
		return strings.Join(items, " "), nil
	}
	return "", errors.New("neither a string nor a list; write it as one string, as the specification does")
}
