package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillsync/skillsync/internal/hiddentext"
)

// The findings of a skill's files beside hidden text: a supporting file that
// runs, or whose bytes are no text a person can review.
const (
	FindingExecutable = "executable"
	FindingBinary     = "binary"
)

// Findings are every kind of finding an allowance can name.
var Findings = append(slices.Clone(hiddentext.Kinds), FindingExecutable, FindingBinary)

// Allowance lets findings of one kind through for a source: in every file,
// or in those its path pattern matches (path.Match, the file as messages name
// it after "SOURCE:").
type Allowance struct {
	Finding string `json:"finding" jsonschema:"required"`
	Path    string `json:"path"`
}

// finding is one thing a person reviewing a file would not see, or could not
// read: where it is, and what.
type finding struct {
	file         string // as messages name it: source:path
	line, column int
	kind, what   string
}

func (f finding) pos() Position { return Position{File: f.file, Line: f.line, Column: f.column} }

// textFindings are the hidden code points of data, the file named file.
func textFindings(file string, data []byte) []finding {
	var out []finding
	for _, h := range hiddentext.Scan(data) {
		out = append(out, finding{file: file, line: h.Line, column: h.Column, kind: h.Kind, what: h.String()})
	}
	return out
}

// binary tells whether data is no text: a NUL byte, or bytes that are no
// UTF-8.
func binary(data []byte) bool {
	return bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data)
}

// dirFindings are the findings of a skill directory as read, at (source:path)
// naming it: hidden text in its SKILL.md, its client side files, every text
// file and every file's name, and every supporting file that is executable or
// binary.
func dirFindings(at string, read skillDir) []finding {
	out := textFindings(at+"/SKILL.md", read.skill)
	for _, p := range slices.Sorted(maps.Keys(read.sides)) {
		out = append(out, nameFindings(at+"/"+p, p)...)
		out = append(out, textFindings(at+"/"+p, read.sides[p])...)
	}
	for _, f := range read.files {
		file := at + "/" + f.Path
		out = append(out, nameFindings(file, f.Path)...)
		if f.Executable {
			out = append(out, finding{file: file, kind: FindingExecutable, what: "an executable file, which an agent may run"})
		}
		if binary(f.Data) {
			out = append(out, finding{file: file, kind: FindingBinary, what: "a binary file, which no reviewer reads"})
			if !utf8.Valid(f.Data) {
				continue
			}
			// Text with a NUL in it is text still: allowing binary files
			// does not let what is hidden in it through.
		}
		out = append(out, textFindings(file, f.Data)...)
	}
	return out
}

// nameFindings are the hidden code points of the path name of file, which a
// listing shows otherwise than it is (a right-to-left override makes
// readme.md.txt look like readme.txt.md).
func nameFindings(file, name string) []finding {
	var out []finding
	for _, h := range hiddentext.ScanValue(name) {
		out = append(out, finding{file: file, kind: h.Kind, what: h.String() + " in its name"})
	}
	return out
}

// valueFindings are the hidden code points of every string in v, as YAML
// decoded it: an escape such as "\u200b" in a double-quoted scalar is no
// hidden byte of the file, but the model reads what it decodes to. They are
// placed at pos.
func valueFindings(file string, pos Position, v any) []finding {
	var out []finding
	for _, text := range stringsOf(reflect.ValueOf(v)) {
		for _, h := range hiddentext.ScanValue(text) {
			out = append(out, finding{file: file, line: pos.Line, column: pos.Column, kind: h.Kind, what: h.String() + ", written as an escape"})
		}
	}
	return out
}

// escaped is, of found (from valueFindings), what raw (the file's own
// findings) does not already name: the code points written as escapes.
func escaped(found, raw []finding) []finding {
	seen := map[string]bool{}
	for _, f := range raw {
		seen[f.what] = true
	}
	var out []finding
	for _, f := range found {
		if !seen[strings.TrimSuffix(f.what, ", written as an escape")] {
			out = append(out, f)
		}
	}
	return out
}

// stringsOf is every string in v: in its fields, elements, keys and values,
// and in the JSON text it keeps (an input schema).
func stringsOf(v reflect.Value) []string {
	if v.Type() == rawJSONType {
		return JSONStrings(v.Bytes())
	}
	switch v.Kind() {
	case reflect.String:
		return []string{v.String()}
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return stringsOf(v.Elem())
	case reflect.Struct:
		var out []string
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				out = append(out, stringsOf(v.Field(i))...)
			}
		}
		return out
	case reflect.Slice, reflect.Array:
		var out []string
		for i := range v.Len() {
			out = append(out, stringsOf(v.Index(i))...)
		}
		return out
	case reflect.Map:
		var out []string
		iter := v.MapRange()
		for iter.Next() {
			out = append(out, stringsOf(iter.Key())...)
			out = append(out, stringsOf(iter.Value())...)
		}
		return out
	}
	return nil
}

// allowed tells whether allow lets f through; subject is what a path pattern
// is matched against.
func allowed(allow []Allowance, f finding, subject string) bool {
	for _, a := range allow {
		if a.Finding != f.kind {
			continue
		}
		if a.Path == "" {
			return true
		}
		if ok, _ := path.Match(a.Path, subject); ok {
			return true
		}
	}
	return false
}

// blockFindings adds a problem for every finding of src's content its
// allowances do not let through, and says whether there was none; what they
// let through is returned, for explain. declared is where skillsync.yaml
// declares src.
func (l *loader) blockFindings(src RemoteSource, declared Position, found []finding) (ok bool, let []string) {
	ok = true
	for _, f := range found {
		_, rel, _ := strings.Cut(f.file, ":")
		if allowed(src.Allow, f, rel) {
			let = append(let, fmt.Sprintf("%s at %s", f.what, f.pos()))
			continue
		}
		ok = false
		l.add(Problem{Pos: f.pos(), Message: fmt.Sprintf("%s holds %s (%s): what comes from a source reaches a model unreviewed, so it is refused", f.file, f.what, f.kind),
			Hint:    fmt.Sprintf("if it is meant, allow it for source %s in skillsync.yaml: allow: [{finding: %s, path: %s}]", src.Name, f.kind, rel),
			Finding: f.kind, DeclaredAt: declared})
	}
	return ok, let
}

// scanSnapshots refuses hidden text in what MCP servers gave: the
// capabilities and skills of their snapshots, whose text the servers wrote
// and no person of the workspace, unless the server's allow lets it through
// (its path pattern matched against the capability's id or the skill's name).
func (l *loader) scanSnapshots(reg *Registry) {
	for i, src := range reg.Config.Spec.MCPSources {
		for _, a := range src.Allow {
			if !slices.Contains(Findings, a.Finding) {
				l.add(Problem{Pos: itemAt(reg.config, i, "spec", "mcpSources").Position(), Message: fmt.Sprintf("allow of MCP server %s names the finding %q", src.Name, a.Finding),
					Hint: "name one of " + strings.Join(Findings, ", ")})
			}
		}
		file, ok := reg.SnapshotPath(src)
		if !ok {
			continue
		}
		check := func(name string, pos Position, v any) {
			for _, f := range valueFindings(file, pos, v) {
				if allowed(src.Allow, f, name) {
					continue
				}
				l.add(Problem{Pos: f.pos(), Message: fmt.Sprintf("%s of MCP server %s holds %s (%s): what a server gives reaches a model unreviewed, so it is refused", name, src.Name, strings.TrimSuffix(f.what, ", written as an escape"), f.kind),
					Hint:    fmt.Sprintf("if it is meant, allow it in spec.mcpSources[%d]: allow: [{finding: %s, path: %s}]", i, f.kind, name),
					Finding: f.kind})
			}
		}
		for _, c := range reg.Capabilities {
			if c.File() == file {
				check(c.ID, c.Pos(), c.Spec)
			}
		}
		for _, s := range reg.Skills {
			if s.File() == file {
				check(s.Name, s.Pos(), s.Spec)
			}
		}
	}
}

// hiddenTextWarnings are, for the workspace's own skills and capabilities,
// the hidden text a model would read in them: a warning, since a person of
// the workspace wrote them.
func hiddenTextWarnings(reg *Registry) Problems {
	var out Problems
	warn := func(found []finding) {
		for _, f := range found {
			out = append(out, Problem{Pos: f.pos(), Message: fmt.Sprintf("%s holds %s (%s), which a model reads and a person does not see", f.file, f.what, f.kind),
				Hint: "remove it, unless it is meant", Finding: f.kind})
		}
	}
	for _, s := range reg.Skills {
		if s.Origin != nil || reg.isSnapshot(s.File()) {
			continue
		}
		if s.Dir != "" {
			for _, f := range textFindings(path.Join(s.Dir, "SKILL.md"), []byte(s.Body)) {
				f.line += max(s.bodyLine, 1) - 1
				warn([]finding{f})
			}
		} else if s.BodyPath != "" {
			warn(textFindings(s.BodyPath, []byte(s.Body)))
		} else {
			// An inline body is a YAML scalar, whose quotes and escapes move
			// columns: the finding is placed at the field.
			at := s.doc.at("spec", "body").Position()
			for _, f := range textFindings(s.File(), []byte(s.Body)) {
				f.line, f.column = at.Line+f.line-1, at.Column
				warn([]finding{f})
			}
		}
		if s.Dir == "" {
			at := s.doc.at("spec", "description").Position()
			for _, f := range textFindings(s.File(), []byte(s.Spec.Description)) {
				f.line, f.column = at.Line, at.Column
				warn([]finding{f})
			}
		}
		for _, sf := range s.Files {
			if !binary(sf.Data) {
				warn(textFindings(path.Join(s.Dir, sf.Path), sf.Data))
			}
		}
	}
	for _, c := range reg.Capabilities {
		if c.source > 0 || reg.isSnapshot(c.File()) {
			continue
		}
		for key, text := range map[string]string{"title": c.Spec.Title, "description": c.Spec.Description} {
			at := c.doc.at("spec", key).Position()
			for _, f := range textFindings(c.File(), []byte(text)) {
				f.line, f.column = at.Line, at.Column
				warn([]finding{f})
			}
		}
	}
	return out
}

// JSONStrings is every string of the JSON text data: its values and its
// objects' keys; none when data is no JSON.
func JSONStrings(data []byte) []string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, item := range v {
				walk(item)
			}
		case map[string]any:
			for k, item := range v {
				out = append(out, k)
				walk(item)
			}
		}
	}
	walk(v)
	return out
}
