package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	yaml "go.yaml.in/yaml/v3"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/banner"
	"github.com/skillsync/skillsync/internal/printable"
)

// Owner is how a snapshot's banner names the server it records.
func Owner(server string) string { return "mcp/" + server }

// Recorded is what a snapshot holds of a server: each tool it records, each
// published skill it records that publishedSkills takes, and each tool, skill or
// selector it leaves out, with why.
type Recorded struct {
	Snapshot []byte
	Tools    []string
	Skills   []string
	Skipped  []string
	server   string
	origins  []origin
}

// Snapshot records what the server of src said, in a registry file for path,
// stamped with skillsync's banner: each tool it lists as a capability, and each
// skill it publishes as a Skill. Which of them become the workspace's is for
// src's selectors to say when the registry loads (registry.MCPSource.SkillOf),
// so that changing one needs no server; Recorded.Skipped says what they leave
// out, and why, as the registry will load it. A tool or skill that cannot be
// recorded is left out, with why. A tool src takes whose input schema is no JSON
// Schema is an error: the server is at fault, not the workspace.
func Snapshot(src registry.MCPSource, listing Listing, path string) (Recorded, error) {
	tools := slices.Clone(listing.Tools)
	var r Recorded
	w := snapshotWriter{}
	fmt.Fprintf(&w.docs, "---\n# Recorded by skillsync mcp refresh from the MCP server %s: what it lists. Which of these\n"+
		"# become capabilities and skills is for spec.mcpSources in skillsync.yaml to say. Declare a\n"+
		"# capability for one of these tools in another registry file to override what is recorded here.\n", src.Name)
	slices.SortFunc(tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(tools); i++ {
		if tools[i].Name == tools[i-1].Name {
			return Recorded{}, fmt.Errorf("the server lists the tool %q twice; nothing was written", tools[i].Name)
		}
	}
	for _, t := range tools {
		id := src.Name + "." + t.Name
		if why := unnamable(t.Name, id); why != "" {
			r.Skipped = append(r.Skipped, t.Name+": "+why)
			continue
		}
		input, err := inputOf(t)
		switch {
		case err != nil && src.SelectsTool(t.Name):
			return Recorded{}, fmt.Errorf("the tool %q has an inputSchema that is not JSON Schema: %v; nothing was written", t.Name, err)
		case err != nil:
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: its inputSchema is not JSON Schema: %v", t.Name, err))
			continue
		}
		doc, err := capability(src, t, id, input)
		if err != nil {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: %v", t.Name, err))
			continue
		}
		w.add(doc, origin{tool: t.Name})
		r.Tools = append(r.Tools, t.Name)
		if !src.SelectsTool(t.Name) {
			continue
		}
		if _, why := src.SkillOf(t.Name, input); why != "" {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s as a skill: %s", t.Name, why))
		}
	}
	for _, sk := range src.Skills {
		if !registry.IsToolPattern(sk.Tool) && (!slices.Contains(r.Tools, sk.Tool) || !src.SelectsTool(sk.Tool)) {
			alias := sk.Alias
			if alias == "" {
				alias = registry.DerivedAlias(sk.Tool)
			}
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: skill %s names a tool the server does not list (or the patterns leave out)", sk.Tool, alias))
		}
	}
	if err := r.addSkills(src, listing, &w); err != nil {
		return Recorded{}, err
	}
	stamped, err := banner.Stamp(w.docs.Bytes(), Owner(src.Name), path)
	r.Snapshot, r.server, r.origins = stamped, src.Name, w.origins
	return r, err
}

// unnamable says why the tool name cannot make the capability id; "" when it
// can.
func unnamable(name, id string) string {
	switch {
	case !registry.ValidMCPToolName(name):
		return "not a tool name MCP allows (1 to 128 letters, digits, _, - and .)"
	case !registry.ValidCapabilityID(id):
		return fmt.Sprintf("the capability id it would make, %s, is not valid: ids are letters and digits in runs separated by single ., _ or -", id)
	}
	return ""
}

// inputOf is the input schema of t as JSON text, checked as loading the snapshot
// would check it; a tool that gives none takes any object.
func inputOf(t *mcp.Tool) (json.RawMessage, error) {
	if t.InputSchema == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	input, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, err
	}
	return input, registry.CheckInputSchema(input)
}

// capability is the registry document of tool t.
func capability(src registry.MCPSource, t *mcp.Tool, id string, input json.RawMessage) ([]byte, error) {
	effect, why := EffectOf(t.Annotations)
	title := t.Title
	if title == "" && t.Annotations != nil {
		title = t.Annotations.Title
	}
	if title == "" {
		title = t.Name
	}
	var schema any
	if err := json.Unmarshal(input, &schema); err != nil {
		return nil, err
	}
	spec := map[string]any{"title": title, "effect": effect, "input": schema, "mcp": map[string]string{"server": src.Name, "tool": t.Name}}
	if d := oneLineDescription(t.Description); d != "" && d != title {
		spec["description"] = d
	}
	var n yaml.Node
	if err := n.Encode(map[string]any{"apiVersion": registry.APIVersion, "kind": "Capability", "metadata": map[string]string{"name": id}, "spec": spec}); err != nil {
		return nil, err
	}
	order(&n, "apiVersion", "kind", "metadata", "spec")
	specNode := valueOf(&n, "spec")
	order(specNode, "title", "description", "effect", "input", "mcp")
	valueOf(specNode, "effect").LineComment = why
	return encode(&n)
}

// oneLineDescription is a tool's description as a skill's description holds
// it: one line, its whitespace and line breaks folded into single spaces, every
// other control or bidi character escaped as \uXXXX so that it shows rather than
// acts, cut at a word to registry.MaxDescriptionLength characters. Servers write
// descriptions of several paragraphs, and the model reads it to decide whether
// to use the skill: folding keeps all of it, where refusing would drop it.
func oneLineDescription(s string) string {
	s = printable.String(strings.Join(strings.Fields(s), " "))
	if utf8.RuneCountInString(s) <= registry.MaxDescriptionLength {
		return s
	}
	cut := string([]rune(s)[:registry.MaxDescriptionLength-1])
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	return cut + "…"
}

// encode writes the document n as a snapshot writes its documents.
func encode(n *yaml.Node) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// order puts the keys of the mapping n in the order given, the others after them.
func order(n *yaml.Node, keys ...string) {
	rank := func(k string) int {
		if i := slices.Index(keys, k); i >= 0 {
			return i
		}
		return len(keys)
	}
	type pair struct{ k, v *yaml.Node }
	var pairs []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		pairs = append(pairs, pair{n.Content[i], n.Content[i+1]})
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return rank(a.k.Value) - rank(b.k.Value) })
	n.Content = n.Content[:0]
	for _, p := range pairs {
		n.Content = append(n.Content, p.k, p.v)
	}
}

func valueOf(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
