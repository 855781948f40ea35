package registry

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"
)

// asMaps turns every mapping in v into a map[string]any, as yaml.v3 decodes it.
func asMaps(v any) any {
	switch v := v.(type) {
	case mapping:
		out := make(map[string]any, len(v))
		for _, kv := range v {
			out[kv.key] = asMaps(kv.value)
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

func TestAppendJSONKeepsTheOrderWritten(t *testing.T) {
	got := jsonOfYAML(t, "{z: 1, a: {y: [true, null], b: x}, m: 2.5, q: \"<a & \\\"b\\\">\", u: é, neg: -3, big: 0x1F}")
	if want := `{"z":1,"a":{"y":[true,null],"b":"x"},"m":2.5,"q":"\u003ca \u0026 \"b\"\u003e","u":"é","neg":-3,"big":31}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
}

// TestAppendJSONWritesWhatEncodingJSONWrites compares appendJSON with encoding/json
// writing what yaml.v3 decodes, key order aside.
func TestAppendJSONWritesWhatEncodingJSONWrites(t *testing.T) {
	docs := []string{
		`{type: object, properties: {statement: {type: string, description: "What to do."}}, required: [statement]}`,
		`{limit: {type: integer, minimum: 1, maximum: 500}, big: 0x1F, octal: 0o17, zero: 0, under: 1_000, float: 2.5, exp: 1e30, small: 1e-7, yes: true, nothing: ~, date: 2026-11-30}`,
		`{quoted: "123", "sp ace": "tab\there", ctl: "\x01", html: "<b>&</b>", uni: "ünï ✓ \u2028", list: [1, two, [3], {four: 4}]}`,
		"one: &one {a: 1}\ntwo: &two {b: 2, a: 9}\nboth:\n  <<: [*one, *two]\n  c: 3\n",
	}
	for _, doc := range docs {
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		var decoded any
		if err := root.Content[0].Decode(&decoded); err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(decoded)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal([]byte(jsonOfYAML(t, doc)), &a); err != nil {
			t.Fatalf("%s: appendJSON wrote invalid JSON: %v", doc, err)
		}
		json.Unmarshal(want, &b)
		if diff := cmp.Diff(b, a); diff != "" {
			t.Errorf("%s: (-encoding/json +appendJSON):\n%s", doc, diff)
		}
	}
}

func TestAppendJSONRefusesWhatJSONCannotHold(t *testing.T) {
	// A timestamp with an offset of 24 hours parses, but encoding/json cannot write it.
	for _, doc := range []string{"{maximum: .inf}", "[.nan]", "{minimum: -.Inf}", "{default: 2001-01-01T00:00:00+24:00}"} {
		if data, err := appendJSON(nil, decodedYAML(t, doc)); err == nil {
			t.Errorf("%s: written as %s", doc, data)
		}
	}
}

func jsonOfYAML(t *testing.T, doc string) string {
	t.Helper()
	data, err := appendJSON(nil, decodedYAML(t, doc))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// decodedYAML is doc as anyValue decodes it.
func decodedYAML(t *testing.T, doc string) any {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	v, err := anyValue(root.Content[0])
	if err != nil {
		t.Fatal(err)
	}
	return v
}
