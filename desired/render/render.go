package render

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/skillsync/skillsync/internal/banner"
	yaml "go.yaml.in/yaml/v3"
)

// Skill is a skill ready to render, whatever declared it.
type Skill struct {
	Name  string
	Owner string // "capability/<id>" or "skill/<name>"
	// SpecKeysOnly writes the Agent Skills specification's front matter keys
	// only, none of the clients' own (spec.frontMatter: strict).
	SpecKeysOnly           bool
	Description            string
	ArgumentHint           string
	DisableModelInvocation bool
	UserInvocable          *bool
	Paths                  []string
	// The specification's optional keys, written wherever set.
	License, Compatibility, AllowedTools string
	Metadata                             map[string]string
	// Claude Code's model, context and agent, written where its readers take them.
	Model, Context, Agent string
	Call                  *Call  // set for a capability's skill
	Body                  string // set for a workflow skill
	// Files are the supporting files written beside SKILL.md, which its
	// manifest names (see banner.AppendManifest).
	Files []banner.ManifestEntry
	// Origin says where the content came from: a file of the workspace, or a
	// source and what pins it (see banner.AppendOrigin).
	Origin string
}

// Call is how a capability's skill reaches the capability.
type Call struct {
	CapabilityID string
	Title        string
	Effect       string
	Argument     string
	MCPServer    string
	MCPTool      string   // the tool's name on MCPServer; empty when there is none
	Command      []string // the CLI form, when there is one
	Flag         string   // CLI flag before the text; empty passes it positionally
}

// File renders s for target, stamped with the ownership banner for path. The file
// is written once, into a buffer sized for it.
func File(target string, s Skill, path string) ([]byte, error) {
	d, ok := dialectOf(target)
	if !ok {
		return nil, fmt.Errorf("render: unknown target %q", target)
	}
	out, err := banner.Open(make([]byte, 0, banner.OpenSize(s.Owner, path)+banner.ManifestSize(s.Files)+banner.OriginSize(s.Origin)+fileSizeHint(s)), s.Owner, path)
	if err != nil {
		return nil, err
	}
	if out, err = banner.AppendManifest(out, s.Files); err != nil {
		return nil, err
	}
	out = banner.AppendOrigin(out, s.Origin)
	if out, err = appendFrontMatter(out, d.keys(s)); err != nil {
		return nil, fmt.Errorf("render %s for %s: %w", s.Name, target, err)
	}
	out = append(out, "---\n\n"...)
	if s.Call != nil {
		out = appendCallBody(out, d, *s.Call)
	} else {
		out = append(out, s.Body...)
		if !strings.HasSuffix(s.Body, "\n") {
			out = append(out, '\n')
		}
	}
	return out, banner.Seal(out)
}

// SideFile is a file a client reads beside SKILL.md: content, stamped with the
// ownership banner for path. YAML reads the banner's opening "---" as the start
// of the document and its other lines as comments.
func SideFile(content, owner, path string) ([]byte, error) {
	out, err := banner.Open(make([]byte, 0, banner.OpenSize(owner, path)+len(content)), owner, path)
	if err != nil {
		return nil, err
	}
	out = append(out, content...)
	return out, banner.Seal(out)
}

// fileSizeHint is about what s takes after its banner: a capability's skill is
// about 900 bytes.
func fileSizeHint(s Skill) int {
	return 1<<10 + len(s.Description) + len(s.Body)
}

// field is one front matter key and its value, kept in the order written.
type field struct {
	key   string
	value any
}

// appendFrontMatter appends fields written as YAML. Fields that are all plain words
// are written directly; anything else goes through a YAML encoder and is read back,
// so any text round-trips.
func appendFrontMatter(dst []byte, fields []field) ([]byte, error) {
	if out, ok := appendPlainFrontMatter(dst, fields); ok {
		return out, nil
	}
	front, err := encodedFrontMatter(fields)
	if err != nil {
		return nil, err
	}
	return append(dst, front...), nil
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
		if strings.ContainsAny(v, "\n\r\t") || strings.Contains(v, delimiter) || yaml11Word(v) {
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
	case map[string]string:
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			key, _ := valueNode(k)
			val, _ := valueNode(v[k])
			m.Content = append(m.Content, key, val)
		}
		return m, nil
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
		switch want := f.value.(type) {
		case string:
			if back[f.key] != want {
				return fmt.Errorf("front matter %s does not read back as written", f.key)
			}
		case map[string]string:
			got, _ := back[f.key].(map[string]any)
			if len(got) != len(want) {
				return fmt.Errorf("front matter %s does not read back as written", f.key)
			}
			for k, v := range want {
				if got[k] != v {
					return fmt.Errorf("front matter %s.%s does not read back as written", f.key, k)
				}
			}
		}
	}
	if bytes.Contains(front, []byte(delimiter)) {
		return fmt.Errorf("front matter holds %q", delimiter)
	}
	return nil
}
