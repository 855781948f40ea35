package registry

import (
	"bytes"
	"fmt"
	"strings"
)

// Truncation is an input file that is now a strict prefix of the version last
// applied, cut inside a document. That is what an editor that truncates and
// rewrites in place, a crash in the middle of a save, or a full disk leaves
// behind, and such a file often still parses: it declares less than its author
// meant. It matters only when applying it would delete generated files; a
// deliberate removal of a document's last lines looks the same, so then it is
// refused until the author accepts the shorter file. A file that ends where one of
// its documents ended is not one: removing whole documents, by hand or by a
// checkout, is an ordinary edit, whose deletes wait for the inputs to settle like
// any other's.
type Truncation struct {
	File string
	Line int // where the file now ends
	Size int // its size now
	Lost int // bytes the version last applied went on for
	// Dropped are the owners (capability/<id>, skill/<name>) of the skills the
	// version last applied declared and no input declares now: the deletes this
	// file can cause. Nil when that version does not parse: then any delete can.
	Dropped map[string]bool
}

// Recorded is the record of the input files last applied, as CutOff reads it.
type Recorded interface {
	// Size is the recorded size of file; false when file is not recorded.
	Size(file string) (int, bool)
	// Bytes are the recorded bytes of file; nil when they are not kept.
	Bytes(file string) []byte
}

// CutOff finds every input file of reg that is a strict prefix of its recorded
// version in applied. Only a file shorter than recorded has its recorded bytes
// read.
func CutOff(applied Recorded, reg *Registry) []Truncation {
	if applied == nil {
		return nil
	}
	var cuts []Truncation
	for _, file := range sortedKeys(reg.Sources) {
		cur := reg.Sources[file]
		if size, ok := applied.Size(file); !ok || cur.Size >= size {
			continue
		}
		before := applied.Bytes(file)
		if cur.Size >= len(before) || SourceOf(before[:cur.Size]) != cur || atDocumentEnd(file, before[:cur.Size], before[cur.Size:]) {
			continue
		}
		cuts = append(cuts, Truncation{File: file, Line: bytes.Count(before[:cur.Size], []byte("\n")) + 1, Size: cur.Size, Lost: len(before) - cur.Size,
			Dropped: dropped(file, before, reg)})
	}
	return cuts
}

// atDocumentEnd says a file that is now head, and was head followed by tail, ends
// where one of its documents ended and the next began, and still declares one: a
// --- line ends head or begins tail (comments and blank lines before it aside). An
// emptied file, or one left with comments only, is what a save cut off at its
// start leaves, not an edit.
func atDocumentEnd(file string, head, tail []byte) bool {
	if len(head) > 0 && head[len(head)-1] != '\n' {
		return false
	}
	lines := bytes.Split(bytes.TrimSuffix(head, []byte("\n")), []byte("\n"))
	if !isDocumentMarker(lines[len(lines)-1]) && !startsWithMarker(tail) {
		return false
	}
	docs, ps := parseDocuments(file, head)
	return len(ps) == 0 && len(docs) > 0
}

// startsWithMarker says the first line of text that is neither blank nor a
// comment marks a document's start or end.
func startsWithMarker(text []byte) bool {
	for line := range bytes.Lines(text) {
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 || trimmed[0] == '#' {
			continue
		}
		return isDocumentMarker(line)
	}
	return false
}

// isDocumentMarker says line is YAML's --- or ... marker, alone or followed by a
// blank (and what may come after it on that line).
func isDocumentMarker(line []byte) bool {
	line = bytes.TrimRight(line, "\r\n")
	for _, m := range []string{"---", "..."} {
		if rest, ok := bytes.CutPrefix(line, []byte(m)); ok && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t') {
			return true
		}
	}
	return false
}

// Blames tells whether deleting the generated file of owner can follow from the
// truncation.
func (t Truncation) Blames(owner string) bool {
	return t.Dropped == nil || t.Dropped[owner]
}

// dropped lists the skill owners the document text before declared that reg no
// longer declares anywhere; nil when before does not parse, or holds what decides
// other skills than its own (the workspace config, a profile), where any delete
// can follow from the cut.
func dropped(file string, before []byte, reg *Registry) map[string]bool {
	roots, ps := parseDocuments(file, before)
	if len(ps) > 0 {
		return nil
	}
	declared := map[string]bool{}
	for _, c := range reg.Capabilities {
		if c.Spec.Skill != nil {
			declared[c.Owner()] = true
		}
	}
	for _, s := range reg.Skills {
		declared[SkillOwner(s.Name)] = true
	}
	out := map[string]bool{}
	for _, root := range roots {
		kind, name := mappingValue(root, "kind"), mappingValue(mappingValue(root, "metadata"), "name")
		if kind == nil || name == nil {
			return nil
		}
		owner := ""
		switch kind.Value {
		case "Capability":
			if mappingValue(mappingValue(root, "spec"), "skill") != nil {
				owner = CapabilityOwner(name.Value)
			}
		case "Skill":
			owner = SkillOwner(name.Value)
		default:
			return nil
		}
		if owner != "" && !declared[owner] {
			out[owner] = true
		}
	}
	return out
}

// maxListed bounds the paths a message lists.
const maxListed = 5

// Problem refuses the truncated file because applying it would delete the
// generated files deletes lists; with no deletes, it names the truncation as the
// likely cause of the other problems of its load.
func (t Truncation) Problem(deletes []string) Problem {
	consequence := "so it may be cut off in the middle of a save"
	if len(deletes) > 0 {
		listed, more := deletes, ""
		if len(listed) > maxListed {
			listed, more = listed[:maxListed], fmt.Sprintf(" and %d more", len(deletes)-maxListed)
		}
		consequence = fmt.Sprintf("applying it would delete %s%s, so it looks cut off in the middle of a save and nothing was written or removed",
			strings.Join(listed, ", "), more)
	}
	return Problem{
		Pos: Position{File: t.File, Line: t.Line},
		Message: fmt.Sprintf("the file ends here, after %d bytes, but the version last applied went on for %d more bytes and is otherwise the same; %s",
			t.Size, t.Lost, consequence),
		Hint: "finish the save; if you removed the end on purpose, run: skillsync accept " + t.File,
	}
}
