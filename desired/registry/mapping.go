package registry

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// mapping is a decoded YAML mapping: its members in the order they were written.
type mapping []member

type member struct {
	key   string
	value any
}

func (m mapping) has(key string) bool {
	for _, kv := range m {
		if kv.key == key {
			return true
		}
	}
	return false
}

// anyValue decodes n the way yaml.v3 decodes into an interface value, except that
// a mapping becomes a mapping. Duplicate keys are checked before.
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
func mappingOf(n *yaml.Node) (mapping, error) {
	m := make(mapping, 0, len(n.Content)/2)
	var merged []mapping
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, value := n.Content[i], n.Content[i+1]
		v, err := anyValue(value)
		if err != nil {
			return nil, err
		}
		if key.Tag == "!!merge" {
			switch v := v.(type) {
			case mapping:
				merged = append(merged, v)
			case []any:
				for _, item := range v {
					if mm, ok := item.(mapping); ok {
						merged = append(merged, mm)
					}
				}
			}
			continue
		}
		m = append(m, member{key: key.Value, value: v})
	}
	for _, mm := range merged {
		for _, kv := range mm {
			if !m.has(kv.key) {
				m = append(m, kv)
			}
		}
	}
	return m, nil
}

// appendJSON appends v, a value anyValue decoded, as JSON, its mappings in the
// order they were written. Strings and numbers are written as encoding/json writes
// them. A registry keeps input schemas as this text rather than as decoded values:
// it is the form MCP serves a tool's inputSchema in, and a fraction of the memory
// when thousands of capabilities each hold one.
func appendJSON(dst []byte, v any) ([]byte, error) {
	var err error
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case string:
		return appendJSONString(dst, v), nil
	case []any:
		dst = append(dst, '[')
		for i, item := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendJSON(dst, item); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case mapping:
		dst = append(dst, '{')
		for i, kv := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(appendJSONString(dst, kv.key), ':')
			if dst, err = appendJSON(dst, kv.value); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%v cannot be written as JSON", v)
	}
	return append(dst, data...), nil
}

// appendJSONString appends s as a JSON string. Text that encoding/json would escape
// (quotes, control characters, HTML characters, anything not ASCII) goes through it.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			data, _ := json.Marshal(s)
			return append(dst, data...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
