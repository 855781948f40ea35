package registry

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/clients"
	yaml "go.yaml.in/yaml/v3"
)

// A skill directory may hold a file a client reads beside SKILL.md: Codex's
// agents/openai.yaml, with the skill's interface (display name, icon, default
// prompt), policy and dependencies. It is the skill's own for that client, so
// it is written only into the directories that client reads. Its way to keep
// the skill from the model and the front matter's are one setting: either
// given makes the skill kept from the model in every client, and the two
// disagreeing is a problem.

// clientSideFile is the side file a client reads at rel of a skill directory.
func clientSideFile(rel string) (clients.SideFile, bool) {
	for _, c := range clients.All {
		if c.HideFile != nil && c.HideFile.Path == rel {
			return *c.HideFile, true
		}
	}
	return clients.SideFile{}, false
}

// takeSideFiles checks the side files of s's directory dir (by path, as read)
// and keeps them in s, translating a side file that keeps the skill from the
// model into disable-model-invocation.
func (s *Skill) takeSideFiles(dir string, sides map[string][]byte) Problems {
	var ps Problems
	for _, rel := range slices.Sorted(maps.Keys(sides)) {
		sf, _ := clientSideFile(rel)
		file := path.Join(dir, rel)
		content, hide, p := readSideFile(file, sf, sides[rel])
		if p != nil {
			ps = append(ps, *p)
			continue
		}
		switch {
		case hide == sideHides:
			s.Spec.DisableModelInvocation = true
		case s.Spec.DisableModelInvocation && hide == sideShows:
			ps = append(ps, Problem{Pos: Position{File: file}, Message: fmt.Sprintf("%s lets the model invoke the skill, and SKILL.md says disable-model-invocation: true", rel),
				Hint: "make them agree: " + strings.TrimSpace(strings.ReplaceAll(sf.Content, "\n", " ")) + " here, or drop disable-model-invocation"})
			continue
		case s.Spec.DisableModelInvocation && hide == sideUnmergeable:
			ps = append(ps, Problem{Pos: Position{File: file}, Message: fmt.Sprintf("%s has its own %s but does not say whether the model may invoke the skill, which SKILL.md keeps from it", rel, firstKey(sf.Content)),
				Hint: "add to it: " + strings.TrimSpace(strings.ReplaceAll(sf.Content, "\n", " "))})
			continue
		case s.Spec.DisableModelInvocation:
			content = strings.TrimRight(content, "\n") + "\n" + sf.Content
		}
		if s.SideFiles == nil {
			s.SideFiles = map[string]string{}
		}
		s.SideFiles[rel] = content
	}
	return ps
}

// What a side file says of the model invoking the skill.
const (
	sideSilent      = iota // nothing: skillsync can add the client's setting
	sideHides              // it keeps the skill from the model, as the client's setting does
	sideShows              // it sets the client's setting the other way
	sideUnmergeable        // it has the setting's section without the setting
)

// readSideFile checks data, the side file sf at file, and returns it as it is
// written (without a leading document marker, which would follow the banner's)
// and what it says of the model invoking the skill.
func readSideFile(file string, sf clients.SideFile, data []byte) (content string, hide int, p *Problem) {
	if p := checkBytes(file, data); p != nil {
		return "", 0, p
	}
	at := func(line int, hint, format string, args ...any) (string, int, *Problem) {
		return "", 0, &Problem{Pos: Position{File: file, Line: line}, Message: fmt.Sprintf(format, args...), Hint: hint}
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	var doc, extra yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return at(1, "fix the YAML", "%s: %v", sf.Path, err)
	}
	if err := dec.Decode(&extra); err == nil {
		return at(extra.Line, "keep one YAML document in it", "%s holds more than one YAML document", sf.Path)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return at(1, "write it as keys and values: "+strings.Join(sf.Keys, ", "), "%s is not a mapping", sf.Path)
	}
	mapping := doc.Content[0]
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		if k := mapping.Content[i]; !slices.Contains(sf.Keys, k.Value) {
			return at(k.Line, "the client reads "+strings.Join(sf.Keys, ", ")+" there", "%s: key %q is not one the client reads", sf.Path, k.Value)
		}
	}
	content = strings.TrimPrefix(string(data), "---\n")
	var want yaml.Node
	if err := yaml.Unmarshal([]byte(sf.Content), &want); err != nil || len(want.Content) != 1 {
		return content, sideSilent, nil
	}
	return content, agreement(mapping, want.Content[0]), nil
}

// agreement compares the two-level mapping got with want, the client's way to
// keep a skill from its model: a section and one setting in it.
func agreement(got, want *yaml.Node) int {
	section, setting := want.Content[0].Value, want.Content[1]
	gotSection := valueOf(got, section)
	if gotSection == nil {
		return sideSilent
	}
	key, value := setting.Content[0].Value, setting.Content[1].Value
	v := valueOf(gotSection, key)
	switch {
	case v == nil:
		return sideUnmergeable
	case v.Value == value:
		return sideHides
	}
	return sideShows
}

// valueOf is the value of key in the mapping m; nil when m is no mapping or
// has no such key.
func valueOf(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func firstKey(content string) string {
	key, _, _ := strings.Cut(content, ":")
	return key
}
