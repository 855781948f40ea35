package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	yaml "go.yaml.in/yaml/v3"

	"github.com/skillsync/skillsync/desired/registry"
	"github.com/skillsync/skillsync/internal/testkit"
	"github.com/skillsync/skillsync/internal/workspacefs"
)

// The committed schemas, as an editor reads them, take every valid file.
func TestSchemasAcceptValidFiles(t *testing.T) {
	schemas := compile(t)
	for _, in := range append(bundledInputs(t), acceptedInputs...) {
		for _, doc := range documents(t, in) {
			if err := schemas[in.schemaFile()].Validate(doc.value); err != nil {
				t.Errorf("%s:%d: %s refuses a valid document: %v", in.path, doc.node.Line, in.schemaFile(), err)
			}
		}
	}
}

// The odd documents the schemas take are ones the loader takes too.
func TestLoaderAcceptsTheAcceptedInputs(t *testing.T) {
	byWorkspace := map[string][]input{}
	for _, in := range acceptedInputs {
		dir := path.Dir(in.path)
		if path.Base(dir) == "registry" {
			dir = path.Dir(dir)
		}
		byWorkspace[dir] = append(byWorkspace[dir], in)
	}
	for dir, files := range byWorkspace {
		if _, err := registry.Load(workspacefs.OS{}, writeWorkspace(t, dir, files)); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
}

// Each broken document is refused by the schema at the line an editor marks, and
// by the loader.
func TestSchemasRefuseBrokenDocuments(t *testing.T) {
	schemas := compile(t)
	for _, c := range brokenCases {
		t.Run(c.name, func(t *testing.T) {
			refused := false
			for _, doc := range documents(t, c.in) {
				err := schemas[c.in.schemaFile()].Validate(doc.value)
				refused = refused || err != nil
				// The schema of the document's own kind says why, and where.
				if s, ok := schemas[strings.ToLower(doc.kind())+".json"]; ok && c.in.schemaFile() == "registry.json" {
					err = s.Validate(doc.value)
				}
				var invalid *jsonschema.ValidationError
				if errors.As(err, &invalid) && !slices.Contains(failedLines(doc.node, invalid), c.line) {
					t.Errorf("%s: refused, but at lines %v, not %d: %v", c.in.path, failedLines(doc.node, invalid), c.line, err)
				}
			}
			if !refused {
				t.Errorf("%s: %s takes the document", c.in.path, c.in.schemaFile())
			}
			dir := path.Dir(c.in.path)
			files := []input{c.in}
			if path.Base(dir) == "registry" {
				dir = path.Dir(dir)
				files = append(files, input{dir + "/skillsync.yaml", "apiVersion: skillsync/v1\nkind: Workspace\nspec:\n  registry: [registry/*.yaml]\n"})
			}
			if _, err := registry.Load(workspacefs.OS{}, writeWorkspace(t, dir, files)); err == nil {
				t.Errorf("%s: the loader takes the document", c.in.path)
			}
		})
	}
}

// compile compiles the committed schemas, by file name.
func compile(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	out := map[string]*jsonschema.Schema{}
	for _, file := range []string{"workspace.json", "capability.json", "skill.json", "profile.json", "registry.json"} {
		abs, err := filepath.Abs(file)
		if err != nil {
			t.Fatal(err)
		}
		if out[file], err = c.Compile(abs); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	return out
}

// document is one YAML document of an input: its node tree for lines, and its
// value as a JSON Schema validator reads it.
type document struct {
	node  *yaml.Node
	value any
}

func (d document) kind() string {
	for i := 0; i+1 < len(d.node.Content); i += 2 {
		if d.node.Content[i].Value == "kind" {
			return d.node.Content[i+1].Value
		}
	}
	return ""
}

// documents splits an input into its documents, as an editor validates them: one
// at a time, an empty one as null.
func documents(t *testing.T, in input) []document {
	t.Helper()
	dec := yaml.NewDecoder(strings.NewReader(in.text))
	var out []document
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", in.path, err)
		}
		var v any
		if err := n.Decode(&v); err != nil {
			t.Fatalf("%s: %v", in.path, err)
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", in.path, err)
		}
		value, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		root := &n
		if len(n.Content) > 0 {
			root = n.Content[0]
		}
		out = append(out, document{node: root, value: value})
	}
}

// failedLines lists the lines where the validation failed, as an editor may mark
// them: the line of the key whose value is wrong or lacks a key, or of the value
// itself, and the line of a key not allowed.
func failedLines(root *yaml.Node, e *jsonschema.ValidationError) []int {
	if len(e.Causes) > 0 {
		var lines []int
		for _, c := range e.Causes {
			lines = append(lines, failedLines(root, c)...)
		}
		return lines
	}
	at := e.InstanceLocation
	if extra, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
		var lines []int
		for _, p := range extra.Properties {
			lines = append(lines, linesAt(root, append(append([]string{}, at...), p))...)
		}
		return lines
	}
	return linesAt(root, at)
}

// linesAt is the line of the key (or list item) at the end of path, and of the
// value there.
func linesAt(n *yaml.Node, path []string) []int {
	line := n.Line
	for _, key := range path {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == key {
					line, n = n.Content[i].Line, n.Content[i+1]
					break
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(key); err == nil && i < len(n.Content) {
				n = n.Content[i]
				line = n.Line
			}
		}
	}
	return []int{line, n.Line}
}

// writeWorkspace writes files under a new directory, each at its path less dir.
func writeWorkspace(t *testing.T, dir string, files []input) string {
	t.Helper()
	root := t.TempDir()
	for _, f := range files {
		testkit.WriteFile(t, root, strings.TrimPrefix(f.path, dir+"/"), []byte(f.text))
	}
	return root
}
