// Package render turns one skill into the bytes of its SKILL.md for one target client.
// Each target has its own dialect (front matter keys, how the body refers to the text
// the user typed, what must be escaped); everything else is shared.
package render

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/skillsync/skillsync/banner"
	yaml "go.yaml.in/yaml/v3"
)

// Skill is a skill ready to render, whatever declared it.
type Skill struct {
	Name                   string
	Owner                  string // "capability/<id>" or "skill/<name>"
	Description            string
	ArgumentHint           string
	DisableModelInvocation bool
	UserInvocable          *bool
	Paths                  []string
	Call                   *Call  // set for a capability's skill
	Body                   string // set for a workflow skill
}

// Call is how a capability's skill reaches the capability.
type Call struct {
	CapabilityID string
	Title        string
	Effect       string
	Argument     string
	MCPTool      string   // full name, mcp__<server>__<tool>; empty when there is none
	Command      []string // CLI fallback, used only without MCPTool
	Flag         string   // CLI flag before the text; empty passes it positionally
}

// Targets lists the targets there is a renderer for.
var Targets = []string{"claude-code", "qwen-code", "agents"}

// File renders s for target, stamped with the ownership banner for path.
func File(target string, s Skill, path string) ([]byte, error) {
	d, ok := dialects[target]
	if !ok {
		return nil, fmt.Errorf("render: unknown target %q", target)
	}
	front, err := frontMatter(d.keys(s))
	if err != nil {
		return nil, fmt.Errorf("render %s for %s: %w", s.Name, target, err)
	}
	body := s.Body
	if s.Call != nil {
		body = callBody(d, s.Name, *s.Call)
	} else if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	out := make([]byte, 0, len("---\n")+len(front)+len("---\n\n")+len(body))
	out = append(out, "---\n"...)
	out = append(out, front...)
	out = append(out, "---\n\n"...)
	out = append(out, body...)
	return banner.Stamp(out, s.Owner, path)
}

// field is one front matter key and its value, kept in the order written.
type field struct {
	key   string
	value any
}

// frontMatter writes fields as YAML. Fields that are all plain words are written
// directly; anything else goes through a YAML encoder and is read back, so any text
// round-trips.
func frontMatter(fields []field) ([]byte, error) {
	if front, ok := plainFrontMatter(fields); ok {
		return front, nil
	}
	return encodedFrontMatter(fields)
}

func encodedFrontMatter(fields []field) ([]byte, error) {
	doc := &yaml.Node{Kind: yaml.MappingNode}
	for _, f := range fields {
		v, err := valueNode(f.value)
		if err != nil {
			return nil, err
		}
		doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: f.key}, v)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	front := hideDelimiters(buf.Bytes())
	if err := roundTrips(front, fields); err != nil {
		return nil, err
	}
	return front, nil
}

// valueNode builds the node for one value. Strings are built by hand: yaml.v3 picks
// a block scalar for multi-line text, which cannot hold every string (a leading tab
// breaks it), and line-based front matter readers handle one quoted line best.
func valueNode(value any) (*yaml.Node, error) {
	switch v := value.(type) {
	case string:
		n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
		if strings.ContainsAny(v, "\n\r\t") || strings.Contains(v, delimiter) {
			n.Style = yaml.DoubleQuotedStyle
		}
		return n, nil
	case []string:
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, item := range v {
			n, _ := valueNode(item)
			seq.Content = append(seq.Content, n)
		}
		return seq, nil
	}
	var n yaml.Node
	if err := n.Encode(value); err != nil {
		return nil, err
	}
	return &n, nil
}

// delimiter ends the front matter. Claude Code ends it at the first "---" anywhere,
// even inside a quoted value, so no value may contain one as written.
const delimiter = "---"

// hideDelimiters rewrites every "---" as YAML escapes. Each one is inside a
// double-quoted scalar (valueNode sees to that), where "\x2D" reads back as "-".
func hideDelimiters(front []byte) []byte {
	return bytes.ReplaceAll(front, []byte(delimiter), []byte(`\x2D\x2D\x2D`))
}

// roundTrips refuses front matter that would not read back as the values written.
func roundTrips(front []byte, fields []field) error {
	var back map[string]any
	if err := yaml.Unmarshal(front, &back); err != nil {
		return fmt.Errorf("front matter does not parse back: %w", err)
	}
	for _, f := range fields {
		want, ok := f.value.(string)
		if ok && back[f.key] != want {
			return fmt.Errorf("front matter %s does not read back as written", f.key)
		}
	}
	if bytes.Contains(front, []byte(delimiter)) {
		return fmt.Errorf("front matter holds %q", delimiter)
	}
	return nil
}
