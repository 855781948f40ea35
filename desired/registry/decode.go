package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"

	yaml "go.yaml.in/yaml/v3"
)

// parseDocuments splits a multi-document YAML (or JSON) file into mappings.
// Empty documents are skipped; anything that is not a mapping is a problem.
func parseDocuments(file string, data []byte) ([]*yaml.Node, Problems) {
	if p := checkBytes(file, data); p != nil {
		return nil, Problems{*p}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, Problems{syntaxProblem(file, data, dec, err)}
		}
		if len(n.Content) == 0 || isNull(n.Content[0]) {
			continue
		}
		root := n.Content[0]
		if p := checkLimits(file, root); p != nil {
			return nil, Problems{*p}
		}
		if root.Kind != yaml.MappingNode {
			return nil, Problems{{
				Pos:     Position{File: file, Line: root.Line, Column: root.Column},
				Message: "document is not a mapping",
				Hint:    "each document needs apiVersion, kind, metadata and spec",
			}}
		}
		docs = append(docs, root)
	}
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// decodeStrict fills out (a pointer) from n. Unknown fields, wrong types and
// duplicate keys are problems at the offending node; decoding goes on past them so
// one run reports everything.
func decodeStrict(file string, n *yaml.Node, out any) Problems {
	d := strictDecoder{file: file}
	d.value(n, reflect.ValueOf(out).Elem(), "")
	return d.problems
}

type strictDecoder struct {
	file     string
	problems Problems
}

func (d *strictDecoder) fail(n *yaml.Node, hint, format string, args ...any) {
	d.problems = append(d.problems, Problem{
		Pos:     Position{File: d.file, Line: n.Line, Column: n.Column},
		Message: fmt.Sprintf(format, args...),
		Hint:    hint,
	})
}

var rawJSONType = reflect.TypeFor[json.RawMessage]()

func (d *strictDecoder) value(n *yaml.Node, v reflect.Value, field string) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if isNull(n) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		d.value(n, v.Elem(), field)
	case reflect.Struct:
		d.structValue(n, v, field)
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			d.fail(n, "quote it if it is meant as text", "%s: expected a string, got %s", field, describe(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			d.fail(n, "write true or false", "%s: expected a boolean, got %s", field, describe(n))
			return
		}
		v.SetBool(n.Value == "true")
	case reflect.Slice:
		if v.Type() == rawJSONType {
			d.checkDuplicates(n)
			generic, err := anyValue(n)
			if err != nil {
				d.fail(n, "", "%s: %v", field, err)
				return
			}
			data, err := appendJSON(nil, generic)
			if err != nil {
				d.fail(n, "an input schema is JSON Schema: write only what JSON can hold (finite numbers, text, true, false, null, lists and mappings)", "%s: %v", field, err)
				return
			}
			v.SetBytes(data)
			return
		}
		if n.Kind != yaml.SequenceNode {
			d.fail(n, "write a list, for example [a, b]", "%s: expected a list, got %s", field, describe(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			d.value(item, s.Index(i), fmt.Sprintf("%s[%d]", field, i))
		}
		v.Set(s)
	case reflect.Map:
		d.mapValue(n, v, field)
	default:
		panic(fmt.Sprintf("registry: decodeStrict cannot fill %s", v.Type()))
	}
}

// mapValue fills a map of names to values, such as environment variables.
func (d *strictDecoder) mapValue(n *yaml.Node, v reflect.Value, field string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, "write a mapping of name: value lines", "%s: expected a mapping, got %s", field, describe(n))
		return
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		if first, dup := seen[key.Value]; dup {
			d.fail(key, fmt.Sprintf("first defined at line %d", first.Line), "duplicate key %s", join(field, key.Value))
			continue
		}
		seen[key.Value] = key
		elem := reflect.New(v.Type().Elem()).Elem()
		d.value(val, elem, join(field, key.Value))
		m.SetMapIndex(reflect.ValueOf(key.Value), elem)
	}
	v.Set(m)
}

func (d *strictDecoder) structValue(n *yaml.Node, v reflect.Value, field string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, "write a mapping of key: value lines", "%s: expected a mapping, got %s", orTop(field), describe(n))
		return
	}
	fields := jsonFields(v.Type())
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		name := join(field, key.Value)
		if first, dup := seen[key.Value]; dup {
			d.fail(key, fmt.Sprintf("first defined at line %d", first.Line), "duplicate key %s", name)
			continue
		}
		seen[key.Value] = key
		index, known := fields[key.Value]
		if !known {
			hint := "known fields here: " + strings.Join(sortedKeys(fields), ", ")
			if strings.HasPrefix(key.Value, "\ufeff") {
				// What files saved with one leave at the start of a later document
				// when they are joined: YAML allows it there, the parser does not.
				hint = "remove the byte order mark (U+FEFF) before it; only the first bytes of a file may hold one"
			}
			d.fail(key, hint, "unknown field %s", name)
			continue
		}
		d.value(val, v.Field(index), name)
		if v.Field(index).Type() == rawJSONType {
			d.misplacedFields(val, name, field, fields)
		}
	}
}

func (d *strictDecoder) checkDuplicates(n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i]
			if first, dup := seen[key.Value]; dup {
				d.fail(key, fmt.Sprintf("first defined at line %d", first.Line), "duplicate key %s", visible(key.Value))
			}
			seen[key.Value] = key
			d.checkDuplicates(n.Content[i+1])
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			d.checkDuplicates(c)
		}
	}
}

// fieldsByType caches jsonFields: the same few structs are decoded for every
// declaration of a large registry.
var fieldsByType sync.Map // reflect.Type -> map[string]int

func jsonFields(t reflect.Type) map[string]int {
	if cached, ok := fieldsByType.Load(t); ok {
		return cached.(map[string]int)
	}
	out := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			out[name] = i
		}
	}
	fieldsByType.Store(t, out)
	return out
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%s %q", strings.TrimPrefix(n.Tag, "!!"), n.Value)
}

// visible is key as written, or quoted with its escapes when it holds a code
// point that shows as nothing, so that a message never names a field that
// looks like a known one.
func visible(key string) string {
	if strings.ContainsFunc(key, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(key)
	}
	return key
}

// join is the dotted name of key under parent, as messages name a field.
func join(parent, key string) string {
	if parent == "" {
		return visible(key)
	}
	return parent + "." + visible(key)
}

func orTop(field string) string {
	if field == "" {
		return "document"
	}
	return field
}
