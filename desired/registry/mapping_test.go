package registry

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"
)

// asMaps turns every Mapping in v into a map[string]any, as yaml.v3 decodes it.
func asMaps(v any) any {
	switch v := v.(type) {
	case Mapping:
		out := make(map[string]any, len(v))
		for _, kv := range v {
			out[kv.Key] = asMaps(kv.Value)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = asMaps(item)
		}
		return out
	}
	return v
}

func TestAnyValueDecodesAsYAMLDoes(t *testing.T) {
	docs := []string{
		`{type: object, properties: {statement: {type: string, description: "What to do."}}, required: [statement]}`,
		`{limit: {type: integer, minimum: 1, maximum: 500}, big: 0x1F, octal: 0o17, leadingZero: 010, zero: 0, plus: +5, under: 1_000, neg: -3, float: 2.5, inf: .inf, yes: true, no: false, nothing: null, tilde: ~, date: 2026-11-30}`,
		`{quoted: "123", plain: 123, "sp ace": x, empty: "", list: [1, two, [3], {four: 4}]}`,
		"base: &b {type: string, format: date}\nuse: *b\nseq: [*b, *b]\n",
		"base: &b {type: string, format: date}\nmerged:\n  <<: *b\n  format: email\n",
		"one: &one {a: 1}\ntwo: &two {b: 2, a: 9}\nboth:\n  <<: [*one, *two]\n  c: 3\n",
		`plain scalar`,
		`[a, b]`,
	}
	for _, doc := range docs {
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		got, err := anyValue(root.Content[0])
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		var want any
		if err := root.Content[0].Decode(&want); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if diff := cmp.Diff(want, asMaps(got)); diff != "" {
			t.Errorf("%s: decoded differently from yaml.v3 (-yaml +anyValue):\n%s", doc, diff)
		}
	}
}

func TestMappingKeepsTheOrderWrittenInJSON(t *testing.T) {
	var root yaml.Node
	if err := yaml.Unmarshal([]byte("{z: 1, a: {y: [true, null], b: x}, m: 2.5}"), &root); err != nil {
		t.Fatal(err)
	}
	v, err := anyValue(root.Content[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":1,"a":{"y":[true,null],"b":"x"},"m":2.5}`; string(got) != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	m := v.(Mapping)
	if diff := cmp.Diff([]string{"a", "m", "z"}, m.Keys()); diff != "" {
		t.Errorf("Keys (-want +got):\n%s", diff)
	}
	if x, ok := m.Get("m"); !ok || x != 2.5 {
		t.Errorf("Get(m) = %v, %v", x, ok)
	}
	if _, ok := m.Get("missing"); ok {
		t.Error("Get found a key that is not there")
	}
}
