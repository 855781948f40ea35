package registry

import (
	"fmt"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	yaml "go.yaml.in/yaml/v3"
)

// misplacedFields reports a key of a free-form field (an input schema) that is a
// field of the struct the free-form field is in: an `mcp:` indented two spaces too
// far becomes a keyword of spec.input, which JSON Schema ignores, and the
// capability loses its way to be called without a word about why. Only keys right
// under the free-form field count, and not the ones JSON Schema defines itself
// (title is also a schema's title).
func (d *strictDecoder) misplacedFields(n *yaml.Node, field, parent string, siblings map[string]int) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		if _, sibling := siblings[key]; !sibling || key == lastKey(field) || n.Content[i].Tag == "!!merge" || schemaKeywords()[key] {
			continue
		}
		where, hint := "indented too far", fmt.Sprintf("indent %s: as far as %s:, so that it is a field of %s; in a schema it means nothing", key, lastKey(field), orTop(parent))
		if n.Style&yaml.FlowStyle != 0 {
			where, hint = "written inside its braces", fmt.Sprintf("move %s out of the braces of %s; in a schema it means nothing", key, lastKey(field))
		}
		d.fail(n.Content[i], hint, "%s holds %q, which is a field of %s: probably %s", field, key, orTop(parent), where)
	}
}

// lastKey is the last key of a dotted field name: input of spec.input.
func lastKey(field string) string { return field[strings.LastIndexByte(field, '.')+1:] }

// schemaKeywords are the keywords of every JSON Schema dialect skillsync checks
// input schemas against, read from their metaschemas so that the list follows
// the validator's.
var schemaKeywords = sync.OnceValue(func() map[string]bool {
	keywords := map[string]bool{}
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for k := range s.Properties {
			keywords[k] = true
		}
		for _, sub := range s.AllOf { // 2019-09 and 2020-12 gather their vocabularies here
			walk(sub)
		}
		walk(s.Ref)
		walk(s.RecursiveRef)
		if s.DynamicRef != nil {
			walk(s.DynamicRef.Ref)
		}
	}
	for _, url := range dialects {
		if meta, err := metaschema(url); err == nil {
			walk(meta)
		}
	}
	return keywords
})
