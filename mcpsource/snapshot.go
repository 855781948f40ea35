package mcpsource

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillsync/skillsync/banner"
	"github.com/skillsync/skillsync/desired/registry"
	yaml "go.yaml.in/yaml/v3"
)

// Owner is how a snapshot's banner names the server it records.
func Owner(server string) string { return "mcp/" + server }

// Recorded is what a snapshot holds of a server: each tool and published skill
// it records, and each it leaves out with why.
type Recorded struct {
	Snapshot []byte
	Tools    []string
	Skills   []string
	Skipped  []string
}

// Snapshot records the tools of src that its include and exclude patterns select
// as capabilities, and the published skills it selects as skills, in a registry
// file for path, stamped with skillsync's banner. A tool or skill that cannot be
// recorded is left out, with why.
func Snapshot(src registry.MCPSource, listing Listing, path string) (Recorded, error) {
	tools := slices.Clone(listing.Tools)
	var r Recorded
	var docs bytes.Buffer
	fmt.Fprintf(&docs, "---\n# Recorded by skillsync mcp refresh from the MCP server %s. Declare a capability for one\n"+
		"# of these tools in another registry file to override what is recorded here.\n", src.Name)
	slices.SortFunc(tools, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(tools); i++ {
		if tools[i].Name == tools[i-1].Name {
			return Recorded{}, fmt.Errorf("the server lists the tool %q twice; nothing was written", tools[i].Name)
		}
	}
	first := true
	for _, t := range tools {
		if !selected(src, t.Name) {
			continue
		}
		id := src.Name + "." + t.Name
		if !registry.ValidCapabilityID(id) || !registry.ValidMCPName(t.Name) {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: the name cannot name a capability (letters, digits, and single ., _ or - between them)", t.Name))
			continue
		}
		doc, err := capability(src, t, id)
		if err != nil {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: %v", t.Name, err))
			continue
		}
		if !first {
			docs.WriteString("---\n")
		}
		first = false
		docs.Write(doc)
		r.Tools = append(r.Tools, t.Name)
	}
	for _, sk := range src.Skills {
		if !slices.Contains(r.Tools, sk.Tool) {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: skill %s names a tool the server does not list (or the patterns leave out)", sk.Tool, sk.Alias))
		}
	}
	if err := r.addSkills(src, listing, &docs, &first); err != nil {
		return Recorded{}, err
	}
	stamped, err := banner.Stamp(docs.Bytes(), Owner(src.Name), path)
	r.Snapshot = stamped
	return r, err
}

func selected(src registry.MCPSource, name string) bool {
	match := func(patterns []string) bool {
		return slices.ContainsFunc(patterns, func(p string) bool { ok, _ := path.Match(p, name); return ok })
	}
	return (len(src.Include) == 0 || match(src.Include)) && !match(src.Exclude)
}

// capability is the registry document of tool t.
func capability(src registry.MCPSource, t *mcp.Tool, id string) ([]byte, error) {
	effect, why := EffectOf(t.Annotations)
	title := t.Title
	if title == "" && t.Annotations != nil {
		title = t.Annotations.Title
	}
	if title == "" {
		title = t.Name
	}
	input := t.InputSchema
	if input == nil {
		input = map[string]any{"type": "object"}
	}
	spec := map[string]any{"title": title, "effect": effect, "input": input, "mcp": map[string]string{"server": src.Name, "tool": t.Name}}
	for _, sk := range src.Skills {
		if sk.Tool == t.Name {
			spec["skill"] = map[string]string{"alias": sk.Alias, "argument": sk.Argument}
		}
	}
	var n yaml.Node
	if err := n.Encode(map[string]any{"apiVersion": registry.APIVersion, "kind": "Capability", "metadata": map[string]string{"name": id}, "spec": spec}); err != nil {
		return nil, err
	}
	order(&n, "apiVersion", "kind", "metadata", "spec")
	specNode := valueOf(&n, "spec")
	order(specNode, "title", "effect", "input", "mcp", "skill")
	valueOf(specNode, "effect").LineComment = why
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
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
