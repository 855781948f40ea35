package registry

import (
	"fmt"
	"strings"
	"testing"
)

// An input schema is checked against the metaschema its $schema names, with or
// without the trailing "#"; draft-04 wants a boolean exclusiveMinimum where later
// drafts want a number, which tells the metaschemas apart.
func TestInputSchemaIsCheckedAgainstItsDialect(t *testing.T) {
	for _, dialect := range dialects {
		numeric, boolean := true, false
		if strings.HasSuffix(dialect, "draft-04/schema") {
			numeric, boolean = false, true
		}
		for _, named := range []string{dialect, dialect + "#"} {
			for form, valid := range map[string]bool{`5`: numeric, `true`: boolean} {
				schema := fmt.Sprintf(`{"$schema": %q, "type": "number", "minimum": 1, "exclusiveMinimum": %s}`, named, form)
				if errs := checkSchema([]byte(schema)); (len(errs) == 0) != valid {
					t.Errorf("%s: errors %v, want valid=%v", schema, errs, valid)
				}
			}
		}
	}
	if errs := checkSchema([]byte(`{"type": "number", "exclusiveMinimum": true}`)); len(errs) == 0 {
		t.Errorf("without $schema, the 2020-12 metaschema took a boolean exclusiveMinimum")
	}
	errs := checkSchema([]byte(`{"$schema": "https://example.com/my-schema", "type": "object"}`))
	if len(errs) != 1 || strings.Join(errs[0].at, ".") != "$schema" || !strings.Contains(errs[0].message, "is not a JSON Schema dialect") {
		t.Errorf("an unknown $schema: %v", errs)
	}
}
