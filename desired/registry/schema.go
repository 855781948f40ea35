package registry

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/skillsync/skillsync/internal/parallel"
)

// defaultDialect is the JSON Schema dialect of an input schema that names none in
// $schema: the one MCP takes for a tool's inputSchema.
const defaultDialect = "https://json-schema.org/draft/2020-12/schema"

// dialects are the metaschemas an input schema may name in $schema (with or
// without a trailing "#") and is checked against.
var dialects = []string{
	defaultDialect,
	"https://json-schema.org/draft/2019-09/schema",
	"http://json-schema.org/draft-07/schema",
	"http://json-schema.org/draft-06/schema",
	"http://json-schema.org/draft-04/schema",
}

var (
	metaschemas   sync.Map // dialect URL -> *jsonschema.Schema
	englishErrors = message.NewPrinter(language.English)
)

// metaschema compiles the metaschema of a dialect once; they ship with the
// validator, so nothing is fetched. Formats are not asserted: the metaschema's
// "regex" format would check patterns with Go's regular expressions, which refuse
// the lookaheads and backreferences of the ECMA-262 patterns JSON Schema uses.
func metaschema(url string) (*jsonschema.Schema, error) {
	if s, ok := metaschemas.Load(url); ok {
		return s.(*jsonschema.Schema), nil
	}
	c := jsonschema.NewCompiler()
	s, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	metaschemas.Store(url, s)
	return s, nil
}

// schemaError is one way an input schema breaks its metaschema: where, as the keys
// and indices from the schema's root, and what.
type schemaError struct {
	at      []string
	message string
}

// maxSchemaErrors bounds what one schema reports; the first few say what is wrong.
const maxSchemaErrors = 5

// checkSchema validates an input schema, kept as JSON text, against the metaschema
// of its dialect.
func checkSchema(raw []byte) []schemaError {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return []schemaError{{message: "is not JSON: " + err.Error()}}
	}
	url := defaultDialect
	if obj, ok := doc.(map[string]any); ok {
		if declared, ok := obj["$schema"]; ok {
			s, _ := declared.(string)
			if url = strings.TrimSuffix(s, "#"); !slices.Contains(dialects, url) {
				return []schemaError{{at: []string{"$schema"}, message: fmt.Sprintf("%q is not a JSON Schema dialect skillsync checks (draft-04, -06, -07, 2019-09 or 2020-12)", declared)}}
			}
		}
	}
	meta, err := metaschema(url)
	if err != nil {
		return []schemaError{{message: "cannot load the metaschema " + url + ": " + err.Error()}}
	}
	err = meta.Validate(doc)
	var invalid *jsonschema.ValidationError
	if !errors.As(err, &invalid) {
		return nil
	}
	var out []schemaError
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(out) == maxSchemaErrors {
			return
		}
		if len(e.Causes) == 0 {
			// Of the alternatives an anyOf tried at one place, the first says it best
			// (a type must be one of these names, rather than a list).
			if key := strings.Join(e.InstanceLocation, "\x00"); !seen[key] {
				seen[key] = true
				out = append(out, schemaError{at: e.InstanceLocation, message: e.ErrorKind.LocalizedString(englishErrors)})
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(invalid)
	return out
}

// checkSchemas checks every distinct input schema of caps once, a few at a time
// (internal/parallel): at about 70 µs a schema, the metaschema check is most of
// what validation costs.
func checkSchemas(caps []Capability) map[string][]schemaError {
	var distinct []string
	seen := map[string]bool{}
	for _, c := range caps {
		if text := string(c.Spec.Input); len(text) > 0 && !seen[text] {
			seen[text] = true
			distinct = append(distinct, text)
		}
	}
	found := make([][]schemaError, len(distinct))
	parallel.Each(len(distinct), func(i int) error {
		found[i] = checkSchema([]byte(distinct[i]))
		return nil
	})
	out := make(map[string][]schemaError, len(distinct))
	for i, text := range distinct {
		if found[i] != nil {
			out[text] = found[i]
		}
	}
	return out
}

// inputSchema reports every way a capability's input schema breaks its metaschema,
// each at the place in the file that holds it.
func (v *validator) inputSchema(c Capability) {
	for _, e := range v.schemaErrors[string(c.Spec.Input)] {
		field := strings.Join(append([]string{"input"}, e.at...), ".")
		v.add(c.doc.at(append([]string{"spec", "input"}, e.at...)...),
			"an input schema is JSON Schema (2020-12 unless $schema names another draft); see https://json-schema.org/understanding-json-schema",
			"%s: %s", field, e.message)
	}
}

// CheckInputSchema says how an input schema (JSON text) breaks the metaschema of
// its dialect, as loading a capability with it would, or nil: a refresh refuses
// a server's tool for it before anything is written, rather than write a snapshot
// that cannot load.
func CheckInputSchema(raw []byte) error {
	errs := checkSchema(raw)
	if len(errs) == 0 {
		return nil
	}
	parts := make([]string, len(errs))
	for i, e := range errs {
		parts[i] = e.message
		if len(e.at) > 0 {
			parts[i] = strings.Join(e.at, ".") + ": " + e.message
		}
	}
	return errors.New(strings.Join(parts, "; "))
}
