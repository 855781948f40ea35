package forget

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Disable returns config, the bytes of skillsync.yaml, with name added to
// spec.disabled, every other byte as it was: a flow list gets the name before
// its closing bracket, a block list a new item after its last, and a spec
// without the key a `disabled: [name]` line first. ok is false when the name is
// listed already. A layout it cannot edit safely, like a spec written in flow
// style, is an error saying to add the name by hand.
func Disable(config []byte, name string) (edited []byte, ok bool, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(config, &doc); err != nil {
		return nil, false, err
	}
	spec := mapValue(&doc, "spec")
	if spec == nil || spec.Kind != yaml.MappingNode || spec.Style&yaml.FlowStyle != 0 || len(spec.Content) == 0 {
		return nil, false, byHand(name, "spec is not a block mapping")
	}
	lines := bytes.SplitAfter(config, []byte("\n"))
	newline := "\n"
	if bytes.Contains(config, []byte("\r\n")) {
		newline = "\r\n"
	}
	key, list := mapEntry(spec, "disabled")
	switch {
	case key == nil:
		first := spec.Content[0]
		line := strings.Repeat(" ", first.Column-1) + "disabled: [" + name + "]" + newline
		lines = slices.Insert(lines, first.Line-1, []byte(line))
	case list.Kind == yaml.ScalarNode && list.Tag == "!!null" && list.Line == key.Line && list.Value == "":
		at := key.Line - 1
		text := string(lines[at])
		cut := key.Column - 1 + len("disabled:")
		if cut > len(text) || text[key.Column-1:cut] != "disabled:" || strings.TrimSpace(text[cut:]) != "" {
			return nil, false, byHand(name, "spec.disabled is not written as the editor expects")
		}
		lines[at] = []byte(text[:cut] + " [" + name + "]" + newline)
	case list.Kind != yaml.SequenceNode:
		return nil, false, byHand(name, "spec.disabled is not a list")
	case slices.ContainsFunc(list.Content, func(n *yaml.Node) bool { return n.Value == name }):
		return config, false, nil
	case list.Style&yaml.FlowStyle != 0:
		at := list.Line - 1
		text := string(lines[at])
		open := list.Column - 1
		end := strings.IndexByte(text[open:], ']')
		if open >= len(text) || text[open] != '[' || end < 0 || strings.ContainsAny(text[open:open+end], "'\"#") {
			return nil, false, byHand(name, "spec.disabled is a list over more than one line")
		}
		end += open
		sep := ", "
		if strings.TrimSpace(text[open+1:end]) == "" {
			sep = ""
		}
		lines[at] = []byte(strings.TrimRight(text[:end], " ") + sep + name + text[end:])
	default:
		last := list.Content[len(list.Content)-1]
		if last.Kind != yaml.ScalarNode || strings.Contains(last.Value, "\n") {
			return nil, false, byHand(name, "the last entry of spec.disabled is not one word")
		}
		text := string(lines[last.Line-1])
		dash := strings.LastIndex(text[:last.Column-1], "-")
		if dash < 0 {
			return nil, false, byHand(name, "spec.disabled is not written as the editor expects")
		}
		line := text[:dash] + "- " + name + newline
		lines = slices.Insert(lines, last.Line, []byte(line))
	}
	edited = bytes.Join(lines, nil)
	if err := sameBut(config, edited, name); err != nil {
		return nil, false, byHand(name, err.Error())
	}
	return edited, true, nil
}

func byHand(name, why string) error {
	return fmt.Errorf("cannot add %s to spec.disabled of skillsync.yaml (%s): add it there by hand", name, why)
}

// sameBut checks that edited decodes to what config does, but for name added at
// the end of spec.disabled.
func sameBut(config, edited []byte, name string) error {
	var before, after map[string]any
	if err := yaml.Unmarshal(config, &before); err != nil {
		return err
	}
	if err := yaml.Unmarshal(edited, &after); err != nil {
		return fmt.Errorf("the edit would not decode: %v", err)
	}
	spec, _ := before["spec"].(map[string]any)
	if spec == nil {
		return fmt.Errorf("spec is not a mapping")
	}
	disabled, _ := spec["disabled"].([]any)
	spec["disabled"] = append(disabled, name)
	if !reflect.DeepEqual(before, after) {
		return fmt.Errorf("the edit would change more than spec.disabled")
	}
	return nil
}

// mapValue is the value of key in the document's top mapping.
func mapValue(doc *yaml.Node, key string) *yaml.Node {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil
	}
	_, v := mapEntry(doc.Content[0], key)
	return v
}

// mapEntry is the key node and value node of key in mapping m.
func mapEntry(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}
