package registry

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Mapping is a YAML mapping in a field that holds any value (an input schema): its
// members in the order they were written. It is a slice, not a Go map, because a
// registry of thousands of capabilities holds thousands of small schemas and a map
// costs several times the memory of its few members.
type Mapping []Member

// Member is one key and its value: a string, a number, a bool, nil, a []any or a
// Mapping.
type Member struct {
	Key   string
	Value any
}

// Get is the value of key, and whether the mapping has it.
func (m Mapping) Get(key string) (any, bool) {
	for _, kv := range m {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Keys are the mapping's keys, sorted.
func (m Mapping) Keys() []string {
	keys := make([]string, len(m))
	for i, kv := range m {
		keys[i] = kv.Key
	}
	sort.Strings(keys)
	return keys
}

// MarshalJSON writes the mapping as a JSON object, in the order it was written.
func (m Mapping) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		key, err := json.Marshal(kv.Key)
		if err != nil {
			return nil, err
		}
		value, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(key)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// anyValue decodes n the way yaml.v3 decodes into an interface value, except that
// a mapping becomes a Mapping. Duplicate keys are checked before.
func anyValue(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return anyValue(n.Alias)
	case yaml.MappingNode:
		return mappingOf(n)
	case yaml.SequenceNode:
		items := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := anyValue(c)
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		return items, nil
	}
	switch n.Tag {
	case "!!str":
		return n.Value, nil
	case "!!null":
		return nil, nil
	case "!!int":
		// Plain decimal only; yaml.v3 reads 010, 0x1F and 0o17 in their bases.
		if decimal := strings.TrimPrefix(n.Value, "-"); decimal != "" && decimal[0] != '0' {
			if i, err := strconv.Atoi(n.Value); err == nil {
				return i, nil
			}
		}
	}
	var v any
	err := n.Decode(&v)
	return v, err
}

// mappingOf decodes a mapping; a merge key (<<) adds the members of the mappings
// it names that the mapping does not set itself.
func mappingOf(n *yaml.Node) (Mapping, error) {
	m := make(Mapping, 0, len(n.Content)/2)
	var merged []Mapping
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		v, err := anyValue(value)
		if err != nil {
			return nil, err
		}
		if key.Tag == "!!merge" {
			switch v := v.(type) {
			case Mapping:
				merged = append(merged, v)
			case []any:
				for _, item := range v {
					if mm, ok := item.(Mapping); ok {
						merged = append(merged, mm)
					}
				}
			}
			continue
		}
		m = append(m, Member{Key: key.Value, Value: v})
	}
	for _, mm := range merged {
		for _, kv := range mm {
			if _, set := m.Get(kv.Key); !set {
				m = append(m, kv)
			}
		}
	}
	return m, nil
}
