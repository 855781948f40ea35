package testkit

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifModule ships the OASIS SARIF 2.1.0 JSON schema, as the string constant
// schema of its v210 package; internal/sarif's test imports the package, which
// keeps the module in go.mod at the version go.sum vouches for.
const (
	sarifModule     = "github.com/owenrumney/go-sarif/v3"
	sarifSchemaFile = "pkg/report/v210/sarif/schema.go"
)

var sarifSchema = sync.OnceValues(compileSARIFSchema)

// CheckSARIF fails t unless data is a SARIF log the official SARIF 2.1.0 JSON
// schema accepts. A schema that cannot be found or read fails the test too:
// a check that is skipped would pass anything.
func CheckSARIF(t testing.TB, data []byte) {
	t.Helper()
	schema, err := sarifSchema()
	if err != nil {
		t.Fatalf("the SARIF 2.1.0 schema: %v", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the SARIF log is no JSON: %v\n%s", err, data)
	}
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("the SARIF log is not valid SARIF 2.1.0: %v\n%s", err, data)
	}
}

// compileSARIFSchema reads the schema from the module cache: the value of the
// constant schema in the module's schema.go.
func compileSARIFSchema() (*jsonschema.Schema, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", sarifModule).Output()
	if err != nil {
		return nil, err
	}
	file := filepath.Join(strings.TrimSpace(string(out)), filepath.FromSlash(sarifSchemaFile))
	parsed, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		return nil, err
	}
	var text string
	ast.Inspect(parsed, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok || len(spec.Names) != 1 || spec.Names[0].Name != "schema" || len(spec.Values) != 1 {
			return true
		}
		if lit, ok := spec.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			text, err = strconv.Unquote(lit.Value)
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	if !strings.Contains(text, `"title": "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"`) {
		return nil, &schemaMissing{file}
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	const id = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	return c.Compile(id)
}

type schemaMissing struct{ file string }

func (e *schemaMissing) Error() string {
	return e.file + " holds no constant schema with the SARIF 2.1.0 JSON schema"
}
