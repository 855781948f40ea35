package agentskills

import (
	"bytes"
	"fmt"
	"regexp"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

const (
	maxName          = 64
	maxDescription   = 1024
	maxCompatibility = 500
	maxFileSize      = 100 << 10
)

var namePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// known is the specification's front matter plus disable-model-invocation, which
// every reader of .agents/skills honours.
var known = map[string]bool{
	"name": true, "description": true, "license": true, "compatibility": true,
	"metadata": true, "allowed-tools": true, "disable-model-invocation": true,
}

// Check returns every way file breaks the rules for a skill in directory dirName.
func Check(dirName string, file []byte) []string {
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if len(file) > maxFileSize {
		fail("file is %d bytes, more than %d", len(file), maxFileSize)
	}
	rest, ok := bytes.CutPrefix(file, []byte("---\n"))
	if !ok {
		return append(problems, "file does not start with a --- line")
	}
	front, _, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		return append(problems, "front matter is not closed by a --- line")
	}
	var fields map[string]any
	if err := yaml.Unmarshal(front, &fields); err != nil {
		return append(problems, "front matter does not parse: "+err.Error())
	}
	for k := range fields {
		if !known[k] {
			fail("unknown front matter key %q", k)
		}
	}
	name, _ := fields["name"].(string)
	switch {
	case name == "":
		fail("name is missing or not a string")
	case len(name) > maxName:
		fail("name is %d characters, more than %d", len(name), maxName)
	case !namePattern.MatchString(name):
		fail("name %q is not lowercase letters, digits and single hyphens", name)
	case name != dirName:
		fail("name %q differs from its directory %q", name, dirName)
	}
	desc, _ := fields["description"].(string)
	if n := utf8.RuneCountInString(desc); n < 1 || n > maxDescription {
		fail("description has %d characters, want 1 to %d", n, maxDescription)
	}
	if c, ok := fields["compatibility"].(string); ok && utf8.RuneCountInString(c) > maxCompatibility {
		fail("compatibility is longer than %d characters", maxCompatibility)
	}
	if v, ok := fields["disable-model-invocation"]; ok {
		if _, isBool := v.(bool); !isBool {
			fail("disable-model-invocation is not a boolean")
		}
	}
	if m, ok := fields["metadata"]; ok {
		mm, isMap := m.(map[string]any)
		for _, v := range mm {
			if _, isString := v.(string); !isString {
				isMap = false
			}
		}
		if !isMap {
			fail("metadata is not a map of strings")
		}
	}
	return problems
}
