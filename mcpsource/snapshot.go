package mcpsource

import (
	"bytes"
	"encoding/json"
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
// recorded is left out, with why, and so is the skill of a tool a pattern
// selector takes that cannot be one. A tool whose input schema is no JSON Schema
// is an error: the server is at fault, not the workspace.
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
		if why := unnamable(t.Name, id); why != "" {
			r.Skipped = append(r.Skipped, t.Name+": "+why)
			continue
		}
		input, err := inputOf(t)
		if err != nil {
			return Recorded{}, fmt.Errorf("the tool %q has an inputSchema that is not JSON Schema: %v; nothing was written", t.Name, err)
		}
		sk, why := skillOf(src, t.Name, input)
		if why != "" {
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s as a skill: %s", t.Name, why))
		}
		doc, err := capability(src, t, id, input, sk)
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
		if !registry.IsToolPattern(sk.Tool) && !slices.Contains(r.Tools, sk.Tool) {
			alias := sk.Alias
			if alias == "" {
				alias = registry.DerivedAlias(sk.Tool)
			}
			r.Skipped = append(r.Skipped, fmt.Sprintf("%s: skill %s names a tool the server does not list (or the patterns leave out)", sk.Tool, alias))
		}
	}
	if err := r.addSkills(src, listing, &docs, &first); err != nil {
		return Recorded{}, err
	}
	stamped, err := banner.Stamp(docs.Bytes(), Owner(src.Name), path)
	r.Snapshot = stamped
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

func selected(src registry.MCPSource, name string) bool {
	return picked(src.Include, src.Exclude, name)
}

// picked says name is one the include patterns (all names when there are none)
// select and no exclude pattern leaves out.
func picked(include, exclude []string, name string) bool {
	match := func(patterns []string) bool {
		return slices.ContainsFunc(patterns, func(p string) bool { ok, _ := path.Match(p, name); return ok })
	}
	return (len(include) == 0 || match(include)) && !match(exclude)
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

// skillOf is the skill block of the tool's capability, from the selector of src
// that takes the tool, its alias and argument derived where the selector gives
// none; nil when no selector takes it. why says why a tool a pattern takes is no
// skill: a pattern is a convention that some tools do not fit, and they stay
// capabilities. A selector that names the tool gets its skill as far as it can be
// derived, so that what does not fit is a problem at the selector when the
// snapshot is loaded.
func skillOf(src registry.MCPSource, tool string, input json.RawMessage) (sk map[string]string, why string) {
	j, ok := src.SkillSelector(tool)
	if !ok {
		return nil, ""
	}
	sel := src.Skills[j]
	pattern := registry.IsToolPattern(sel.Tool)
	alias, argument := sel.Alias, sel.Argument
	if alias == "" {
		alias = registry.DerivedAlias(tool)
		if pattern && !registry.ValidAlias(alias) {
			return nil, fmt.Sprintf("%q, the alias its name gives, is not a valid skill name (a selector of its own can give one)", alias)
		}
	}
	var err error
	if argument == "" {
		argument, err = registry.SkillArgument(input)
	} else if pattern {
		err = registry.FillableArgument(input, argument)
	}
	if pattern && err != nil {
		return nil, err.Error() + " (a selector of its own can name the argument)"
	}
	sk = map[string]string{"alias": alias}
	if argument != "" {
		sk["argument"] = argument
	}
	return sk, ""
}

// capability is the registry document of tool t.
func capability(src registry.MCPSource, t *mcp.Tool, id string, input json.RawMessage, sk map[string]string) ([]byte, error) {
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
	if sk != nil {
		spec["skill"] = sk
	}
	var n yaml.Node
	if err := n.Encode(map[string]any{"apiVersion": registry.APIVersion, "kind": "Capability", "metadata": map[string]string{"name": id}, "spec": spec}); err != nil {
		return nil, err
	}
	order(&n, "apiVersion", "kind", "metadata", "spec")
	specNode := valueOf(&n, "spec")
	order(specNode, "title", "effect", "input", "mcp", "skill")
	valueOf(specNode, "effect").LineComment = why
	return encode(&n)
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
