package mcp

import (
	"bytes"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/skillsync/skillsync/desired/registry"
)

// bannerLines is how many lines banner.Stamp adds to a snapshot above what
// Snapshot wrote.
const bannerLines = 2

// snapshotWriter puts a snapshot's documents together, noting the line each
// begins on and what of the server's it records.
type snapshotWriter struct {
	docs    bytes.Buffer
	origins []origin
}

// origin is what one document of a snapshot records: a tool, or a published
// skill; line is where the document begins in the stamped snapshot.
type origin struct {
	line  int
	tool  string
	skill PublishedSkill
}

func (w *snapshotWriter) add(doc []byte, o origin) {
	if len(w.origins) > 0 {
		w.docs.WriteString("---\n")
	}
	o.line = 1 + bytes.Count(w.docs.Bytes(), []byte("\n")) + bannerLines
	w.docs.Write(doc)
	w.origins = append(w.origins, o)
}

// Locate points the problems of ps that are in the snapshot r would have written
// at path, a text that is nowhere once it is refused, at what the server said
// instead: a published skill's own SKILL.md and line, or the tool. The others are
// as they were.
func (r Recorded) Locate(ps registry.Problems, path string) registry.Problems {
	out := make(registry.Problems, len(ps))
	for i, p := range ps {
		out[i] = p
		if p.Pos.File != path || p.Pos.Line == 0 {
			continue
		}
		o, doc, ok := r.originOf(p.Pos.Line)
		switch {
		case !ok:
		case o.tool != "":
			out[i].Pos = registry.Position{File: fmt.Sprintf("the tool %s of %s", o.tool, r.server)}
		default:
			out[i].Pos = registry.Position{File: o.skill.URI, Line: skillLine(o.skill.Content, keyAt(doc, p.Pos.Line-o.line+1))}
		}
	}
	return out
}

// originOf is the document of the snapshot that holds line, and its text.
func (r Recorded) originOf(line int) (origin, []byte, bool) {
	at := -1
	for i, o := range r.origins {
		if o.line <= line {
			at = i
		}
	}
	if at < 0 {
		return origin{}, nil, false
	}
	lines := strings.SplitAfter(string(r.Snapshot), "\n")
	end := len(lines)
	if at+1 < len(r.origins) {
		end = r.origins[at+1].line - 2 // the --- line between them
	}
	begin := r.origins[at].line - 1
	if begin > end || end > len(lines) {
		return origin{}, nil, false
	}
	return r.origins[at], []byte(strings.Join(lines[begin:end], "")), true
}

// frontmatterKeys are the SKILL.md frontmatter keys a published skill's
// registry document carries, by the document's spec key.
var frontmatterKeys = map[string]string{
	"description": "description", "disableModelInvocation": "disable-model-invocation",
	"userInvocable": "user-invocable", "paths": "paths", "body": "",
}

// keyAt is the frontmatter key of what line (1 for the document's first) of a
// published skill's registry document holds: "" for its body, "name" for its
// name and anything else.
func keyAt(doc []byte, line int) string {
	var n yaml.Node
	if yaml.Unmarshal(doc, &n) != nil || len(n.Content) == 0 {
		return "name"
	}
	spec := valueOf(n.Content[0], "spec")
	if spec == nil || line < spec.Line {
		return "name"
	}
	key := "name"
	for i := 0; i+1 < len(spec.Content); i += 2 {
		if spec.Content[i].Line <= line {
			if k, ok := frontmatterKeys[spec.Content[i].Value]; ok {
				key = k
			}
		}
	}
	return key
}

// skillLine is the line of SKILL.md content that holds the frontmatter key, or
// its body's first line for "".
func skillLine(content []byte, key string) int {
	text := strings.ReplaceAll(string(content), "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	front, _, closed := strings.Cut(rest, "\n---\n")
	if !ok || !closed {
		return 1
	}
	if key == "" {
		return strings.Count(front, "\n") + 4 // ---, the front matter, ---
	}
	var n yaml.Node
	if yaml.Unmarshal([]byte(front), &n) != nil || len(n.Content) == 0 {
		return 1
	}
	m := n.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line + 1
		}
	}
	return 1
}
